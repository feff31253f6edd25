import { describe, expect, it } from "vitest";
import { approximateRank, bucketOfStored, countsAround, firstKeys, histogramProblem, pointsBuckets, storedBucketOf } from "./histogram.js";

const higher = { minPoints: 0, maxPoints: 100, timeUnits: 1000, lowerIsBetter: false };
const lower = { ...higher, lowerIsBetter: true };
const bounds = [10, 50];

describe("histogram > buckets", () => {
  it("cut the points range at the bounds", () => {
    expect(pointsBuckets(higher, bounds)).toEqual([
      { min: 0, max: 9 },
      { min: 10, max: 49 },
      { min: 50, max: 100 },
    ]);
  });

  it("start at sort keys in the board's order: the best points first", () => {
    // higher is better: 100..50 are keys 0.., 49..10 from (100 - 49) * 1000, 9..0 from (100 - 9) * 1000
    expect(firstKeys(higher, bounds)).toEqual([0, 51_000, 91_000]);
    expect(bucketOfStored(higher, bounds, 0)).toEqual({ min: 50, max: 100 });
    // lower is better: 0..9 first
    expect(firstKeys(lower, bounds)).toEqual([0, 10_000, 50_000]);
    expect(bucketOfStored(lower, bounds, 2)).toEqual({ min: 50, max: 100 });
  });

  it("find a stored bucket and its range directly, as the list of every bucket says", () => {
    // the oracle: every bucket's range listed (pointsBuckets), in stored order, searched one by one
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 50; round++) {
      const spec = { minPoints: -rand(50), maxPoints: 200 + rand(50), timeUnits: 1, lowerIsBetter: round % 2 === 0 };
      const set = new Set<number>();
      for (let k = rand(12); k > 0; k--) set.add(spec.minPoints + 1 + rand(spec.maxPoints - spec.minPoints));
      const bs = [...set].sort((a, b) => a - b);
      const listed = pointsBuckets(spec, bs);
      const stored = spec.lowerIsBetter ? listed : [...listed].reverse();
      stored.forEach((range, j) => expect(bucketOfStored(spec, bs, j)).toEqual(range));
      for (let p = spec.minPoints; p <= spec.maxPoints; p++)
        expect(storedBucketOf(spec, bs, p)).toBe(stored.findIndex((r) => p >= r.min && p <= r.max));
    }
  });

  it("refuse bounds out of range, unordered or too many", () => {
    expect(histogramProblem(higher, [0])).toMatch(/within/);
    expect(histogramProblem(higher, [101])).toMatch(/within/);
    expect(histogramProblem(higher, [20, 20])).toMatch(/ascending/);
    expect(
      histogramProblem(
        { ...higher, maxPoints: 1000 },
        Array.from({ length: 256 }, (_, i) => i + 1),
      ),
    ).toMatch(/MAX_HISTOGRAM_BOUNDS/);
    expect(histogramProblem(higher, [1, 100])).toBeUndefined();
  });
});

describe("histogram > approximate rank", () => {
  // stored order, higher is better: [50..100]: 4 entries, [10..49]: 10, [0..9]: 6
  const counts = [4, 10, 6];
  it("bounds the exact rank by the bucket and estimates by where the points lie in it", () => {
    // 30 points: 4 better entries; the exact rank of a new 30 is in 5 .. 15
    const around = (p: number) => countsAround(counts, storedBucketOf(higher, bounds, p));
    expect(around(30)).toEqual({ better: 4, inBucket: 10 });
    const r = approximateRank(higher, bounds, around(30), 30, false);
    expect({ atLeast: r.atLeast, atMost: r.atMost, bucket: r.bucket }).toEqual({ atLeast: 5, atMost: 15, bucket: 1 });
    // 19 of the bucket's 40 points lie above 30: floor(10 * 19 / 40) = 4 of its entries ahead
    expect(r.estimate).toBe(4 + 4 + 1);
    // a player holding 30 is one of the counts
    expect(approximateRank(higher, bounds, around(30), 30, true).atMost).toBe(14);
    // the top of the best bucket ranks 1
    expect(approximateRank(higher, bounds, around(100), 100, true).estimate).toBe(1);
  });

  it("reads the other way on a lower-is-better board", () => {
    // stored order: [0..9]: 6, [10..49]: 10, [50..100]: 4
    const r = approximateRank(lower, bounds, countsAround([6, 10, 4], storedBucketOf(lower, bounds, 60)), 60, false);
    expect({ atLeast: r.atLeast, atMost: r.atMost }).toEqual({ atLeast: 17, atMost: 21 });
  });
});
