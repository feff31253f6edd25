import { Redis } from "ioredis";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import { freshNamespace } from "@ladder/common/test-namespace";
import { makeBoardSpec, DEFAULT_BOARD } from "@ladder/common/board-spec";
import { Code, LadderError } from "@ladder/common/errors";
import { compareMembers, encodeSortKey, decodeSortKey, type KeyedMember } from "@ladder/common/score-encoding";
import { ShardReader } from "./reader.js";
import { ShardWriter, type PreparedEvent } from "./writer/shard-writer.js";

const spec = makeBoardSpec(DEFAULT_BOARD).spec!;
const t0 = Date.UTC(2026, 10, 30, 12);
const WINDOW_MS = 60_000;
const redis = new Redis(inject("redisUrls")[0]!);
let writer: ShardWriter;
let store: ShardReader;

afterAll(() => redis.quit());
beforeEach(async () => {
  const { keyPrefix } = freshNamespace("store");
  writer = new ShardWriter({ shardId: "shard-x", redis, keyPrefix, dedupWindowMs: WINDOW_MS });
  store = new ShardReader("shard-x", redis, keyPrefix);
  await writer.heartbeat(60_000);
});

let nextOffset = 0n;
function ev(playerId: string, op: number, value: number, at = t0, board = "b", eventId = "", ingestedAtMs = at): PreparedEvent {
  return {
    offset: nextOffset++, board, playerId, op, value,
    timeIdx: Math.floor((at - spec.epochMs) / spec.resolutionMs),
    maxPoints: spec.maxPoints, minPoints: spec.minPoints, timeUnits: spec.timeUnits, ttlSeconds: 0,
    eventId, ingestedAtMs,
  };
}
const standing = async (player: string) => {
  const key = await store.entry("b", player);
  return key === undefined ? undefined : decodeSortKey(spec, key);
};

describe("shard store > apply", () => {
  beforeEach(() => {
    nextOffset = 0n;
  });

  it("applies SET, INCREMENT and BEST, keeping the time of an unchanged score", async () => {
    const r = await writer.apply(0, [
      ev("a", 1, 100, t0), ev("a", 2, 50, t0 + 60_000), ev("a", 3, 120, t0 + 120_000), ev("a", 3, 150, t0 + 180_000),
      ev("b", 3, 10, t0), ev("b", 2, 0, t0 + 60_000), ev("b", 1, 10, t0 + 120_000),
    ]);
    expect(r).toMatchObject({ inSequence: true, applied: 7, skipped: 0, lastOffset: 6n });
    // 100, +50 = 150 at +1 min; BEST 120 and BEST 150 leave 150 as it was, reached at +1 min.
    expect(await standing("a")).toEqual({ points: 150, reachedAtMs: t0 + 60_000 });
    expect(await standing("b")).toEqual({ points: 10, reachedAtMs: t0 });
  });

  it("saturates INCREMENT at the board's range", async () => {
    await writer.apply(0, [ev("a", 1, spec.maxPoints - 1), ev("a", 2, 10), ev("z", 1, 5), ev("z", 2, -10)]);
    expect((await standing("a"))!.points).toBe(spec.maxPoints);
    expect((await standing("z"))!.points).toBe(0);
  });

  it("applies a redelivered batch once", async () => {
    const batch = [ev("a", 2, 5), ev("a", 2, 7)];
    await writer.apply(3, batch);
    const again = await writer.apply(3, batch);
    expect(again).toMatchObject({ inSequence: true, applied: 0, skipped: 2, lastOffset: 1n });
    expect((await standing("a"))!.points).toBe(12);
    expect(await writer.appliedOffsets()).toEqual(new Map([[3, 1n]]));
  });

  it("applies a retried event id once within the window, again after it", async () => {
    const r = await writer.apply(4, [
      ev("a", 2, 10, t0, "b", "e1", t0),
      ev("a", 2, 10, t0, "b", "e1", t0 + 1000), // retry: skipped
      ev("a", 2, 5, t0, "c", "e1", t0 + 1000), // same id, other board: applied
      ev("z", 2, 5, t0, "b", "e1", t0 + 1000), // same id, other player: applied
      ev("a", 2, 1, t0, "b", "", t0 + 1000), // no id: always applied
      ev("a", 2, 1, t0, "b", "", t0 + 1000),
      ev("a", 2, 10, t0, "b", "e1", t0 + WINDOW_MS + 1), // after the window: applied again
    ]);
    expect(r).toMatchObject({ inSequence: true, applied: 6, duplicates: 1, lastOffset: 6n });
    expect((await standing("a"))!.points).toBe(22);
  });

  it("refuses a batch that skips offsets, applying nothing past the gap", async () => {
    nextOffset = 5n;
    const r = await writer.apply(1, [ev("a", 1, 5)]);
    expect(r).toMatchObject({ inSequence: false, applied: 0, lastOffset: -1n });
    expect(await standing("a")).toBeUndefined();
  });

  it("advances past unusable records (op 0) without touching a board", async () => {
    const r = await writer.apply(2, [ev("a", 1, 5), { ...ev("", 0, 0), board: "" }, ev("a", 2, 1)]);
    expect(r).toMatchObject({ inSequence: true, applied: 2, lastOffset: 2n });
    expect((await standing("a"))!.points).toBe(6);
  });
});

describe("shard store > reads", () => {
  it("counts the entries ahead of any position exactly, through exact-key ties", async () => {
    nextOffset = 0n;
    const members: KeyedMember[] = [];
    const events: PreparedEvent[] = [];
    // 400 players on 4 point values and 2 time units: long runs of identical sort keys.
    for (let i = 0; i < 400; i++) {
      const id = `p${(i * 7919) % 1000}-${i}`;
      const points = 10 + (i % 4);
      const at = t0 + (i % 2) * 60_000;
      events.push(ev(id, 1, points, at));
      members.push({ playerId: id, key: encodeSortKey(spec, points, at) });
    }
    await writer.apply(0, events);
    members.sort(compareMembers);
    const probes: KeyedMember[] = [
      ...members.filter((_, i) => i % 37 === 0),
      { playerId: "p5", key: members[100]!.key }, { playerId: "", key: members[0]!.key }, { playerId: "zzz", key: members[399]!.key },
      { playerId: "x", key: members[399]!.key + 1 }, { playerId: "x", key: 0 },
    ];
    for (const probe of probes) {
      const expected = members.filter((m) => compareMembers(m, probe) < 0).length;
      const w = await store.window("b", probe.key, probe.playerId, 3);
      expect(w.ahead).toBe(expected);
      expect(w.card).toBe(400);
      expect(w.members).toEqual(members.slice(Math.max(0, expected - 3), expected + 4));
    }
    const top = await store.top("b", 25);
    expect(top.members).toEqual(members.slice(0, 25));
  });

  it("fails with UNAVAILABLE when the shard node's heartbeat is gone", async () => {
    await writer.clearHeartbeat();
    const err = await store.top("b", 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LadderError);
    expect(err).toMatchObject({ code: Code.UNAVAILABLE, retriable: true });
  });

  it("refuses to answer for another shard's Redis", async () => {
    const other = new ShardReader("shard-y", redis, store.keys.heartbeat.replace(/heartbeat$/, ""));
    await expect(other.entry("b", "a")).rejects.toMatchObject({ code: Code.UNAVAILABLE, message: /another shard/ });
  });

  it("returns nothing for an unknown player or board", async () => {
    expect(await store.entry("nope", "a")).toBeUndefined();
    expect(await store.top("nope", 10)).toEqual({ card: 0, members: [] });
  });
});
