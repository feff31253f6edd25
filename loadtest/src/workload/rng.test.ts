import { describe, expect, it } from "vitest";
import { rngFor } from "./rng.js";

describe("loadtest > rng", () => {
  it("repeats the same numbers for the same seed and stream", () => {
    const a = rngFor(42, 7);
    const b = rngFor(42, 7);
    for (let i = 0; i < 100; i++) expect(a.nextUint32()).toBe(b.nextUint32());
  });

  it("gives other numbers for another stream or seed", () => {
    const first = (seed: number, stream: number) =>
      Array.from(
        { length: 8 },
        (
          (r) => () =>
            r.nextUint32()
        )(rngFor(seed, stream)),
      );
    expect(first(42, 7)).not.toEqual(first(42, 8));
    expect(first(42, 7)).not.toEqual(first(43, 7));
    expect(first(0, 0)).not.toEqual(first(2 ** 32, 0)); // the high half of the seed counts
  });

  it("draws doubles in [0, 1) with mean 1/2 and integers below n", () => {
    const r = rngFor(1);
    let sum = 0;
    let bad = 0;
    for (let i = 0; i < 100_000; i++) {
      const d = r.nextDouble();
      if (!(d >= 0 && d < 1)) bad++;
      sum += d;
      const k = r.nextInt(7);
      if (!(Number.isInteger(k) && k >= 0 && k < 7)) bad++;
    }
    expect(bad).toBe(0);
    expect(sum / 100_000).toBeCloseTo(0.5, 2);
  });

  it("draws standard normal deviates", () => {
    const r = rngFor(2);
    const n = 100_000;
    let sum = 0;
    let squares = 0;
    for (let i = 0; i < n; i++) {
      const g = r.nextGaussian();
      sum += g;
      squares += g * g;
    }
    expect(Math.abs(sum / n)).toBeLessThan(0.02);
    expect(Math.sqrt(squares / n)).toBeCloseTo(1, 1);
  });
});
