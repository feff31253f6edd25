import { describe, expect, it } from "vitest";
import type { PlainEntry } from "./answer-checks.js";
import { cursorDepths, keptEnds, MAX_OFFSET_DEPTH, pageAsks, pageLabel } from "./page-plan.js";

const entries = (from: number, n: number): PlainEntry[] =>
  Array.from({ length: n }, (_, i) => ({ playerId: `p${from + i}`, score: 1e6 - from - i, rank: from + i, reachedAtMs: 0 }));

describe("bench > batch > page plan", () => {
  it("measures cursors one walk page in, half way and one page before the end", () => {
    expect(cursorDepths(1_000_000, 1000)).toEqual([1000, 500_000, 999_000]);
    expect(cursorDepths(20_000, 1000)).toEqual([1000, 10_000, 19_000]);
    expect(cursorDepths(25_500, 1000)).toEqual([1000, 13_000, 24_000]);
    expect(() => cursorDepths(10_500, 1000)).toThrow(/too few/);
  });

  it("keeps the first page, the page ending at 10,000 and the pages ending at and after each depth", () => {
    expect([...keptEnds([1000, 10_000, 19_000], 1000)].sort((a, b) => a - b)).toEqual([1000, 2000, 10_000, 11_000, 19_000, 20_000]);
  });

  it("asks the top page, a cursor page per depth and the deepest offset page, each with the walk's entries at its ranks", () => {
    const depths = [1000, 10_000, 19_000];
    const kept = new Map([...keptEnds(depths, 1000)].map((end) => [end, { entries: entries(end - 999, 1000), next: `after-${end}` }]));
    const asks = pageAsks("b", { kept, depths }, { pageLimits: [10, 100], walkLimit: 1000 });
    expect(asks.map((a) => pageLabel(a))).toEqual([
      "top (offset 0), limit 10",
      "cursor at depth 1k, limit 10",
      "cursor at depth 10k, limit 10",
      "cursor at depth 19k, limit 10",
      "offset 9,990, limit 10",
      "top (offset 0), limit 100",
      "cursor at depth 1k, limit 100",
      "cursor at depth 10k, limit 100",
      "cursor at depth 19k, limit 100",
      "offset 9,900, limit 100",
    ]);
    for (const a of asks) {
      expect(a.expected.map((e) => e.rank)).toEqual(Array.from({ length: a.limit }, (_, i) => a.firstRank + i));
      if (a.before) expect(a.before.map((e) => e.rank)).toEqual(Array.from({ length: a.limit }, (_, i) => a.firstRank - a.limit + i));
    }
    expect(asks[2]!.request).toEqual({ board: "b", limit: 10, cursor: "after-10000" });
    expect(asks[4]!.request).toEqual({ board: "b", limit: 10, offset: BigInt(MAX_OFFSET_DEPTH - 10) });
    expect(asks[0]!.request).toEqual({ board: "b", limit: 10 });
    expect(() => pageAsks("b", { kept: new Map(), depths }, { pageLimits: [10], walkLimit: 1000 })).toThrow(/kept no page/);
  });
});
