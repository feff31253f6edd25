import { describe, expect, it } from "vitest";
import { pointsBuckets } from "@ladder/model/histogram";
import { BENCH_SPEC, benchPlayers } from "../infra/bench-board.js";
import { DEFAULT_SCORE_SHAPE } from "../../workload/score-distribution.js";
import { normalQuantile, quantileBounds, scoreQuantile } from "./histogram-bounds.js";

/** The share of `points` in each bucket of `bounds` on the bench's board. */
function shares(points: readonly number[], bounds: readonly number[]): number[] {
  const counts = new Array<number>(bounds.length + 1).fill(0);
  for (const p of points) {
    let j = 0;
    while (j < bounds.length && p >= bounds[j]!) j++;
    counts[j]!++;
  }
  return counts.map((c) => c / points.length);
}

describe("bench > approx > histogram bounds", () => {
  it("inverts the standard normal distribution", () => {
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6);
    expect(normalQuantile(0.025)).toBeCloseTo(-1.959964, 6);
    expect(normalQuantile(0.8413447461)).toBeCloseTo(1, 6);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 6); // the lower tail's own formula
    expect(normalQuantile(0.999)).toBeCloseTo(3.090232, 6);
    expect(() => normalQuantile(0)).toThrow(RangeError);
    expect(() => normalQuantile(1)).toThrow(RangeError);
  });

  it("puts one bound at the median: the integer b with b − 0.5 nearest to it", () => {
    expect(scoreQuantile(DEFAULT_SCORE_SHAPE, 0.5)).toBeCloseTo(1000, 9);
    expect(quantileBounds(DEFAULT_SCORE_SHAPE, 1, BENCH_SPEC)).toEqual([1001]);
  });

  it("makes 16 and 255 strictly ascending bounds within the board's range, valid as BoardRules.histogram_bounds", () => {
    for (const n of [16, 255]) {
      const b = quantileBounds(DEFAULT_SCORE_SHAPE, n, BENCH_SPEC);
      expect(b).toHaveLength(n);
      b.forEach((x, i) => {
        expect(Number.isInteger(x)).toBe(true);
        expect(x).toBeGreaterThan(i === 0 ? BENCH_SPEC.minPoints : b[i - 1]!);
      });
      expect(b.at(-1)!).toBeLessThanOrEqual(BENCH_SPEC.maxPoints);
      expect(pointsBuckets(BENCH_SPEC, b)).toHaveLength(n + 1);
    }
  });

  it("gives every bucket about the same share of the seeder's own players", () => {
    const points = [...benchPlayers(1, 0, 200_000)].flat().map((p) => p.points);
    expect(points).toHaveLength(200_000);
    // 17 buckets of 1/17 each: a share's standard deviation is 0.05 percentage points here
    for (const s of shares(points, quantileBounds(DEFAULT_SCORE_SHAPE, 16, BENCH_SPEC))) expect(Math.abs(s - 1 / 17)).toBeLessThan(0.003);
    // 256 buckets of 0.39% each (deviation 0.014 points; rounding to whole points moves the lowest by up to 0.03)
    for (const s of shares(points, quantileBounds(DEFAULT_SCORE_SHAPE, 255, BENCH_SPEC))) expect(Math.abs(s - 1 / 256)).toBeLessThan(0.001);
  });

  it("drops bounds that round onto each other or onto the minimum, when the law is narrower than a point per bucket", () => {
    const b = quantileBounds({ medianPoints: 2, sigma: 1.5 }, 255, BENCH_SPEC);
    expect(b.length).toBeLessThan(255);
    expect(b.length).toBeGreaterThan(10);
    expect(b[0]).toBeGreaterThan(0);
    b.forEach((x, i) => i > 0 && expect(x).toBeGreaterThan(b[i - 1]!));
    expect(quantileBounds({ medianPoints: 5, sigma: 1 }, 3, { minPoints: 0, maxPoints: 6 })).toEqual([3, 6]); // quantiles 2.55, 5 and 9.8 make 3, 6 and 10: 10 is above the maximum
  });
});
