/**
 * The apply script's retention (includes/apply-retention.lua) on a real Redis: trims and expiries
 * per partition, floors, last event times, and the same boards whatever order the partitions are
 * applied in. The expected boards come from a plain model of the rules (model/src/retention.ts),
 * not from the script.
 */
import { Redis } from "ioredis";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { makeBoardSpec, DEFAULT_BOARD, BoardSpecs } from "@ladder/model/board-spec";
import { compareMembers, encodeSortKey, type KeyedMember } from "@ladder/model/score-encoding";
import { belowFloor, type Floor } from "@ladder/model/retention";
import { slotOf } from "@ladder/model/placement";
import { builtFrom, shardStamp } from "./identity.js";
import { ShardReader } from "./reader.js";
import { APPLY_OP } from "./script-codes.js";
import { ShardWriter, type PreparedEvent } from "./writer/shard-writer.js";

const spec = makeBoardSpec(DEFAULT_BOARD).spec!;
const SLOTS = 8;
const t0 = Date.UTC(2026, 10, 30, 12);
const redis = new Redis(inject("redisUrls")[0]!);
const identity = { shardId: "shard-r", topic: "t", numSlots: SLOTS, slots: [0, 1, 2, 3, 4, 5, 6, 7], boards: new BoardSpecs([spec]) };
const STAMP = shardStamp(identity);
let writer: ShardWriter;
let store: ShardReader;
const offsets = new Map<number, bigint>();

afterAll(() => redis.quit());
beforeEach(async () => {
  const { keyPrefix } = freshNamespace("retention");
  writer = new ShardWriter({ shardId: "shard-r", stamp: STAMP, builtFrom: builtFrom(STAMP, "tid"), redis, keyPrefix, dedupWindowMs: 0 });
  store = new ShardReader({ shardId: "shard-r", stamp: STAMP, redis, keyPrefix });
  await writer.markServing(60_000);
  offsets.clear();
});

/** A record of partition `p` (its next offset). */
function base(p: number): PreparedEvent {
  const offset = offsets.get(p) ?? 0n;
  offsets.set(p, offset + 1n);
  return {
    offset,
    part: false,
    board: "b",
    playerId: "",
    op: APPLY_OP.NONE,
    value: 0,
    timeIdx: 0,
    maxPoints: spec.maxPoints,
    minPoints: spec.minPoints,
    timeUnits: spec.timeUnits,
    ttlSeconds: 0,
    lowerIsBetter: false,
    expireAtMs: 0,
    eventId: "",
    ingestedAtMs: t0,
  };
}
const write = (player: string, points: number, at: number, retain: number, op: number = APPLY_OP.SET): [number, PreparedEvent] => {
  const p = slotOf(player, SLOTS);
  return [
    p,
    { ...base(p), playerId: player, op, value: points, timeIdx: Math.floor((at - spec.epochMs) / spec.resolutionMs), retain, atMs: at },
  ];
};
const trimOf = (p: number, f: Floor): [number, PreparedEvent] => [
  p,
  { ...base(p), op: APPLY_OP.TRIM, value: SLOTS, limit: f.key, floor: f.playerId },
];
const expiryOf = (p: number, cutoffMs: number): [number, PreparedEvent] => [
  p,
  { ...base(p), op: APPLY_OP.EXPIRE, value: SLOTS, limit: cutoffMs },
];
const keyOf = (points: number, at: number) => encodeSortKey(spec, points, Math.floor(at / spec.resolutionMs) * spec.resolutionMs);

async function applyAll(records: Array<[number, PreparedEvent]>): Promise<void> {
  for (const [p, e] of records) {
    const r = await writer.apply(p, [e]);
    expect(r.inSequence).toBe(true);
  }
}
const board = async () => (await store.top("b", 10_000)).members.map((m) => [m.playerId, m.key] as const);

