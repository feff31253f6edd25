import { describe, expect, it } from "vitest";
import { highestSustained, pcts, perSecond, shortfalls, type StepFacts } from "./step-summary.js";

const fine = (over: Partial<StepFacts> = {}): StepFacts => ({
  watchers: true,
  probed: true,
  sentInWindow: 10_000,
  ackedInWindow: 10_000,
  failedBatches: 0,
  unsentBatches: 0,
  drainS: 0.2,
  feedResets: 0,
  resynced: 0,
  streamsEnded: 0,
  expiredProbes: 0,
  own: { n: 100, p50: 100, p90: 200, p99: 400, max: 500 },
  overtake: { n: 20, p50: 90, p90: 150, p99: 300, max: 300 },
  ...over,
});

describe("bench > push > step summary", () => {
  it("takes nearest-rank percentiles", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 1..100, unsorted
    expect(pcts(values)).toEqual({ n: 100, p50: 50, p90: 90, p99: 99, max: 100 });
    expect(pcts([7])).toEqual({ n: 1, p50: 7, p90: 7, p99: 7, max: 7 });
    expect(pcts([]).p50).toBeNaN();
  });

  it("calls a step sustained only when writes, applies and watchers all kept up", () => {
    expect(shortfalls(fine())).toEqual([]);
    expect(shortfalls(fine({ ackedInWindow: 9_000 }))).toEqual(["acknowledged 9000 of the 10000 updates sent in the window"]);
    expect(shortfalls(fine({ sentInWindow: 140, ackedInWindow: 140 }))).toEqual([]); // 7 batches of 20 in a 15 s window at 10 updates/s
    expect(shortfalls(fine({ drainS: 2.5 }))).toEqual(["applied 2.5 s after the window (limit 2 s)"]);
    expect(shortfalls(fine({ drainS: Infinity }))).toEqual(["applied never after the window (limit 2 s)"]);
    expect(shortfalls(fine({ feedResets: 3, resynced: 40 }))).toEqual(["3 change feed resets", "40 resynced messages"]);
    expect(shortfalls(fine({ own: { n: 100, p50: 300, p90: 800, p99: 1500, max: 2000 } }))).toEqual([
      "own-score push latency p99 1500 ms from the acknowledgement (limit 1000 ms)",
    ]);
    expect(shortfalls(fine({ overtake: { n: 0, p50: NaN, p90: NaN, p99: NaN, max: NaN }, expiredProbes: 2 }))).toEqual([
      "2 writes never seen on their watcher's stream",
      "no overtake latency sample",
    ]);
  });

  it("judges a step without watchers by its writes and applies alone, one with WatchTop streams only by its feeds too", () => {
    const none = fine({ watchers: false, probed: false, own: undefined, overtake: undefined, feedResets: 1 });
    expect(shortfalls(none)).toEqual([]);
    expect(shortfalls({ ...none, unsentBatches: 4, failedBatches: 1 })).toEqual([
      "1 failed batches",
      "4 batches never sent (the client could not keep the rate)",
    ]);
    expect(shortfalls({ ...none, watchers: true })).toEqual(["1 change feed resets"]);
  });

  it("reports the highest rate sustained with every lower rate sustained too", () => {
    const s = (rate: number, ok: boolean) => ({ rate, shortfalls: ok ? [] : ["late"] });
    expect(highestSustained([s(250, true), s(500, true), s(1000, false), s(2000, true)])).toBe(500);
    expect(highestSustained([s(500, true), s(250, false)])).toBe(0);
    expect(highestSustained([])).toBe(0);
  });

  it("turns two counter readings into a rate", () => {
    expect(perSecond(100, 400, 2)).toBe(150);
    expect(perSecond(1, 2, 0)).toBeNaN();
  });
});
