import { describe, expect, it } from "vitest";
import { accuracy, depthRanks, percentiles } from "./accuracy.js";

describe("bench > approx > accuracy", () => {
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
    expect(a.held).toBe(3);
    expect(a.width).toEqual({ p50: 10, p90: 20, p99: 20, max: 20 });
    expect(a.absError).toEqual({ p50: 2, p90: 2, p99: 2, max: 2 });
    expect(a.relError).toEqual({ p50: 0.2, p90: 2, p99: 2, max: 2 });
    expect(accuracy([{ exact: 5, answer: { atLeast: 1, atMost: 4, estimate: 3 } }]).held).toBe(0); // bounds that miss the exact rank
  });

  it("asks at depths 1, 10, 100, ... the middle and the last rank", () => {
    expect(depthRanks(1_000_000)).toEqual([1, 10, 100, 1000, 10_000, 100_000, 500_000, 1_000_000]);
    expect(depthRanks(20_000)).toEqual([1, 10, 100, 1000, 10_000, 20_000]);
    expect(depthRanks(1)).toEqual([1]);
  });
});
