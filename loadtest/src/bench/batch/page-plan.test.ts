import { describe, expect, it } from "vitest";
import { cursorDepths, MAX_OFFSET_DEPTH, pageAsks, pageLabel } from "./page-plan.js";

describe("bench > batch > page plan", () => {
  it("measures cursors one walk page in, half way and one page before the end", () => {
    expect(cursorDepths(1_000_000, 1000)).toEqual([1000, 500_000, 999_000]);
    expect(cursorDepths(20_000, 1000)).toEqual([1000, 10_000, 19_000]);
    expect(cursorDepths(25_500, 1000)).toEqual([1000, 13_000, 24_000]);
    expect(() => cursorDepths(10_500, 1000)).toThrow(/too few/);
  });

  it("asks the top page, a cursor page per depth and the deepest offset page, at the walk's cursors", () => {
    const depths = [1000, 10_000, 19_000];
    const kept = new Map(depths.map((end) => [end, `after-${end}`]));
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
    expect(asks.map((a) => a.firstRank)).toEqual([1, 1001, 10_001, 19_001, 9991, 1, 1001, 10_001, 19_001, 9901]);
    expect(asks[2]!.request).toEqual({ board: "b", limit: 10, cursor: "after-10000" });
    expect(asks[4]!.request).toEqual({ board: "b", limit: 10, offset: BigInt(MAX_OFFSET_DEPTH - 10) });
    expect(asks[0]!.request).toEqual({ board: "b", limit: 10 });
    expect(() => pageAsks("b", { kept: new Map(), depths }, { pageLimits: [10], walkLimit: 1000 })).toThrow(/kept no page/);
  });
});
