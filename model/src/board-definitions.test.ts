import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { BoardDefinitionSchema } from "@ladder/proto/leaderboard/v1/admin_pb";
import { BoardRulesSchema, Operation, SortOrder, TieRule } from "@ladder/proto/leaderboard/v1/common_pb";
import {
  BoardCatalog,
  decodeDefinition,
  encodeDefinition,
  normalizeDefinition,
  sameRules,
  specOfDefinition,
  specOfRules,
} from "./board-definitions.js";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec, storedBoardName } from "./board-spec.js";

const now = Date.UTC(2026, 11, 1, 9);

describe("model > board definitions", () => {
  it("fills a definition's defaults and gives it a generation", () => {
    const { definition, problems } = normalizeDefinition(
      create(BoardDefinitionSchema, { name: "speedrun", rules: { order: SortOrder.LOWER_IS_BETTER } }),
      now,
    );
    expect(problems).toEqual([]);
    expect(definition!.rules).toMatchObject({
      order: SortOrder.LOWER_IS_BETTER,
      tie: TieRule.EARLIEST_FIRST,
      minPoints: 0n,
      maxPoints: 2n ** 31n - 1n,
      resolutionMs: 60_000,
      epochMs: BigInt(DEFAULT_BOARD.epochMs),
      generation: BigInt(now),
    });
    expect(definition!.defaultOp).toBe(Operation.BEST);
    const spec = specOfDefinition(definition!);
    expect(spec).toMatchObject({
      lowerIsBetter: true,
      tie: "earliest",
      generation: now,
      defaultOp: Operation.BEST,
      allowOpOverride: false,
    });
    expect(storedBoardName("speedrun", spec)).toBe(`speedrun#${now}`);
    // the wire form round-trips
    expect(decodeDefinition(encodeDefinition(definition!))).toEqual(definition);
  });

  it("says what is wrong with a definition that cannot be", () => {
    const problems = (d: Parameters<typeof create<typeof BoardDefinitionSchema>>[1]) =>
      normalizeDefinition(create(BoardDefinitionSchema, d), now).problems;
    expect(problems({ name: "" })).toEqual(["board is empty: it must be 1 to 64 of A-Z a-z 0-9 _ - . :"]);
    expect(problems({ name: "a/b" })).toEqual(['board may contain only A-Z a-z 0-9 _ - . :, got "a/b"']);
    expect(problems({ name: "x", rules: { minPoints: 5n, maxPoints: 1n } })[0]).toMatch(
      /^board "x": rules.min_points and rules.max_points must be integers with rules.min_points <= rules.max_points, got 5 and 1$/,
    );
    expect(problems({ name: "x", rules: { minPoints: 0n, maxPoints: 2n ** 53n - 1n } })[0]).toMatch(/no bits for time/);
    expect(problems({ name: "x", defaultOp: 9 as Operation })[0]).toMatch(/not an operation/);
    expect(
      specOfRules("x", create(BoardRulesSchema, { tie: 7 as TieRule, maxPoints: 1n, resolutionMs: 1, generation: 1n })).problems[0],
    ).toMatch(/unknown tie rule/);
  });

  it("compares rules without their generation", () => {
    const a = normalizeDefinition(create(BoardDefinitionSchema, { name: "x" }), now).definition!.rules!;
    const b = normalizeDefinition(create(BoardDefinitionSchema, { name: "x" }), now + 1).definition!.rules!;
    expect(sameRules(a, b)).toBe(true);
    expect(sameRules(a, { ...b, tie: TieRule.LATEST_FIRST })).toBe(false);
  });

  it("resolves a defined board first, then the configured specs when boards without a definition are allowed", () => {
    const implicit = new BoardSpecs([
      makeBoardSpec(DEFAULT_BOARD).spec!,
      makeBoardSpec({ ...DEFAULT_BOARD, prefix: "daily:", ttlSeconds: 86_400 }).spec!,
    ]);
    const open = new BoardCatalog(implicit);
    const closed = new BoardCatalog(undefined);
    const def = normalizeDefinition(create(BoardDefinitionSchema, { name: "daily:golf", rules: { order: SortOrder.LOWER_IS_BETTER } }), now)
      .definition!;
    open.apply(def.name, def);
    closed.apply(def.name, def);
    expect(open.forBoard("daily:golf")?.generation).toBe(now);
    expect(open.forBoard("daily:other")).toMatchObject({ generation: -1, ttlSeconds: 86_400 });
    expect(closed.forBoard("daily:golf")?.lowerIsBetter).toBe(true);
    expect(closed.forBoard("daily:other")).toBeUndefined();
    const copy = open.clone();
    copy.apply(def.name, undefined); // a tombstone
    expect(copy.forBoard("daily:golf")?.generation).toBe(-1);
    expect(open.forBoard("daily:golf")?.generation).toBe(now); // the copy changed alone
    expect(open.list("daily").map((d) => d.name)).toEqual(["daily:golf"]);
  });
});
