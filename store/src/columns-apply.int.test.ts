/**
 * Boards with columns on a real Redis (apply-columns.lua, the read scripts): SET, BEST, INCREMENT and
 * DECREMENT of three 64-bit columns, saturating at the int64 ends, a board left, an erasure, a hide,
 * and every read by position against an oracle that keeps the values with BigInt and orders them by
 * comparing column by column (not by the members' bytes).
 */
import { create } from "@bufbuild/protobuf";
import { Redis } from "ioredis";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import { BoardDefinitionSchema } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, PeriodKind, SortOrder } from "@ladder/proto/leaderboard/v1/common_pb";
import { ModerationAction, ModerationSchema } from "@ladder/proto/leaderboard/v1/moderation_pb";
import { normalizeDefinition, specOfDefinition } from "@ladder/model/board-definitions";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { INT64_MAX, INT64_MIN } from "@ladder/model/columns";
import { slotOf } from "@ladder/model/placement";
import { encodeScoreEvent, encodeTombstone } from "@ladder/model/score-event";
import { encodeModeration } from "@ladder/model/moderation";
import { compareIds, decodeEntry, tieFloor, tieScaleOf, tieValueOf } from "@ladder/model/score-encoding";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { builtFrom, shardStamp } from "./identity.js";
import { ShardReader } from "./reader.js";
import { ShardWriter } from "./writer/shard-writer.js";
import { prepareEvent } from "./writer/prepare-event.js";

const T0 = Date.UTC(2026, 11, 7);
const { definition, problems } = normalizeDefinition(
  create(BoardDefinitionSchema, {
    name: "runs",
    defaultOp: Operation.SET,
    allowOpOverride: true,
    rules: {
      resolutionMs: 1,
      columns: [
        { name: "points", order: SortOrder.HIGHER_IS_BETTER },
        { name: "time", order: SortOrder.LOWER_IS_BETTER },
        { name: "kills", order: SortOrder.HIGHER_IS_BETTER },
      ],
    },
  }),
  T0 - 1000,
);
const rules = definition!.rules!;
const stored = `runs#${rules.generation}`;
const LOWER = [false, true, false];
const boards = new BoardSpecs([makeBoardSpec(DEFAULT_BOARD).spec!]);
const spec = specOfDefinition(definition!);
const identity = { shardId: "shard-c", topic: "t", numSlots: 4, slots: [0, 1, 2, 3], boards };
const STAMP = shardStamp(identity);
const redis = new Redis(inject("redisUrls")[0]!);
let writer: ShardWriter;
let reader: ShardReader;
let offset = 0n;

afterAll(() => redis.quit());
beforeEach(async () => {
  const { keyPrefix } = freshNamespace("columns");
  writer = new ShardWriter({
    shardId: "shard-c",
    stamp: STAMP,
    builtFrom: builtFrom(STAMP, "topic-c"),
    redis,
    keyPrefix,
    dedupWindowMs: 60_000,
  });
  reader = new ShardReader({ shardId: "shard-c", stamp: STAMP, redis, keyPrefix });
  await writer.markServing(60_000);
  offset = 0n;
});

async function apply(...values: Buffer[]): Promise<void> {
  const events = values.flatMap((v) => {
    const { events, problem } = prepareEvent(v, offset++, boards, 4);
    expect(problem).toBeUndefined();
    return events;
  });
  expect((await writer.apply(0, events)).inSequence).toBe(true);
}

const write = (player: string, op: Operation, columns: bigint[], at: number) =>
  encodeScoreEvent({ board: "runs", playerId: player, op, value: 0n, timestampMs: BigInt(at), eventId: "", columns }, at, { rules });

interface Held {
  v: bigint[];
  at: number;
}

