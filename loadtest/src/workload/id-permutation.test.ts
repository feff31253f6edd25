import { describe, expect, it } from "vitest";
import { idPermutation } from "./id-permutation.js";

describe("loadtest > id permutation", () => {
  for (const n of [1, 2, 3, 10, 1000, 4097, 65_536]) {
    it(`is a bijection of [0, ${n})`, () => {
      const p = idPermutation(n, 12345);
      const seen = new Uint8Array(n);
      let outside = 0;
      for (let i = 0; i < n; i++) {
        const v = p.apply(i);
        if (v >= 0 && v < n && Number.isInteger(v)) seen[v] = 1;
        else outside++;
      }
      expect(outside).toBe(0);
      expect(seen.every((x) => x === 1)).toBe(true);
    });
  }

  it("is fixed by its key and changes with it", () => {
    const a = idPermutation(1e6, 1);
    const b = idPermutation(1e6, 1);
    const c = idPermutation(1e6, 2);
    const first = (p: typeof a) => Array.from({ length: 20 }, (_, i) => p.apply(i));
    expect(first(a)).toEqual(first(b));
    expect(first(a)).not.toEqual(first(c));
  });

  it("scatters the first ranks over an id space of 1e9", () => {
    const p = idPermutation(1e9, 7);
    const images = Array.from({ length: 1000 }, (_, i) => p.apply(i));
    for (const v of images) expect(v >= 0 && v < 1e9).toBe(true);
    expect(new Set(images).size).toBe(1000);
    // spread: each tenth of the space holds some of the first 1,000 ranks
    const tenths = new Set(images.map((v) => Math.floor(v / 1e8)));
    expect(tenths.size).toBe(10);
  });
});
