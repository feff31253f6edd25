import { describe, expect, it } from "vitest";
import { rngFor } from "./rng.js";
import { helper1, helper2, zipfSampler } from "./zipf-sampler.js";

/** Exact P(k) for k = 1..n. */
function pmf(n: number, s: number): number[] {
  const w = Array.from({ length: n }, (_, i) => (i + 1) ** -s);
  const total = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / total);
}

function frequencies(n: number, s: number, draws: number, seed = 1): number[] {
  const zipf = zipfSampler(n, s);
  const rng = rngFor(seed);
  const counts = new Array<number>(n).fill(0);
  for (let i = 0; i < draws; i++) counts[zipf.sample(rng) - 1]!++;
  return counts.map((c) => c / draws);
}

describe("loadtest > zipf sampler", () => {
  for (const s of [0.5, 1, 1.2, 2]) {
    it(`matches the exact distribution for n = 20, s = ${s}`, () => {
      const expected = pmf(20, s);
      const seen = frequencies(20, s, 400_000);
      // every probability within 5 standard errors of the estimate
      expected.forEach((p, k) => expect(Math.abs(seen[k]! - p)).toBeLessThan(5 * Math.sqrt((p * (1 - p)) / 400_000)));
    });
  }

  it("is uniform for s = 0", () => {
    const seen = frequencies(10, 0, 100_000);
    for (const f of seen) expect(f).toBeCloseTo(0.1, 2);
  });

  it("stays in range and puts 1/H(n) on rank 1 for n = 1e9, s = 1", () => {
    const n = 1e9;
    const zipf = zipfSampler(n, 1);
    const rng = rngFor(3);
    let ones = 0;
    let max = 0;
    let bad = 0;
    const draws = 200_000;
    for (let i = 0; i < draws; i++) {
      const k = zipf.sample(rng);
      if (!(Number.isInteger(k) && k >= 1 && k <= n)) bad++;
      if (k === 1) ones++;
      max = Math.max(max, k);
    }
    expect(bad).toBe(0);
    const harmonic = Math.log(n) + 0.5772156649 + 1 / (2 * n); // H(n), Euler-Maclaurin
    expect(ones / draws).toBeCloseTo(1 / harmonic, 2);
    expect(max).toBeGreaterThan(1e6); // the tail is reached
  });

  it("agrees at s = 1 with s just beside it (no special case at 1)", () => {
    const a = frequencies(50, 1, 100_000, 9);
    const b = frequencies(50, 1 + 1e-9, 100_000, 9);
    a.forEach((f, k) => expect(Math.abs(f - b[k]!)).toBeLessThan(0.005));
  });

  it("returns 1 for n = 1 and refuses bad parameters", () => {
    expect(zipfSampler(1, 1).sample(rngFor(0))).toBe(1);
    expect(() => zipfSampler(0, 1)).toThrow(RangeError);
    expect(() => zipfSampler(10, -1)).toThrow(RangeError);
    expect(() => zipfSampler(1.5, 1)).toThrow(RangeError);
  });

  it("computes log1p(x)/x and expm1(x)/x accurately near 0", () => {
    for (const x of [1e-12, -1e-12, 1e-9, 0.5, -0.5]) {
      expect(helper1(x)).toBeCloseTo(x === 0 ? 1 : Math.log1p(x) / x, 12);
      expect(helper2(x)).toBeCloseTo(Math.expm1(x) / x, 12);
    }
    expect(helper1(0)).toBe(1);
    expect(helper2(0)).toBe(1);
  });
});