describe("retention > apply", () => {
  it("trims each partition's entries below the floor, ids compared by bytes, and keeps the floor for later writes", async () => {
    // 60 players, keys with many exact ties (same points, same minute): the floor splits a tie by id
    const players = Array.from({ length: 60 }, (_, i) => `p${i % 7 === 0 ? "é" : "z"}${i}`);
    const writes = players.map((id, i) => write(id, 100 + (i % 12), t0, 1));
    await applyAll(writes);
    const all: KeyedMember[] = players.map((id, i) => ({ playerId: id, key: keyOf(100 + (i % 12), t0) })).sort(compareMembers);
    const floor: Floor = { key: all[19]!.key, playerId: all[19]!.playerId };
    await applyAll(Array.from({ length: SLOTS }, (_, p) => trimOf(p, floor)));
    expect(await board()).toEqual(all.slice(0, 20).map((m) => [m.playerId, m.key]));
    // later writes: below the floor not kept, above it kept, a kept player falling below it goes
    const kept = all[0]!.playerId;
    await applyAll([write("low", 1, t0, 1), write("high", 5000, t0, 1), write(kept, 2, t0, 1)]);
    const after = await board();
    expect(after.map(([id]) => id)).toContain("high");
    expect(after.map(([id]) => id)).not.toContain("low");
    expect(after.map(([id]) => id)).not.toContain(kept);
    // a trim with a lower floor leaves the higher one held
    await applyAll(Array.from({ length: SLOTS }, (_, p) => trimOf(p, { key: keyOf(1, t0), playerId: "zzz" })));
    await applyAll([write("low2", 50, t0, 1)]);
    expect((await board()).map(([id]) => id)).not.toContain("low2");
  });

  it("ends with the same board whatever order the partitions are applied in", async () => {
    // per partition, a fixed sequence of writes and trims; applied round-robin, then partition by partition
    const rng = (seed: number) => () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const rand = rng(7);
    const perPartition = new Map<number, Array<{ kind: "write"; id: string; points: number } | { kind: "trim"; floor: Floor }>>();
    for (let i = 0; i < 400; i++) {
      const id = `u${Math.floor(rand() * 150)}`;
      const p = slotOf(id, SLOTS);
      perPartition.set(p, [...(perPartition.get(p) ?? []), { kind: "write", id, points: Math.floor(rand() * 1000) }]);
      if (i % 100 === 99) {
        const floor = { key: keyOf(100 + ((i + 1) / 100) * 150, t0), playerId: "u" };
        for (let q = 0; q < SLOTS; q++) perPartition.set(q, [...(perPartition.get(q) ?? []), { kind: "trim", floor }]);
      }
    }
    // the model: per partition, in order; a floor only rises; an entry below the floor is not kept (BEST)
    const expected = new Map<string, number>();
    for (const [p, steps] of perPartition) {
      let floor: Floor | undefined;
      const best = new Map<string, number>();
      for (const s of steps) {
        if (s.kind === "trim") {
          if (!floor || belowFloor(floor.key, floor.playerId, s.floor)) floor = s.floor;
          for (const [id, k] of best) if (belowFloor(k, id, floor)) best.delete(id);
        } else {
          const k = Math.min(best.get(s.id) ?? Number.POSITIVE_INFINITY, keyOf(s.points, t0));
          if (floor && belowFloor(k, s.id, floor)) best.delete(s.id);
          else best.set(s.id, k);
        }
      }
      expect(p).toBeLessThan(SLOTS);
      for (const [id, k] of best) expected.set(id, k);
    }
    const want = [...expected].map(([playerId, key]) => ({ playerId, key })).sort(compareMembers);
    const written = new Set([...perPartition.values()].flat().flatMap((s) => (s.kind === "write" ? [s.id] : [])));
    expect(want.length).toBeLessThan(written.size - 20); // the trims removed entries
    const records = (order: "interleaved" | "sequential") => {
      offsets.clear();
      const lists = [...perPartition].map(([p, steps]) =>
        steps.map((s) => (s.kind === "trim" ? trimOf(p, s.floor) : write(s.id, s.points, t0, 1, APPLY_OP.BEST))),
      );
      if (order === "sequential") return lists.flat();
      const out: Array<[number, PreparedEvent]> = [];
      for (let i = 0; lists.some((l) => i < l.length); i++) for (const l of lists) if (i < l.length) out.push(l[i]!);
      return out;
    };
    await applyAll(records("interleaved"));
    const first = await board();
    expect(first).toEqual(want.map((m) => [m.playerId, m.key]));
    const { keyPrefix } = freshNamespace("retention");
    writer = new ShardWriter({ shardId: "shard-r", stamp: STAMP, builtFrom: builtFrom(STAMP, "tid"), redis, keyPrefix, dedupWindowMs: 0 });
    store = new ShardReader({ shardId: "shard-r", stamp: STAMP, redis, keyPrefix });
    await writer.markServing(60_000);
    await applyAll(records("sequential"));
    expect(await board()).toEqual(first);
  });

  it("expires a partition's players whose latest event is before the cut-off, and keeps the others", async () => {
    const hour = 3_600_000;
    const old = Array.from({ length: 30 }, (_, i) => `old${i}`);
    const fresh = Array.from({ length: 30 }, (_, i) => `new${i}`);
    // an old player's early write, then a later one for half of them: the latest time counts
    await applyAll([
      ...old.map((id, i) => write(id, 10 + i, t0 - 5 * hour, 2)),
      ...old.filter((_, i) => i % 2 === 0).map((id, i) => write(id, 5 + i, t0 - 3 * hour, 2, APPLY_OP.BEST)),
      ...fresh.map((id, i) => write(id, 100 + i, t0, 2)),
    ]);
    const cutoff = t0 - 4 * hour;
    // only partitions 0..3 apply the expiry yet: only their inactive players go
    await applyAll([0, 1, 2, 3].map((p) => expiryOf(p, cutoff)));
    const expiredHere = old.filter((id, i) => i % 2 === 1 && slotOf(id, SLOTS) < 4);
    let held = new Set((await board()).map(([id]) => id));
    for (const id of [...old, ...fresh]) expect(held.has(id), id).toBe(!expiredHere.includes(id));
    await applyAll([4, 5, 6, 7].map((p) => expiryOf(p, cutoff)));
    held = new Set((await board()).map(([id]) => id));
    for (const id of [...old, ...fresh]) expect(held.has(id), id).toBe(!(old.indexOf(id) % 2 === 1));
    // an expired player that writes again is back
    await applyAll([write(old[1]!, 1, t0, 2)]);
    expect((await board()).map(([id]) => id)).toContain(old[1]);
  });
});
