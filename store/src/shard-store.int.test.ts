import { Redis } from "ioredis";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { makeBoardSpec, DEFAULT_BOARD } from "@ladder/model/board-spec";
import { Code, LadderError } from "@ladder/model/errors";
import { firstKeys } from "@ladder/model/histogram";
import { compareMembers, encodeSortKey, decodeSortKey, type KeyedMember } from "@ladder/model/score-encoding";
import { BoardSpecs } from "@ladder/model/board-spec";
import { builtFrom, shardStamp } from "./identity.js";
import { ShardReader } from "./reader.js";
import { monitorLines } from "./monitor-lines.js";
import { HeartbeatStatus } from "./scripts.js";
import { APPLY_OP } from "./script-codes.js";
import { ShardWriter, type PreparedEvent } from "./writer/shard-writer.js";

const spec = makeBoardSpec(DEFAULT_BOARD).spec!;
const t0 = Date.UTC(2026, 10, 30, 12);
const WINDOW_MS = 60_000;
const redis = new Redis(inject("redisUrls")[0]!);
const boards = new BoardSpecs([spec]);
const identity = { shardId: "shard-x", topic: "t", numSlots: 8, slots: [0, 1, 2, 3], boards };
const STAMP = shardStamp(identity);
const BUILT_FROM = builtFrom(STAMP, "topic-id-1");
let keyPrefix: string;
let writer: ShardWriter;
let store: ShardReader;

afterAll(() => redis.quit());
beforeEach(async () => {
  keyPrefix = freshNamespace("store").keyPrefix;
  writer = new ShardWriter({ shardId: "shard-x", stamp: STAMP, builtFrom: BUILT_FROM, redis, keyPrefix, dedupWindowMs: WINDOW_MS });
  store = new ShardReader({ shardId: "shard-x", stamp: STAMP, redis, keyPrefix });
  await writer.markServing(60_000);
});

