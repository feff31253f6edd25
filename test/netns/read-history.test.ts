import { describe, expect, it } from "vitest";
import { ReadHistory } from "./read-history.js";

describe("ReadHistory", () => {
  it("without a bound, a read must show the highest score any earlier answer showed", () => {
    const h = new ReadHistory();
    expect(h.mustShow("a", 100)).toBeUndefined();
    h.note("a", 5, 100);
    h.note("a", 3, 110); // a regression already reported: the highest stays 5
    expect(h.mustShow("a", 110)).toEqual({ endMs: 110, score: 5 });
    expect(h.mustShow("a", 99)).toBeUndefined();
    expect(h.mustShow("b", 500)).toBeUndefined();
  });

  it("with a bound, only answers ended by the read's start less the bound count", () => {
    const h = new ReadHistory((p) => (p === "replicated" ? 1000 : 0));
    h.note("replicated", 484, 10_000);
    h.note("plain", 484, 10_000);
    // 483 read from 10,500: within the replica's bound of the read that showed 484
    expect(h.mustShow("replicated", 10_500)).toBeUndefined();
    expect(h.mustShow("plain", 10_500)?.score).toBe(484);
    // from 11,000 on, 484 is past the bound: it must be shown
    expect(h.mustShow("replicated", 11_000)?.score).toBe(484);
    h.note("replicated", 490, 10_800);
    expect(h.mustShow("replicated", 11_500)?.score).toBe(484);
    expect(h.mustShow("replicated", 11_800)?.score).toBe(490);
  });
});
