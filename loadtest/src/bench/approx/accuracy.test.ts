import { describe, expect, it } from "vitest";
import {
  accuracy,
  depthRanks,
  fromHistogram,
  histogramProblems,
  percentiles,
  sampleProblems,
  type ApproxAnswer,
  type Bucket,
  type RankSample,
} from "./accuracy.js";

// a board of 10 players: 2 with 0..9 points, 5 with 10..99, 3 with 100..max
const HIST: Bucket[] = [
  { min: 0, max: 9, count: 2 },
  { min: 10, max: 99, count: 5 },
  { min: 100, max: 1000, count: 3 },
];
const RANGES = HIST.map(({ min, max }) => ({ min, max }));
const answer = (over: Partial<ApproxAnswer>): ApproxAnswer => ({
  estimate: 5,
  atLeast: 4,
  atMost: 8,
  total: 10,
  score: 50,
  bucket: HIST[1]!,
  ...over,
});
/** A player with 50 points at exact rank 6: 3 players above its bucket, 4 with more points than it, 6 with at least as many. */
const sample = (over: Partial<RankSample> = {}): RankSample => ({
  playerId: "p:1",
  exact: 6,
  points: 50,
  above: 4,
  atOrAbove: 6,
  byPlayer: answer({}),
  byScore: answer({ atMost: 9 }),
  ...over,
});

describe("bench > approx > accuracy", () => {
  it("accepts a histogram whose buckets are the bounds', sum to the total and equal GetCount over their points", () => {
    expect(histogramProblems(HIST, 10, RANGES, 10, [2, 5, 3])).toEqual([]);
  });

  it("finds every way a histogram can be wrong", () => {
    expect(histogramProblems(HIST, 10, RANGES, 10, [2, 4, 3])).toEqual(["bucket 1 [10, 99]: 5 entries, GetCount over its points counts 4"]);
    expect(histogramProblems(HIST, 11, RANGES, 11, [2, 5, 3])).toEqual(["the buckets sum to 10, the total is 11"]);
    expect(histogramProblems(HIST, 10, RANGES, 12, [2, 5, 3])).toEqual(["total 10, 12 players seeded"]);
    expect(histogramProblems(HIST.slice(0, 2), 7, RANGES, 7, [2, 5, 3])).toEqual(["2 buckets, the bounds make 3"]);
    expect(histogramProblems(HIST, 10, [{ min: 0, max: 10 }, { min: 11, max: 99 }, RANGES[2]!], 10, [2, 5, 3])).toHaveLength(2);
  });

  it("reads points' place from the histogram alone", () => {
    expect(fromHistogram(HIST, 50)).toEqual({ better: 3, bucket: HIST[1] });
    expect(fromHistogram(HIST, 1000)).toEqual({ better: 0, bucket: HIST[2] });
    expect(fromHistogram(HIST, 0)).toEqual({ better: 8, bucket: HIST[0] });
  });

  it("accepts answers that hold the exact rank, agree with the histogram and with each other", () => {
    expect(sampleProblems(sample(), HIST, 10)).toEqual([]);
  });

  it("fails bounds that miss the exact rank", () => {
    const low = sample({ exact: 9, atOrAbove: 9, above: 8 }); // counts consistent, but rank 9 is past [4, 8]
    expect(sampleProblems(low, HIST, 10).join("\n")).toMatch(/by player_id, bounds \[4, 8\] do not hold the exact rank/);
  });

  it("fails bounds that are not the histogram's, an estimate outside them, or a wrong player's points", () => {
    expect(
      sampleProblems(sample({ byPlayer: answer({ atLeast: 5 }), byScore: answer({ atLeast: 5, atMost: 9 }) }), HIST, 10).join("\n"),
    ).toMatch(/the histogram: 3 entries in better buckets/);
    expect(
      sampleProblems(sample({ byPlayer: answer({ estimate: 9 }), byScore: answer({ estimate: 9, atMost: 9 }) }), HIST, 10).join("\n"),
    ).toMatch(/estimate 9 outside \[4, 8\]/);
    expect(sampleProblems(sample({ byPlayer: answer({ score: 49 }) }), HIST, 10).join("\n")).toMatch(/by player_id, 49 points/);
  });

  it("wants the score's answer one entry wider than the player's, and holding a new entry's ranks", () => {
    expect(sampleProblems(sample({ byScore: answer({}) }), HIST, 10).join("\n")).toMatch(/by score, \[4, 8\]/); // rank_at_most not one more
    expect(sampleProblems(sample({ byScore: answer({ atMost: 9, estimate: 6 }) }), HIST, 10)).toHaveLength(1);
    expect(sampleProblems(sample({ above: 4, atOrAbove: 9 }), HIST, 10).join("\n")).toMatch(/do not hold a new entry's ranks 5\.\.10/);
  });

  it("fails a GetRank that is not among the entries with its points", () => {
    expect(sampleProblems(sample({ above: 6, atOrAbove: 7 }), HIST, 10).join("\n")).toMatch(
      /GetCount counts 6 entries with more points and 7/,
    );
  });

  it("takes nearest-rank percentiles", () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 .. 1
    expect(percentiles(xs)).toEqual({ p50: 50, p90: 90, p99: 99, max: 100 });
    expect(percentiles([7])).toEqual({ p50: 7, p90: 7, p99: 7, max: 7 });
    expect(percentiles([]).p50).toBeNaN();
  });

  it("measures bound widths and the estimate's absolute and relative errors", () => {
    const a = accuracy([
      { exact: 10, answer: { atLeast: 1, atMost: 20, estimate: 12 } },
      { exact: 100, answer: { atLeast: 91, atMost: 100, estimate: 100 } },
      { exact: 1, answer: { atLeast: 1, atMost: 4, estimate: 3 } },
    ]);
    expect(a.n).toBe(3);
    expect(a.width).toEqual({ p50: 10, p90: 20, p99: 20, max: 20 });
    expect(a.absError).toEqual({ p50: 2, p90: 2, p99: 2, max: 2 });
    expect(a.relError).toEqual({ p50: 0.2, p90: 2, p99: 2, max: 2 });
  });

  it("asks at depths 1, 10, 100, ... the middle and the last rank", () => {
    expect(depthRanks(1_000_000)).toEqual([1, 10, 100, 1000, 10_000, 100_000, 500_000, 1_000_000]);
    expect(depthRanks(20_000)).toEqual([1, 10, 100, 1000, 10_000, 20_000]);
    expect(depthRanks(1)).toEqual([1]);
  });
});