let nextOffset = 0n;
function ev(playerId: string, op: number, value: number, at = t0, board = "b", eventId = "", ingestedAtMs = at): PreparedEvent {
  return {
    offset: nextOffset++,
    part: false,
    board,
    playerId,
    op,
    value,
    timeIdx: Math.floor((at - spec.epochMs) / spec.resolutionMs),
    maxPoints: spec.maxPoints,
    minPoints: spec.minPoints,
    timeUnits: spec.timeUnits,
    ttlSeconds: 0,
    lowerIsBetter: false,
    expireAtMs: 0,
    eventId,
    ingestedAtMs,
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
      ev("a", 1, 100, t0),
      ev("a", 2, 50, t0 + 60_000),
      ev("a", 3, 120, t0 + 120_000),
      ev("a", 3, 150, t0 + 180_000),
      ev("b", 3, 10, t0),
      ev("b", 2, 0, t0 + 60_000),
      ev("b", 1, 10, t0 + 120_000),
    ]);
    expect(r).toMatchObject({ inSequence: true, applied: 7, skipped: 0, lastOffset: 6n });
    // 100, +50 = 150 at +1 min; BEST 120 and BEST 150 leave 150 as it was, reached at +1 min.
    expect(await standing("a")).toEqual({ points: 150, reachedAtMs: t0 + 60_000 });
    expect(await standing("b")).toEqual({ points: 10, reachedAtMs: t0 });
  });

  it("applies a large batch on a board with a 255-bound histogram in one call, counting every entry in its bucket", async () => {
    // 2,000 events x 256 bounds each once overflowed the call's arguments (RangeError in ShardWriter.apply)
    const bounds = Array.from({ length: 255 }, (_, i) => (i + 1) * 1000);
    const keys = Object.freeze(firstKeys(spec, bounds));
    const events = Array.from({ length: 2000 }, (_, i) => ({ ...ev(`h${i}`, 1, i * 137), histogram: keys }));
    expect(await writer.apply(0, events)).toMatchObject({ inSequence: true, applied: 2000 });
    const counts = await store.histogram("b");
    expect(counts.card).toBe(2000);
    // stored bucket j (best first) of points p: 0 from 255,000 up, else 255 - floor(p / 1000)
    const want = new Map<number, number>();
    const bucketOf = (p: number) => (p >= 255_000 ? 0 : 255 - Math.floor(p / 1000));
    for (let i = 0; i < 2000; i++) want.set(bucketOf(i * 137), (want.get(bucketOf(i * 137)) ?? 0) + 1);
    expect(new Map([...counts.counts].sort((a, b) => a[0] - b[0]))).toEqual(new Map([...want].sort((a, b) => a[0] - b[0])));
  });

  it("counts a histogram's entries the same whether their moves come in one call or in one call each", async () => {
    const keys = Object.freeze(firstKeys(spec, [100, 1000, 10_000]));
    // entries enter, move up and down between buckets, leave and come back; buckets are left and entered in one call
    const plan: Array<[string, number, number]> = [
      ["a", APPLY_OP.SET, 50],
      ["b", APPLY_OP.SET, 500],
      ["a", APPLY_OP.SET, 5000],
      ["b", APPLY_OP.SET, 20],
      ["c", APPLY_OP.SET, 50_000],
      ["a", APPLY_OP.REMOVE, 0],
      ["c", APPLY_OP.INCREMENT, -49_990],
      ["a", APPLY_OP.SET, 700],
      ["d", APPLY_OP.SET, 600],
      ["d", APPLY_OP.REMOVE, 0],
      ["b", APPLY_OP.BEST, 20_000],
    ];
    const events = () => plan.map(([player, op, value]) => ({ ...ev(player, op, value), histogram: keys }));
    await writer.apply(0, events());
    const together = await store.histogram("b");
    const alone = freshNamespace("store").keyPrefix;
    const oneByOne = new ShardWriter({
      shardId: "shard-x",
      stamp: STAMP,
      builtFrom: BUILT_FROM,
      redis,
      keyPrefix: alone,
      dedupWindowMs: WINDOW_MS,
    });
    await oneByOne.markServing(60_000);
    nextOffset = 0n;
    for (const e of events()) await oneByOne.apply(0, [e]);
    const separately = await new ShardReader({ shardId: "shard-x", stamp: STAMP, redis, keyPrefix: alone }).histogram("b");
    expect(together.card).toBe(3);
    expect(together).toEqual(separately);
    // buckets 0 (10,000 up) .. 3 (below 100): a ends at 700 (2), b at 20,000 (0), c fell from 50,000 to 10 (3); d left
    const sorted = (m: Map<number, number>) => [...m].sort((x, y) => x[0] - y[0]);
    expect(sorted(together.counts)).toEqual([
      [0, 1],
      [2, 1],
      [3, 1],
    ]);
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

  it("applies the batches of several partitions asked in one turn in one call, each answered for its own partition", async () => {
    const at = (offset: bigint, e: PreparedEvent): PreparedEvent => ({ ...e, offset });
    // the writer's script calls, counted on its connection
    const scripts = redis as unknown as { ladderApply: (...args: unknown[]) => Promise<unknown> };
    const original = scripts.ladderApply;
    let calls = 0;
    scripts.ladderApply = (...args) => {
      calls++;
      return original.apply(redis, args);
    };
    try {
      await writer.apply(7, [at(0n, ev("a", 1, 5, t0, "b", "e1"))]);
      calls = 0;
      const [p7, p8, gap, again] = await Promise.all([
        // partition 7: its event id e1 was applied (a retry, skipped), then a new one
        writer.apply(7, [at(1n, ev("a", 2, 3, t0, "b", "e1")), at(2n, ev("a", 2, 4, t0, "b", "e2"))]),
        // partition 8: the same id, in its own dedup set: applied
        writer.apply(8, [at(0n, ev("z", 1, 9, t0, "b", "e1"))]),
        // partition 9: a gap, nothing of it applied; the others are
        writer.apply(9, [at(4n, ev("y", 1, 1))]),
        // partition 8 again in the same turn: its own call, after the first
        writer.apply(8, [at(1n, ev("z", 2, 1))]),
      ]);
      expect(calls).toBe(2);
      expect(p7).toMatchObject({ inSequence: true, applied: 1, duplicates: 1, lastOffset: 2n });
      expect(p8).toMatchObject({ inSequence: true, applied: 1, duplicates: 0, lastOffset: 0n });
      expect(gap).toMatchObject({ inSequence: false, applied: 0, lastOffset: -1n });
      expect(again).toMatchObject({ inSequence: true, applied: 1, lastOffset: 1n });
      expect([(await standing("a"))!.points, (await standing("z"))!.points, await standing("y")]).toEqual([9, 10, undefined]);
      expect(await writer.appliedOffsets()).toEqual(
        new Map([
          [7, 2n],
          [8, 1n],
        ]),
      );
      // each partition's ids in its own dedup set
      expect(await redis.zrange(writer.keys.dedup(7), "0", "-1")).toEqual([
        `e1\n${writer.keys.board("b")}\na`,
        `e2\n${writer.keys.board("b")}\na`,
      ]);
      expect(await redis.zrange(writer.keys.dedup(8), "0", "-1")).toEqual([`e1\n${writer.keys.board("b")}\nz`]);
    } finally {
      scripts.ladderApply = original;
    }
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
      { playerId: "p5", key: members[100]!.key },
      { playerId: "", key: members[0]!.key },
      { playerId: "zzz", key: members[399]!.key },
      { playerId: "x", key: members[399]!.key + 1 },
      { playerId: "x", key: 0 },
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

  it("reads what ranks a page's ties at the page's instant: its anchor, the members with better points, the distinct points", async () => {
    nextOffset = 0n;
    const members: KeyedMember[] = [];
    const events: PreparedEvent[] = [];
    for (let i = 0; i < 120; i++) {
      const id = `t${i}`;
      const points = 10 + (i % 6);
      const at = t0 + (i % 2) * 60_000;
      events.push(ev(id, 1, points, at));
      members.push({ playerId: id, key: encodeSortKey(spec, points, at) });
    }
    await writer.apply(0, events);
    members.sort(compareMembers);
    const U = spec.timeUnits;
    const idx = (key: number) => Math.floor(key / U);
    // what a tie read anchored at `key` must say, counted here from the members written
    const want = (key: number | undefined, cap: number) => {
      if (key === undefined) return { anchor: -1, below: 0, distinct: [] };
      const anchor = idx(key);
      const values = [...new Set(members.map((m) => idx(m.key)))].sort((x, y) => x - y).filter((v) => v <= anchor);
      return { anchor, below: members.filter((m) => idx(m.key) < anchor).length, distinct: cap > 0 ? values.slice(0, cap + 1) : [] };
    };
    for (const at of [0, 1, 19, 20, 21, 57, 100, 119]) {
      const probe = members[at]!;
      for (const cap of [0, 2, 100]) {
        const [w, wt] = await store.atOnce((r) =>
          Promise.all([r.window("b", probe.key, probe.playerId, 5), r.ties("b", { units: U }, "first", cap)]),
        );
        expect(wt).toEqual(want(w.members[0]?.key, cap));
        const [s, st] = await store.atOnce((r) =>
          Promise.all([r.standing("b", probe.playerId, 3), r.ties("b", { units: U }, "first", cap)]),
        );
        expect(st).toEqual(want(s!.members[0]!.key, cap));
        const [back, bt] = await store.atOnce((r) => Promise.all([r.after("b", probe, 7, true), r.ties("b", { units: U }, "first", cap)]));
        expect(bt).toEqual(want(back.members[0]?.key, cap));
        const [, ft] = await store.atOnce((r) => Promise.all([r.after("b", probe, 7, false), r.ties("b", { units: U }, probe, cap)]));
        expect(ft).toEqual(want(probe.key, cap));
      }
    }
    // a read that listed nothing (radius 0) leaves no anchor; ties are only read with the part they rank
    const [, none] = await store.atOnce((r) =>
      Promise.all([r.window("b", members[50]!.key, "x", 0), r.ties("b", { units: U }, "first", 5)]),
    );
    expect(none).toEqual({ anchor: -1, below: 0, distinct: [] });
    await expect(store.ties("b", { units: U }, members[0]!, 0)).rejects.toThrow(/inside atOnce/);
  });

  it("answers reads asked together (one read-batch.lua command) exactly as each asked alone, and refuses them together", async () => {
    nextOffset = 0n;
    const events = Array.from({ length: 60 }, (_, i) => ev(`q${i}`, 1, 10 + (i % 7), t0 + (i % 3) * 60_000));
    await writer.apply(0, [...events, ev("other-board", 1, 5, t0, "c")]);
    const ask = () =>
      [
        store.standing("b", "q3", 2),
        store.window("b", 12345, "q3", 1),
        store.top("b", 5),
        store.entry("b", "q9"),
        store.standing("b", "nobody", 1),
        store.top("c", 3),
        store.standing("c", "other-board", 0),
        store.entry("none", "q1"),
      ] as const;
    const alone: unknown[] = [];
    for (const read of ask()) alone.push(await read); // each awaited before the next: sent alone
    // the script commands this connection sends (read scripts run as EVALSHA_RO, or EVAL_RO after a
    // NOSCRIPT), counted here: the server's commandstats also count other test files' reads
    const sent: string[] = [];
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = (command, stream) => {
      sent.push(command.name.toLowerCase());
      return send(command, stream);
    };
    const together = await Promise.all(ask()).finally(() => {
      redis.sendCommand = send;
    }); // asked in one turn: sent as one command
    expect(sent).toEqual(["evalsha_ro"]);
    expect(together).toEqual(alone);
    expect(together[4]).toBeUndefined();
    expect(together[7]).toBeUndefined();
    await writer.clearHeartbeat();
    const refused = await Promise.all(
      ask().map((p) =>
        p.then(
          () => "answered",
          (e: LadderError) => e.code,
        ),
      ),
    );
    expect(refused).toEqual(Array(8).fill(Code.UNAVAILABLE));
  });

  it("sends the reads of atOnce as one command: never split at a batch's bound, and from a reader that does not batch", async () => {
    nextOffset = 0n;
    await writer.apply(
      0,
      Array.from({ length: 20 }, (_, i) => ev(`u${i}`, 1, 10 + i)),
    );
    // every read command this test's keys see, by MONITOR, with its arguments
    const lines: string[][] = [];
    const marks: string[] = [];
    const sent = new Set<string>();
    const monitor = monitorLines(inject("redisUrls")[0]!, (args) => {
      // one line per command sent: an EVALSHA that Redis answered NOSCRIPT is sent again as EVAL, with the same arguments
      const command = JSON.stringify(args.slice(2));
      if (/^eval/i.test(args[0] ?? "") && args.some((a) => a.startsWith(keyPrefix)) && !sent.has(command)) {
        sent.add(command);
        lines.push(args);
      }
      if (/^echo$/i.test(args[0] ?? "") && args[1]?.startsWith(keyPrefix)) marks.push(args[1]);
    });
    await monitor.ready;
    // MONITOR's lines arrive after the replies: every command before a mark was seen once the mark is
    const seenUpTo = async (mark: string) => {
      await redis.echo(`${keyPrefix}${mark}`);
      while (!marks.includes(`${keyPrefix}${mark}`)) await new Promise((r) => setTimeout(r, 10));
    };
    try {
      // 60 reads, then a unit of 10, in one turn: 70 reads, more than one batch holds (64)
      const singles = Array.from({ length: 60 }, (_, i) => store.entry("b", `u${i % 20}`));
      const unit = store.atOnce((r) => Promise.all(Array.from({ length: 10 }, (_, i) => r.entry("b", `probe-${i}`))));
      await Promise.all([...singles, unit]);
      const plain = new ShardReader({ shardId: "shard-x", stamp: STAMP, redis, keyPrefix, batch: false });
      const alone = [await plain.entry("b", "u1"), await plain.top("b", 3), await plain.ranks("b", ["u2"], [{ playerId: "", key: 5 }])];
      await seenUpTo("before");
      const seen = lines.length;
      const together = await plain.atOnce((r) =>
        Promise.all([r.entry("b", "u1"), r.top("b", 3), r.ranks("b", ["u2"], [{ playerId: "", key: 5 }])]),
      );
      expect(together).toEqual(alone);
      await seenUpTo("after");
      const withProbes = lines.filter((l) => l.some((a) => a.startsWith("probe-")));
      expect(withProbes.length).toBe(1);
      expect(withProbes[0]!.filter((a) => a.startsWith("probe-")).length).toBe(10);
      expect(lines.length - seen).toBe(1);
    } finally {
      monitor.close();
    }
  });

  it("fails with UNAVAILABLE when the shard node's heartbeat is gone", async () => {
    await writer.clearHeartbeat();
    const err = await store.top("b", 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LadderError);
    expect(err).toMatchObject({ code: Code.UNAVAILABLE, retriable: true });
  });

  it("refuses to answer for another shard's Redis", async () => {
    const other = new ShardReader({ shardId: "shard-y", stamp: shardStamp({ ...identity, shardId: "shard-y" }), redis, keyPrefix });
    await expect(other.entry("b", "a")).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION, message: /shard-y: .*belongs to shard-x/ });
  });

  it("refuses a reader whose slots, board specs or counts' buckets differ, saying which (FAILED_PRECONDITION)", async () => {
    const otherSlots = new ShardReader({ shardId: "shard-x", stamp: shardStamp({ ...identity, slots: [0, 1, 2] }), redis, keyPrefix });
    await expect(otherSlots.top("b", 1)).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION, message: /slots or shard list/ });
    const otherBoards = new BoardSpecs([makeBoardSpec({ ...DEFAULT_BOARD, maxPoints: 1000 }).spec!]);
    const otherSpecs = new ShardReader({ shardId: "shard-x", stamp: shardStamp({ ...identity, boards: otherBoards }), redis, keyPrefix });
    await expect(otherSpecs.entry("b", "a")).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
      message: /board specs \(LADDER_BOARDS\)/,
    });
    // another bucket count would look for players' counts of records in other hashes
    const otherCounts = new ShardReader({
      shardId: "shard-x",
      stamp: shardStamp({ ...identity, recordCountBuckets: 4096 }),
      redis,
      keyPrefix,
    });
    await expect(otherCounts.playerData("a", 0)).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
      message: /buckets of the counts of records per slot \(LADDER_RECORD_COUNT_BUCKETS.*\): 1024 there, 4096 here/,
    });
  });

  it("returns nothing for an unknown player or board", async () => {
    expect(await store.entry("nope", "a")).toBeUndefined();
    expect(await store.top("nope", 10)).toEqual({ card: 0, members: [] });
  });
});

