import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { BoardRulesSchema, Operation, WindowRuleSchema } from "@ladder/proto/leaderboard/v1/common_pb";
import { belowFloor, keptSize, retentionOf, retentionProblem, trimmedOpProblem } from "./retention.js";

const rules = (r: Partial<{ keepTop: number; keepMargin: number; expireInactiveMs: bigint; windows: boolean }>) =>
  create(BoardRulesSchema, {
    keepTop: r.keepTop ?? 0,
    keepMargin: r.keepMargin ?? 0,
    expireInactiveMs: r.expireInactiveMs ?? 0n,
    windows: r.windows ? [create(WindowRuleSchema, { name: "w", periods: 2 })] : [],
  });

describe("retention > rules", () => {
  it("takes keep_top with its margin defaulting to keep_top", () => {
    expect(retentionProblem(rules({ keepTop: 50 }), Operation.BEST)).toBeUndefined();
    expect(retentionOf(rules({ keepTop: 50 }))).toEqual({ keepTop: 50, keepMargin: 50, expireInactiveMs: 0 });
    expect(keptSize(retentionOf(rules({ keepTop: 1000, keepMargin: 10 })))).toBe(1010);
    expect(keptSize(retentionOf(rules({})))).toBe(0);
  });

  it("refuses bad values, naming the field and the limit", () => {
    expect(retentionProblem(rules({ keepTop: 10_001 }))).toBe("rules.keep_top must be 0 (keep every entry) to 10000, got 10001");
    expect(retentionProblem(rules({ keepTop: 5, keepMargin: 20_000 }))).toMatch(
      /^rules\.keep_margin must be 0 \(as keep_top\) to 10000, got 20000/,
    );
    expect(retentionProblem(rules({ keepMargin: 5 }))).toMatch(/^rules\.keep_margin is 5 without rules\.keep_top/);
    expect(retentionProblem(rules({ expireInactiveMs: 59_999n }))).toMatch(
      /^rules\.expire_inactive_ms must be 0 \(never\) or 60000 to 315360000000/,
    );
    expect(retentionProblem(rules({ expireInactiveMs: 315_360_000_001n }))).toMatch(/got 315360000001$/);
    expect(retentionProblem(rules({ keepTop: 5, windows: true }))).toMatch(/^rules\.keep_top: not on a board with windows/);
    expect(retentionProblem(rules({ expireInactiveMs: 60_000n, windows: true }))).toMatch(
      /^rules\.expire_inactive_ms: not on a board with windows/,
    );
    expect(retentionProblem(rules({ keepTop: 5 }), Operation.INCREMENT)).toMatch(
      /^rules\.keep_top: not on a board whose default_op is INCREMENT .*could not be kept honestly/,
    );
    expect(retentionProblem(rules({ expireInactiveMs: 60_000n }), Operation.INCREMENT)).toBeUndefined();
  });

  it("refuses increments and decrements on a trimmed board only", () => {
    expect(trimmedOpProblem("b", Operation.INCREMENT, 10)).toMatch(/^op INCREMENT: board "b" keeps only its top 10/);
    expect(trimmedOpProblem("b", Operation.DECREMENT, 10)).toMatch(/^op DECREMENT/);
    expect(trimmedOpProblem("b", Operation.SET, 10)).toBeUndefined();
    expect(trimmedOpProblem("b", Operation.INCREMENT, 0)).toBeUndefined();
  });
});

describe("retention > floor", () => {
  it("orders by sort key, then by id bytes as Redis does", () => {
    const floor = { key: 100, playerId: "m" };
    expect(belowFloor(101, "a", floor)).toBe(true);
    expect(belowFloor(99, "z", floor)).toBe(false);
    expect(belowFloor(100, "m", floor)).toBe(false); // the floor itself is kept
    expect(belowFloor(100, "ma", floor)).toBe(true);
    expect(belowFloor(100, "l", floor)).toBe(false);
    // "é" (0xc3 0xa9) is after "z" (0x7a) by bytes, whatever a locale says
    expect(belowFloor(100, "é", { key: 100, playerId: "z" })).toBe(true);
  });
});