/** The oracle: what each op leaves, by the definitions of SET, BEST and INCREMENT. */
function next(held: Held | undefined, op: Operation, v: bigint[], at: number): Held | undefined {
  let values: bigint[];
  if (op === Operation.SET || !held)
    values = op === Operation.DECREMENT ? v.map((x) => clamp(-x)) : op === Operation.INCREMENT ? v.map(clamp) : v;
  else if (op === Operation.BEST) values = better(v, held.v) ? v : held.v;
  else values = held.v.map((x, i) => clamp(x + (op === Operation.DECREMENT ? -v[i]! : v[i]!)));
  if (held && values.every((x, i) => x === held.v[i])) return held; // unchanged: the time it was reached stays
  return { v: values, at };
}
const clamp = (x: bigint) => (x > INT64_MAX ? INT64_MAX : x < INT64_MIN ? INT64_MIN : x);
const better3 = (a: bigint[], b: bigint[]) => better(a, b);
const scale = tieScaleOf(spec);
function better(a: bigint[], b: bigint[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return LOWER[i] ? a[i]! < b[i]! : a[i]! > b[i]!;
  return false;
}
function order(a: [string, Held], b: [string, Held]): number {
  if (better(a[1].v, b[1].v)) return -1;
  if (better(b[1].v, a[1].v)) return 1;
  if (a[1].at !== b[1].at) return a[1].at - b[1].at;
  return compareIds(a[0], b[0]);
}

async function expectBoard(oracle: Map<string, Held>): Promise<void> {
  const want = [...oracle].sort(order);
  const top = await reader.top(stored, 1000);
  expect(top.card).toBe(want.length);
  const got = top.members.map((m) => {
    const d = decodeEntry(spec, m);
    return [m.playerId, d.columns!.map(String), d.reachedAtMs];
  });
  expect(got).toEqual(want.map(([p, h]) => [p, h.v.map(String), h.at]));
  // every player's standing at one instant: its rank, and a window around it in the same order
  for (const [i, [p]] of want.entries()) {
    const s = await reader.standing(stored, p, 1);
    expect(s?.ahead).toBe(i);
    expect(s?.member?.endsWith(`\x1f${p}`)).toBe(true);
    expect(s!.members.map((m) => m.playerId)).toEqual(want.slice(Math.max(0, i - 1), i + 2).map(([q]) => q));
    // counted from its position, as another shard would be asked: the same entries ahead
    const r = await reader.ranks(stored, [], [{ playerId: p, key: 0, member: s!.member! }]);
    expect(r.aheadOf[0]).toBe(i);
    const after = await reader.after(stored, { playerId: p, key: 0, member: s!.member! }, 2, false);
    expect(after.members.map((m) => m.playerId)).toEqual(want.slice(i + 1, i + 3).map(([q]) => q));
    // tied ranks: the entries with better values, and the distinct better values, as the oracle counts them
    const held = oracle.get(p)!;
    const better = want.filter(([, h]) => better3(h.v, held.v));
    const distinctBetter = new Set(better.map(([, h]) => h.v.join(","))).size;
    const part = tieValueOf(scale, { playerId: p, key: 0, member: s!.member! });
    expect((await reader.ranks(stored, [], [tieFloor(scale, part)])).aheadOf[0]).toBe(better.length);
    expect(await reader.distinct(stored, scale, part, 1000)).toHaveLength(distinctBetter);
    const [w, t] = await reader.atOnce((r) =>
      Promise.all([r.standing(stored, p, 0 === i % 2 ? 1 : 0), r.ties(stored, scale, "first", 1000)]),
    );
    if (w!.members.length) {
      const first = oracle.get(w!.members[0]!.playerId)!;
      const firstBetter = want.filter(([, h]) => better3(h.v, first.v));
      expect(t.anchor).toBe(tieValueOf(scale, w!.members[0]!));
      expect(t.below).toBe(firstBetter.length);
      expect(t.distinct).toHaveLength(new Set(firstBetter.map(([, h]) => h.v.join(","))).size + 1);
    } else expect(t).toEqual({ anchor: -1, below: 0, distinct: [] });
  }
}

describe("a board with three 64-bit columns", () => {
  it("feeds another board with columns in the same record, and expires a period's key with its companion", async () => {
    const daily = normalizeDefinition(
      create(BoardDefinitionSchema, {
        name: "runs-daily",
        defaultOp: Operation.BEST,
        rules: { period: PeriodKind.DAILY, columns: rules.columns.map((c) => ({ name: c.name, order: c.order })) },
      }),
      T0 - 1000,
    ).definition!.rules!;
    const period = { id: "2026-12-07", expireAtMs: T0 + 2 * 86_400_000 };
    await apply(
      encodeScoreEvent(
        { board: "runs", playerId: "eve", op: Operation.SET, value: 0n, timestampMs: BigInt(T0), eventId: "", columns: [7n, 2n, 1n] },
        T0,
        { rules },
        { also: [{ board: "runs-daily", op: Operation.BEST, rules: daily, period }] },
      ),
    );
    const dailyStored = `runs-daily#${daily.generation}@${period.id}`;
    for (const board of [stored, dailyStored]) {
      const top = await reader.top(board, 10);
      expect(top.members.map((m) => [m.playerId, decodeEntry(spec, m).columns])).toEqual([["eve", [7n, 2n, 1n]]]);
    }
    const key = writer.keys.board(dailyStored);
    expect(await redis.pexpiretime(key)).toBe(period.expireAtMs);
    expect(await redis.pexpiretime(`${key}!cols`)).toBe(period.expireAtMs);
  });

  it("takes SET, BEST, INCREMENT and DECREMENT exactly, saturating at the int64 ends", { timeout: 60_000 }, async () => {
    expect(problems).toEqual([]);
    const oracle = new Map<string, Held>();
    const ops = [Operation.SET, Operation.BEST, Operation.INCREMENT, Operation.DECREMENT];
    const values = [INT64_MIN, -(2n ** 62n), -(2n ** 53n) - 3n, -7n, 0n, 1n, 5n, 2n ** 53n + 1n, 2n ** 62n, INT64_MAX];
    let seed = 7; // mulberry32
    const rnd = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    const seen = { best: 0, add: 0, saturated: 0 };
    for (let i = 0; i < 400; i++) {
      const player = `p${rnd(12)}`;
      const op = ops[rnd(4)]!;
      const v = [0, 1, 2].map(() => values[rnd(values.length)]!);
      const at = T0 + i;
      await apply(write(player, op, v, at));
      const held = oracle.get(player);
      const now = next(held, op, v, at);
      if (held && op === Operation.BEST) seen.best++;
      if (held && (op === Operation.INCREMENT || op === Operation.DECREMENT)) seen.add++;
      if (now && now !== held && now.v.some((x) => x === INT64_MAX || x === INT64_MIN)) seen.saturated++;
      if (now) oracle.set(player, now);
      if (i % 50 === 49) await expectBoard(oracle);
    }
    // the sequence did exercise what it is for
    expect(seen.best).toBeGreaterThan(20);
    expect(seen.add).toBeGreaterThan(40);
    expect(seen.saturated).toBeGreaterThan(10);
  });

  it("leaves a player's entry whole on a board left, an erasure and a hide", { timeout: 60_000 }, async () => {
    const oracle = new Map<string, Held>();
    for (const [i, p] of ["ann", "bob", "cid", "dan"].entries()) {
      await apply(write(p, Operation.SET, [BigInt(10 - i), 3n, 1n], T0 + i));
      oracle.set(p, { v: [BigInt(10 - i), 3n, 1n], at: T0 + i });
    }
    await expectBoard(oracle);
    // bob leaves the board (a write to another board with leave_board)
    await apply(
      encodeScoreEvent(
        { board: "global", playerId: "bob", op: Operation.SET, value: 5n, timestampMs: BigInt(T0 + 10), eventId: "" },
        T0 + 10,
        undefined,
        { leave: { board: "runs", op: Operation.UNSPECIFIED, rules } },
      ),
    );
    oracle.delete("bob");
    await expectBoard(oracle);
    // cid is erased everywhere: its companion entry goes too, so a later write starts from nothing
    await apply(encodeTombstone("cid", [], T0 + 11));
    oracle.delete("cid");
    await expectBoard(oracle);
    await apply(write("cid", Operation.INCREMENT, [1n, 1n, 1n], T0 + 12));
    oracle.set("cid", { v: [1n, 1n, 1n], at: T0 + 12 });
    await expectBoard(oracle);
    // ann is hidden, written while hidden, then shown again with what she wrote
    const hide = (action: ModerationAction) =>
      encodeModeration(create(ModerationSchema, { action, playerId: "ann", board: "runs", by: "test", reason: "test", atMs: BigInt(T0) }));
    await apply(hide(ModerationAction.HIDE));
    const annHeld = oracle.get("ann")!;
    oracle.delete("ann");
    await expectBoard(oracle);
    await apply(write("ann", Operation.INCREMENT, [1n, 0n, 0n], T0 + 13));
    await expectBoard(oracle);
    await apply(hide(ModerationAction.UNHIDE));
    oracle.set("ann", { v: [annHeld.v[0]! + 1n, 3n, 1n], at: T0 + 13 });
    await expectBoard(oracle);
    expect(await redis.zcard(`${writer.keys.board(stored)}!cols`)).toBe(oracle.size);
    // a moderator deletes dan's entry, then wipes the board: this record (partition 0's) takes the players whose slot is 0
    const moderate = (action: ModerationAction, playerId = "") =>
      encodeModeration(
        create(ModerationSchema, { action, playerId, board: "runs", by: "test", reason: "test", atMs: BigInt(T0), partitions: 4 }),
        rules,
      );
    await apply(moderate(ModerationAction.DELETE_ENTRY, "dan"));
    oracle.delete("dan");
    await expectBoard(oracle);
    for (const p of ["fay", "gus", "hal", "ivy", "jan", "kim"]) {
      await apply(write(p, Operation.SET, [1n, 2n, 3n], T0 + 20));
      oracle.set(p, { v: [1n, 2n, 3n], at: T0 + 20 });
    }
    const wiped = [...oracle.keys()].filter((p) => slotOf(p, 4) === 0);
    expect(wiped.length).toBeGreaterThan(0);
    expect(wiped.length).toBeLessThan(oracle.size);
    await apply(moderate(ModerationAction.WIPE));
    for (const p of wiped) oracle.delete(p);
    await expectBoard(oracle);
    expect(await redis.zcard(`${writer.keys.board(stored)}!cols`)).toBe(oracle.size);
  });
});