describe("shard store > built from", () => {
  beforeEach(() => {
    nextOffset = 0n;
  });

  it("records the writer's source on an empty shard and refuses writes built from another", async () => {
    expect(await writer.readBuiltFrom()).toBeUndefined();
    expect(await writer.apply(0, [ev("a", 1, 5)])).toMatchObject({ inSequence: true, applied: 1 });
    expect(await writer.readBuiltFrom()).toBe(BUILT_FROM);
    const recreated = new ShardWriter({
      shardId: "shard-x",
      stamp: STAMP,
      builtFrom: builtFrom(STAMP, "topic-id-2"),
      redis,
      keyPrefix,
      dedupWindowMs: 0,
    });
    const r = await recreated.apply(0, [ev("a", 2, 5)]);
    expect(r).toMatchObject({ applied: 0, drift: BUILT_FROM, lastOffset: 0n });
    expect((await store.entry("b", "a")) !== undefined).toBe(true);
    expect(decodeSortKey(spec, (await store.entry("b", "a"))!).points).toBe(5); // unchanged
    expect(await recreated.heartbeat({ ttlMs: 60_000, mode: "serve", reason: "", partitions: [] })).toMatchObject({
      status: HeartbeatStatus.DRIFT,
      builtFrom: BUILT_FROM,
    });
  });
});

