// A move of a shard's slots in place (move.ts) on a real Redis, step by step: the apply script
// mirrors the moving partitions into the companions, the readers of each placement see exactly
// their slots' players at every step (arrivals left out before the cut-over, departures after
// it), the cut-over and the drain leave the board holding exactly the new slots' players; and a
// move given up before its cut-over leaves the shard as it was.
// The oracle is a plain map of player -> points per slot, kept by the test; the board's order
// here is points descending (every points value is distinct, all at one time). Each test runs on a
// one-column board and on a board with columns (model/src/columns.ts: the points as its first
// column), whose members hold the values and whose companion "!cols" moves with them.
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { slotOf } from "@ladder/model/placement";
import { DEFAULT_RECORD_COUNT_BUCKETS, recordCountBucket } from "@ladder/model/record-counts";
import { encodeColumns, playerOfMember, type Column } from "@ladder/model/columns";
import { silentLogger } from "@ladder/platform/logger";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { builtFrom, shardStamp } from "../identity.js";
import { keyLayout } from "../keys.js";
import { ShardReader } from "../reader.js";
import { StampMismatch } from "../scripts.js";
import { cancelMove, beginMove, copyLeaving, drainMove, flipMove, moveOf, startMoveDrainer } from "./move.js";
import { ShardWriter, type PreparedEvent } from "./shard-writer.js";

const spec = makeBoardSpec(DEFAULT_BOARD).spec!;
const boards = new BoardSpecs([spec]);
const SLOTS = 8;
const BEFORE = [0, 1, 2, 3];
const AFTER = [0, 1, 2, 4]; // loses 3, gains 4
const t0 = Date.UTC(2026, 11, 3, 12);
const redis = new Redis(inject("redisUrls")[0]!);
const stampOf = (slots: number[]) => shardStamp({ shardId: "shard-m", topic: "t", numSlots: SLOTS, slots, boards });
const P = { stamp: stampOf(BEFORE), builtFrom: builtFrom(stampOf(BEFORE), "tid") };
const Q = { stamp: stampOf(AFTER), builtFrom: builtFrom(stampOf(AFTER), "tid") };

// 40 players in each of slots 0..4
const bySlot = new Map<number, string[]>();
for (let i = 0; bySlot.size < 5 || [...bySlot.values()].some((v) => v.length < 40); i++) {
  const id = `m${i}`;
  const s = slotOf(id, SLOTS);
  if (s > 4) continue;
  const list = bySlot.get(s) ?? [];
  if (list.length < 40) list.push(id);
  bySlot.set(s, list);
}

const COLUMNS: Column[] = [
  { name: "points", lowerIsBetter: false },
  { name: "kills", lowerIsBetter: false },
];
/** Whether the board of the test being run has columns. */
let columns = false;
let keyPrefix: string;
let board: string;
let points: Map<string, number>; // the oracle: every player's points (any slot)
let offsets: Map<number, bigint>;
let nextPoints: number;

afterAll(() => redis.quit());
beforeEach(async () => {
  keyPrefix = freshNamespace("move").keyPrefix;
  board = keyLayout(keyPrefix).board("b");
  points = new Map();
  offsets = new Map();
  nextPoints = 1000;
});

const writerOf = (w: { stamp: string; builtFrom: string }) =>
  new ShardWriter({ shardId: "shard-m", stamp: w.stamp, builtFrom: w.builtFrom, redis, keyPrefix, dedupWindowMs: 0 });
const readerOf = (w: { stamp: string }) => new ShardReader({ shardId: "shard-m", stamp: w.stamp, redis, keyPrefix });
/** The hash of a player's count of records, by its slot and bucket (model/src/record-counts.ts). */
const countsOf = (id: string) => `${keyPrefix}count:records:${slotOf(id, SLOTS)}:${recordCountBucket(id, DEFAULT_RECORD_COUNT_BUCKETS)}`;

