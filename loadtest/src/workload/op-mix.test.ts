import { describe, expect, it } from "vitest";
import { DEFAULT_MIX, parseMix, pickOperation } from "./op-mix.js";

describe("loadtest > op mix", () => {
  it("parses the default mix", () => {
    expect(parseMix(DEFAULT_MIX)).toEqual({ write: 50, top: 10, rank: 30, around: 10 });
  });

  it("leaves operations out at weight 0 and accepts fractions", () => {
    expect(parseMix("rank=1.5, top=0.5")).toEqual({ write: 0, top: 0.5, rank: 1.5, around: 0 });
  });

  it("lists every problem", () => {
    expect(() => parseMix("write=x,foo=1,rank")).toThrow(/"write=x".*unknown operation "foo".*"rank"/);
    expect(() => parseMix("write=0")).toThrow(/every weight is 0/);
    expect(() => parseMix("write=-1")).toThrow(/weight >= 0/);
  });

  it("picks operations in proportion to their weights", () => {
    const mix = parseMix("write=50,top=10,rank=30,around=10");
    const counts = { write: 0, top: 0, rank: 0, around: 0 };
    const n = 10_000;
    for (let i = 0; i < n; i++) counts[pickOperation(mix, (i + 0.5) / n)]++;
    expect(counts).toEqual({ write: 5000, top: 1000, rank: 3000, around: 1000 });
  });

  it("never picks an operation of weight 0, even at the edges", () => {
    const mix = parseMix("top=1,around=1");
    expect(pickOperation(mix, 0)).toBe("top");
    expect(pickOperation(mix, 0.999999999999)).toBe("around");
    expect(pickOperation(mix, 1)).toBe("around");
  });
});