describe("shard store > heartbeat", () => {
  const at = (known: bigint, target: bigint) => [{ partition: 0, known, target }];
  beforeEach(async () => {
    nextOffset = 0n;
    await writer.apply(0, [ev("a", 1, 5), ev("b", 1, 6), ev("c", 1, 7)]); // offsets 0..2
  });

  it("serves in catch-up mode only once every partition reached its target, and says why not", async () => {
    const behind = await writer.heartbeat({
      ttlMs: 60_000,
      mode: "catch-up",
      reason: "catching up with the log after a start",
      partitions: at(2n, 10n),
    });
    expect(behind).toMatchObject({ status: HeartbeatStatus.LAGGING, lag: 7 });
    await expect(store.top("b", 10)).rejects.toMatchObject({
      code: Code.UNAVAILABLE,
      message: "shard-x: not serving reads: catching up with the log after a start: 7 records to apply",
    });
    const reached = await writer.heartbeat({ ttlMs: 60_000, mode: "catch-up", reason: "x", partitions: at(2n, 3n) });
    expect(reached).toMatchObject({ status: HeartbeatStatus.OK, lag: 0 });
    expect((await store.top("b", 10)).card).toBe(3);
  });

  it("withdraws when asked, with the reason", async () => {
    expect(
      await writer.heartbeat({ ttlMs: 60_000, mode: "withdraw", reason: "the applier applied nothing for 12 s", partitions: at(2n, 50n) }),
    ).toMatchObject({ status: HeartbeatStatus.WITHDRAWN });
    await expect(store.entry("b", "a")).rejects.toMatchObject({
      code: Code.UNAVAILABLE,
      message: /not serving reads: the applier applied nothing for 12 s/,
    });
  });

  it("reports lost data and stops serving when Redis holds less than was applied", async () => {
    await redis.hset(writer.keys.offsets, "0", "0"); // as if an older copy of the data came back
    const r = await writer.heartbeat({ ttlMs: 60_000, mode: "serve", reason: "", partitions: at(2n, 3n) });
    expect(r.status).toBe(HeartbeatStatus.LOST);
    expect(r.lost).toEqual(new Map([[0, 0n]]));
    await expect(store.top("b", 1)).rejects.toMatchObject({ code: Code.UNAVAILABLE, message: /Redis lost data/ });
  });

  it("serves only within the bound after the moment the node says the shard was current, on the Redis's clock", async () => {
    const { redisNowMs } = await writer.heartbeat({ ttlMs: 60_000, mode: "serve", reason: "", partitions: at(2n, 3n) });
    expect(Math.abs(redisNowMs - (await writer.redisNowMs()))).toBeLessThan(5_000);
    // current as of 1 s ago with a 10 s bound: served, by every read script (top alone, batched reads)
    const fresh = { asOfMs: (await writer.redisNowMs()) - 1000, boundMs: 10_000 };
    expect(await writer.heartbeat({ ttlMs: 60_000, mode: "serve", reason: "", partitions: at(2n, 3n), current: fresh })).toMatchObject({
      status: HeartbeatStatus.OK,
    });
    expect((await store.top("b", 10)).card).toBe(3);
    expect(await Promise.all([store.entry("b", "a"), store.histogram("b").then((h) => h.card)])).toHaveLength(2);
    // current as of 3 s ago with a 2 s bound: refused, with how long ago and the bound
    const stale = { asOfMs: (await writer.redisNowMs()) - 3000, boundMs: 2000 };
    expect(await writer.heartbeat({ ttlMs: 60_000, mode: "serve", reason: "", partitions: at(2n, 3n), current: stale })).toMatchObject({
      status: HeartbeatStatus.OK,
    });
    for (const read of [store.top("b", 10), store.entry("b", "a"), store.window("b", 0, "a", 1)])
      await expect(read).rejects.toMatchObject({
        code: Code.UNAVAILABLE,
        message: expect.stringMatching(
          /^shard-x: shard node is not current \(it last held the log's end 3\d{3} ms ago; the bound is 2000 ms\), retry$/,
        ),
      });
    // within the bound until it passes, by the Redis's clock alone (no heartbeat in between)
    const soon = { asOfMs: (await writer.redisNowMs()) - 1700, boundMs: 2000 };
    await writer.heartbeat({ ttlMs: 60_000, mode: "serve", reason: "", partitions: at(2n, 3n), current: soon });
    expect((await store.top("b", 10)).card).toBe(3);
    await new Promise((r) => setTimeout(r, 500));
    await expect(store.top("b", 10)).rejects.toMatchObject({ message: /shard node is not current/ });
    // the shard's Redis holds the targets (lag 0): current as of the targets' moment, whatever the node knew
    const now = await writer.redisNowMs();
    const byTargets = { asOfMs: now - 3000, targetsAsOfMs: now - 100, boundMs: 2000 };
    await writer.heartbeat({ ttlMs: 60_000, mode: "serve", reason: "", partitions: at(2n, 3n), current: byTargets });
    expect((await store.top("b", 10)).card).toBe(3);
    await writer.heartbeat({ ttlMs: 60_000, mode: "serve", reason: "", partitions: at(2n, 5n), current: byTargets }); // 2 records short
    await expect(store.top("b", 10)).rejects.toMatchObject({
      message: /shard node is not current \(it last held the log's end 3\d{3} ms ago/,
    });
    // never known current (as of 0)
    await writer.heartbeat({ ttlMs: 60_000, mode: "serve", reason: "", partitions: at(2n, 5n), current: { asOfMs: 0, boundMs: 2000 } });
    await expect(store.top("b", 10)).rejects.toMatchObject({
      message: "shard-x: shard node is not current (it has not held the log's end since it started; the bound is 2000 ms), retry",
    });
    // no bound given (audit views, benchmarks): served
    await writer.heartbeat({ ttlMs: 60_000, mode: "serve", reason: "", partitions: at(2n, 3n) });
    expect((await store.top("b", 10)).card).toBe(3);
  });

  it("takes the writer's source again on a Redis that lost everything", async () => {
    for (const key of await redis.keys(`${keyPrefix}*`)) await redis.del(key);
    const r = await writer.heartbeat({ ttlMs: 60_000, mode: "serve", reason: "", partitions: at(2n, 3n) });
    expect(r).toMatchObject({ status: HeartbeatStatus.LOST, lost: new Map([[0, -1n]]) });
    expect(await writer.readBuiltFrom()).toBe(BUILT_FROM);
  });
});