/** SET (op 1) or REMOVE (op 5) of `player` in its own partition, through `writer`; the oracle follows. */
async function write(writer: ShardWriter, player: string, op: 1 | 5 = 1): Promise<void> {
  const p = slotOf(player, SLOTS);
  const offset = offsets.get(p) ?? 0n;
  const value = nextPoints++;
  const e: PreparedEvent = {
    offset,
    part: false,
    board: "b",
    playerId: player,
    op,
    value,
    timeIdx: Math.floor((t0 - spec.epochMs) / spec.resolutionMs),
    maxPoints: spec.maxPoints,
    minPoints: spec.minPoints,
    timeUnits: spec.timeUnits,
    ttlSeconds: 0,
    lowerIsBetter: false,
    expireAtMs: 0,
    eventId: "",
    ingestedAtMs: t0,
    ...(columns ? { cols: op === 1 ? encodeColumns(COLUMNS, [BigInt(value), 0n]) : "-" } : {}),
  };
  const r = await writer.apply(p, [e]);
  expect(r.drift, `apply of partition ${p}`).toBeUndefined();
  offsets.set(p, offset + 1n);
  if (op === 1) points.set(player, value);
  else points.delete(player);
}

/** The oracle's board of `slots`, best first. */
const oracle = (slots: number[]) =>
  [...points]
    .filter(([id]) => slots.includes(slotOf(id, SLOTS)))
    .sort((a, b) => b[1] - a[1])
    .map(([id]) => id);

/** Every read a router makes, checked against the oracle of `slots`. */
async function expectBoard(reader: ShardReader, slots: number[]): Promise<void> {
  const want = oracle(slots);
  const top = await reader.top("b", 1000);
  expect(top.members.map((m) => m.playerId)).toEqual(want);
  expect(top.card).toBe(want.length);
  for (const i of [0, 7, want.length - 1]) {
    const s = await reader.standing("b", want[i]!, 2);
    expect({ ahead: s?.ahead, around: s?.members.map((m) => m.playerId) }).toEqual({
      ahead: i,
      around: want.slice(Math.max(0, i - 2), i + 3),
    });
  }
  for (const [id] of points) {
    if (slots.includes(slotOf(id, SLOTS))) continue;
    expect(await reader.standing("b", id, 0), `${id} (slot ${slotOf(id, SLOTS)}) is not on this shard's board`).toBeUndefined();
  }
  // a window at the position of a player this shard does not hold (as for another shard's player)
  const page = await reader.top("b", 1000);
  const mid = page.members[Math.floor(page.members.length / 2)]!;
  const w = await reader.window("b", mid.key, `${mid.member ?? ""}~`, 1);
  expect(w.ahead).toBe(want.indexOf(mid.playerId) + 1);
}

/** A companion holds exactly the board's players of `slot`, with their sort keys. */
async function expectCompanion(suffix: "!arr" | "!dep", slot: number): Promise<void> {
  const all = await redis.zrange(board, "0", "-1", "WITHSCORES");
  const want: string[] = [];
  for (let i = 0; i < all.length; i += 2) if (slotOf(playerOfMember(all[i]!), SLOTS) === slot) want.push(all[i]!, all[i + 1]!);
  expect(await redis.zrange(board + suffix, "0", "-1", "WITHSCORES")).toEqual(want);
}

/** The players of the board key, and on a board with columns of its companion too (which must agree). */
async function playersHeld(): Promise<string[]> {
  const held = (await redis.zrange(board, "0", "-1")).map(playerOfMember).sort();
  if (columns) expect((await redis.zrange(`${board}!cols`, "0", "-1")).map((m) => m.slice(0, m.indexOf("\n"))).sort()).toEqual(held);
  return held;
}

describe.each([
  { kind: "one column", withColumns: false },
  { kind: "columns", withColumns: true },
])("a move in place ($kind)", ({ withColumns }) => {
  beforeEach(() => {
    columns = withColumns;
  });

  it("mirrors, cuts over and drains: each placement's readers see exactly its slots at every step", async () => {
    const p = writerOf(P);
    for (const s of BEFORE) for (const id of bySlot.get(s)!) await write(p, id);
    await p.markServing(60_000);
    await expectBoard(readerOf(P), BEFORE);

    await beginMove(redis, keyPrefix, { gained: [4], lost: [3], from: P.builtFrom, to: Q.builtFrom }, { waitMs: 0 });
    // the gained partition replayed into the live board while the old slots keep being written; an
    // arrival, a departure and a slot that stays asked in one turn go to Redis in one apply call
    // (shard-writer.ts), each partition mirrored by its own rule
    for (const [i, id] of bySlot.get(4)!.entries())
      await Promise.all([write(p, id), ...(i < 5 ? [write(p, bySlot.get(3)![i]!)] : []), ...(i < 3 ? [write(p, bySlot.get(1)![i]!)] : [])]);
    await write(p, bySlot.get(3)![5]!, 5);
    await write(p, bySlot.get(0)![0]!);
    await expectCompanion("!arr", 4);
    await expectBoard(readerOf(P), BEFORE);

    const copied = await copyLeaving(redis, keyPrefix, [3], SLOTS, {});
    expect(copied.copied).toBe(39);
    for (const id of bySlot.get(3)!.slice(6, 10)) await write(p, id); // after the copy: mirrored
    await write(p, bySlot.get(3)![10]!, 5);
    await write(p, bySlot.get(4)![0]!, 5); // an arrival leaves again
    await expectCompanion("!dep", 3);
    await expectCompanion("!arr", 4);
    await expectBoard(readerOf(P), BEFORE);

    await flipMove(redis, keyPrefix, P.builtFrom, Q.stamp);
    expect(
      await readerOf(P)
        .top("b", 1)
        .then(
          () => "served",
          (err: unknown) => err,
        ),
    ).toBeInstanceOf(Error); // the heartbeat says: moving
    expect(await redis.get(keyLayout(keyPrefix).builtFrom)).toBe(Q.builtFrom);
    expect((await p.apply(0, [])).drift, "the old placement's writer is refused").toBe(Q.builtFrom);
    expect(await redis.exists(board + "!arr")).toBe(0);
    expect((await moveOf(redis, keyPrefix))?.phase).toBe("drain");
    expect(await redis.hexists(keyLayout(keyPrefix).offsets, "3")).toBe(0);
    expect(await redis.hget(keyLayout(keyPrefix).offsets, "4")).toBe(String(offsets.get(4)! - 1n));

    const q = writerOf(Q);
    await q.markServing(60_000);
    expect(
      await readerOf(P)
        .top("b", 1)
        .then(
          () => "served",
          (err: unknown) => err,
        ),
    ).toBeInstanceOf(StampMismatch);
    await expectBoard(readerOf(Q), AFTER); // departures still in the board key, left out
    expect(await redis.zcard(board + "!dep")).toBe(oracle([3]).length);
    await write(q, bySlot.get(4)![1]!);
    await write(q, bySlot.get(1)![1]!);
    await expectBoard(readerOf(Q), AFTER);

    // what the shard keeps per player outside its board keys (hidden entries, hides, counts of
    // records, tournament attempts, team memberships) goes for the departed players with the rest,
    // and stays for the others; so do the members of the tournaments whose join partition it lost,
    // the placements, tiers and settlements of the leagues it placed there, and the members of the
    // teams of the lost slot
    const [gone, kept] = [bySlot.get(3)![0]!, bySlot.get(1)![0]!];
    const tournamentIn = (slot: number) => Array.from({ length: 200 }, (_, i) => `t${i}`).find((t) => slotOf(t, SLOTS) === slot)!;
    const [lostJoins, keptJoins] = [3, 1].map((slot) => `${keyPrefix}board:${tournamentIn(slot)}#1@T!join`);
    const attempts = `${keyPrefix}board:cup#1@T!att`;
    for (const id of [gone, kept]) {
      await redis.zadd(`${board}!hid`, 5, id);
      await redis.zadd(`${keyPrefix}board:~hidden`, 0, `${id}\nb`);
      await redis.hset(countsOf(id), id, 3);
      await redis.zadd(attempts, 2, id);
      for (const joins of [lostJoins!, keptJoins!]) await redis.zadd(joins, 7, id);
    }
    const leagueIn = (slot: number) => Array.from({ length: 200 }, (_, i) => `l${i}`).find((l) => slotOf(l, SLOTS) === slot)!;
    const leagueKeys = (slot: number) =>
      ["@W1!place", "@W1!fill", "!tier", "!settled"].map((suffix) => `${keyPrefix}board:${leagueIn(slot)}#1${suffix}`);
    for (const key of [...leagueKeys(3), ...leagueKeys(1)]) await redis.zadd(key, 1, gone, 2, kept);
    const teams = `${keyPrefix}board:clans#1`;
    const [lostTeam, keptTeam] = [3, 1].map(tournamentIn) as [string, string];
    for (const team of [lostTeam, keptTeam]) {
      await redis.zadd(`${teams}!m:${team}`, 10, gone, 20, kept);
      await redis.zadd(`${teams}!v:${team}`, 1, gone, 2, kept);
      await redis.zadd(`${teams}!sum`, 30, team);
    }
    for (const id of [gone, kept]) {
      await redis.zadd(`${teams}!team`, 0, `${id}\n${keptTeam}`);
      await redis.zadd(`${teams}!left`, 0, `${id}\n${lostTeam}`);
    }
    // between pages (where the node's drainer rests while its applier is behind) readers see the new placement's board
    const departures = oracle([3]).length;
    const left: number[] = []; // the departures left after each page
    const pace = {
      pageSize: () => 7,
      async rest(pageMs: number) {
        expect(pageMs).toBeGreaterThanOrEqual(0);
        left.push(await redis.zcard(`${board}!dep`));
        await expectBoard(readerOf(Q), AFTER);
        return 0;
      },
    };
    expect(await drainMove(redis, keyPrefix, { numSlots: SLOTS, pace })).toBe(departures);
    // pages of 7 of the board key, then the pages of what is kept per player (the companion gone by then)
    const pages = Math.ceil(departures / 7);
    expect(left.slice(0, pages)).toEqual(Array.from({ length: pages }, (_, i) => Math.max(0, departures - 7 * (i + 1))));
    expect(left.length).toBeGreaterThan(pages);
    for (const key of leagueKeys(3)) expect(await redis.exists(key), key).toBe(0);
    for (const key of leagueKeys(1)) expect((await redis.zrange(key, "0", "-1")).sort(), key).toEqual([gone, kept].sort());
    expect([await redis.exists(`${teams}!m:${lostTeam}`), await redis.exists(`${teams}!v:${lostTeam}`)]).toEqual([0, 0]);
    expect((await redis.zrange(`${teams}!m:${keptTeam}`, "0", "-1")).sort()).toEqual([gone, kept].sort()); // the team's, not the players'
    expect(await redis.zrange(`${teams}!sum`, "0", "-1")).toEqual([keptTeam]);
    expect(await redis.zrange(`${teams}!team`, "0", "-1")).toEqual([`${kept}\n${keptTeam}`]);
    expect(await redis.zrange(`${teams}!left`, "0", "-1")).toEqual([`${kept}\n${lostTeam}`]);
    expect(await moveOf(redis, keyPrefix)).toBeUndefined();
    expect(await redis.exists(board + "!dep")).toBe(0);
    expect(await redis.zrange(`${board}!hid`, "0", "-1")).toEqual([kept]);
    expect(await redis.zrange(attempts, "0", "-1")).toEqual([kept]);
    expect([await redis.exists(lostJoins!), (await redis.zrange(keptJoins!, "0", "-1")).sort()]).toEqual([0, [gone, kept].sort()]);
    expect(await redis.zrange(`${keyPrefix}board:~hidden`, "0", "-1")).toEqual([`${kept}\nb`]);
    const countKeys = await redis.keys(`${keyPrefix}count:records:*`);
    expect(countKeys.filter((k) => k.startsWith(`${keyPrefix}count:records:3:`))).toEqual([]); // the lost slot's hashes, all gone
    const counted = (await Promise.all(countKeys.map((k) => redis.hkeys(k)))).flat(); // every player the writers wrote, and these
    expect([counted.includes(kept), counted.includes(gone), counted.filter((id) => slotOf(id, SLOTS) === 3)]).toEqual([true, false, []]);
    await expectBoard(readerOf(Q), AFTER);
    expect(await playersHeld()).toEqual(oracle(AFTER).sort());
  });

  /** 20 players of each slot of P written, a move begun, slot 4's 40 players replayed in; returns P's writer. */
  async function moveBegun(): Promise<ShardWriter> {
    const p = writerOf(P);
    for (const s of BEFORE) for (const id of bySlot.get(s)!.slice(0, 20)) await write(p, id);
    await p.markServing(60_000);
    await beginMove(redis, keyPrefix, { gained: [4], lost: [3], from: P.builtFrom, to: Q.builtFrom }, { waitMs: 0 });
    for (const id of bySlot.get(4)!) await write(p, id);
    return p;
  }

  it("given up before its cut-over, leaves the shard as it was once its arrivals are drained", async () => {
    const p = await moveBegun();
    await copyLeaving(redis, keyPrefix, [3], SLOTS, {});
    await cancelMove(redis, keyPrefix);
    expect((await moveOf(redis, keyPrefix))?.phase).toBe("undo");
    expect(await redis.exists(board + "!dep")).toBe(0);
    expect(await redis.hexists(keyLayout(keyPrefix).offsets, "4")).toBe(0);
    await expectBoard(readerOf(P), BEFORE); // arrivals still in the board key, left out
    await write(p, bySlot.get(3)![0]!);
    await expectBoard(readerOf(P), BEFORE);

    expect(await drainMove(redis, keyPrefix)).toBe(40);
    expect(await moveOf(redis, keyPrefix)).toBeUndefined();
    for (const id of bySlot.get(4)!) points.delete(id);
    await expectBoard(readerOf(P), BEFORE);
    expect(await playersHeld()).toEqual(oracle(BEFORE).sort());
    expect(await redis.get(keyLayout(keyPrefix).builtFrom)).toBe(P.builtFrom);
  });

  it("is drained by the node's drainer, which rests while the applier is behind and still ends", async () => {
    await moveBegun();
    await cancelMove(redis, keyPrefix);
    let asked = 0;
    const drainer = startMoveDrainer(redis, keyPrefix, silentLogger(), SLOTS, () => ++asked > 0, 20);
    try {
      for (let i = 0; i < 500 && (await moveOf(redis, keyPrefix)); i++) await sleep(20);
      expect(await moveOf(redis, keyPrefix)).toBeUndefined();
    } finally {
      await drainer.stop();
    }
    expect(asked).toBeGreaterThan(0); // asked after each page whether to rest
    for (const id of bySlot.get(4)!) points.delete(id);
    await expectBoard(readerOf(P), BEFORE);
    expect(await playersHeld()).toEqual(oracle(BEFORE).sort());
  });

  it("copies aside more departing players than one scan takes", async () => {
    const p = await moveBegun();
    // 2,500 more players of the lost slot, and 2,500 of a kept one: several scans of MOVE_PAGE members
    const more = { 3: [] as string[], 1: [] as string[] };
    for (let i = 0; more[3].length < 2500 || more[1].length < 2500; i++) {
      const id = `x${i}`;
      const s = slotOf(id, SLOTS);
      if ((s === 3 || s === 1) && more[s].length < 2500) more[s].push(id);
    }
    for (const id of [...more[3], ...more[1]]) await write(p, id);
    const copied = await copyLeaving(redis, keyPrefix, [3], SLOTS, {});
    expect(copied).toEqual({ scanned: await redis.zcard(board), copied: oracle([3]).length });
    await expectCompanion("!dep", 3);
    expect((await readerOf(P).top("b", 1)).card).toBe(oracle(BEFORE).length); // arrivals left out, departures still in
  });

  it("does not begin twice, nor from another build, nor while a snapshot is read", async () => {
    const p = writerOf(P);
    await write(p, bySlot.get(0)![0]!);
    const spec0 = { gained: [4], lost: [3], from: P.builtFrom, to: Q.builtFrom };
    await expect(beginMove(redis, keyPrefix, { ...spec0, from: Q.builtFrom }, { waitMs: 0 })).rejects.toThrow(/built from/);
    await redis.set(keyLayout(keyPrefix).snapshotReading, "x", "PX", 60_000);
    await expect(beginMove(redis, keyPrefix, spec0, { waitMs: 0 })).rejects.toThrow(/snapshot/);
    await redis.del(keyLayout(keyPrefix).snapshotReading);
    await beginMove(redis, keyPrefix, spec0, { waitMs: 0 });
    await expect(beginMove(redis, keyPrefix, spec0, { waitMs: 0 })).rejects.toThrow(/phase 'moving'/);
  });
});
