// Snapshots against a real Redis and Kafka, below the services: what is taken is what is loaded
// (boards, dedup sets, expiries, offsets), a snapshot read while records are applied is the state
// at its offsets, a snapshot of another topic id or configuration is ignored, a damaged or
// half-written one is never used, and the install only ever moves a shard forward.
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { LogClient } from "@ladder/log/log-client";
import type { RecordProducer } from "@ladder/log/record-producer";
import { silentLogger } from "@ladder/platform/logger";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { builtFrom, keyLayout, shardStamp } from "@ladder/store";
import {
  chunkKey,
  encodeChunk,
  encodeManifest,
  manifestKey,
  ShardWriter,
  unlinkPrefix,
  type PreparedEvent,
  type SnapshotManifest,
} from "@ladder/store/writer";
import { ensureSnapshotTopic } from "@ladder/log/snapshot-topic";
import { findSnapshots, loadSnapshot, readSnapshot, refillFromSnapshot, takeSnapshot, type TakenSnapshot } from "@ladder/store/writer";

const log = silentLogger();
const logClient = LogClient.unconnected(inject("kafkaBrokers"), "test-snapshots", log);
const redis = new Redis(inject("redisUrls")[0]!);
const defaultRedis = redis;
/** The applier's own connection, as in a shard node; and another database of the same server, where a copy is made under the same prefix. */
const writerRedis = new Redis(inject("redisUrls")[0]!);
const otherDb = new Redis(inject("redisUrls")[0]!, { db: 9 });
const replayDb = new Redis(inject("redisUrls")[0]!, { db: 10 });
const boards = new BoardSpecs([makeBoardSpec(DEFAULT_BOARD).spec!]);
const slots = [0, 1, 2];
const STAMP = shardStamp({ shardId: "shard-s", topic: "t", numSlots: 3, slots, boards });
const FROM = builtFrom(STAMP, "topic-id-1");
let producer: RecordProducer;
let topic: string;
let prefix: string;
let partitions: number;

beforeAll(async () => {
  await logClient.connect();
  producer = await logClient.producer();
});
afterAll(async () => {
  await producer.disconnect();
  await logClient.close();
  await redis.quit();
  await writerRedis.quit();
  await otherDb.quit();
  await replayDb.quit();
});
beforeEach(async () => {
  const ns = freshNamespace("snap");
  topic = `${ns.topic}.snapshots`;
  prefix = ns.keyPrefix;
  partitions = (await ensureSnapshotTopic(logClient, { topic })).partitions;
});

/** A shard's data as the apply script leaves it: boards, a dedup set, the counts of records, offsets, built-from. */
async function fill(p: string, players: number, offsets: Record<number, number>, from = FROM): Promise<void> {
  const k = keyLayout(p);
  const members: Array<string | number> = [];
  for (let i = 0; i < players; i++) members.push(i * 1000 + (i % 7), `player-${i}`);
  for (let i = 0; i < members.length; i += 20_000) await redis.zadd(k.board("global"), ...members.slice(i, i + 20_000));
  await redis.zadd(k.board("daily"), 5, "a", 7, "b");
  await redis.pexpireat(k.board("daily"), Date.now() + 3_600_000);
  await redis.zadd(k.dedup(1), 1000, "e1\nboard\nplayer-1", 1001, "e2\nboard\nplayer-2");
  await redis.hset(k.recordCounts(1, 17), "player-1", 3, "player-2", 12);
  await redis.hset(k.recordCounts(2, 0), "player-3", 1);
  await redis.hset(k.offsets, ...Object.entries(offsets).flat());
  await redis.set(k.builtFrom, from);
}

/** Everything a snapshot covers, keyed without the prefix. */
async function contents(p: string, redis = defaultRedis): Promise<Record<string, unknown>> {
  const k = keyLayout(p);
  const out: Record<string, unknown> = { offsets: await redis.hgetall(k.offsets), builtFrom: await redis.get(k.builtFrom) };
  for (const key of [...(await redis.keys(`${p}board:*`)), ...(await redis.keys(`${p}dedup:*`))].sort()) {
    out[key.slice(p.length)] = { members: await redis.zrange(key, "0", "-1", "WITHSCORES"), expiring: (await redis.pexpiretime(key)) > 0 };
  }
  // the counts of records: hashes, each's fields in order
  for (const key of (await redis.keys(`${p}count:*`)).sort()) {
    const counts = Object.entries(await redis.hgetall(key)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    out[key.slice(p.length)] = counts;
  }
  return out;
}

/** Keys cut in entries of about this many bytes: the big keys of these tests come as several (format 3), as a shard's do. */
const ENTRY_BYTES = 32 * 1024;

const take = async (slot: "a" | "b", from = FROM, finalJournal?: number): Promise<TakenSnapshot> => {
  const res = await takeSnapshot({
    entryBytes: ENTRY_BYTES,
    redis,
    keyPrefix: prefix,
    shardId: "shard-s",
    builtFrom: from,
    slots,
    producer,
    topic,
    partitions,
    slot,
    ...(finalJournal ? { finalJournal } : {}),
  });
  if ("skipped" in res) throw new Error(res.skipped);
  return res;
};
const source = () => ({ logClient, topic });

describe("shard node > snapshots", () => {
  it("loads exactly what was taken, under any prefix: boards, dedup sets, counts of records, expiries, offsets", async () => {
    await fill(prefix, 50_000, { 0: 100, 1: 20, 2: 5 });
    const taken = await take("a");
    expect(taken.manifest).toMatchObject({ records: 128, players: 50_002, keys: 5, offsets: { "0": "100", "1": "20", "2": "5" } });
    expect(taken.manifest.chunks.count).toBeGreaterThan(1); // 50,000 players are more than one 512 KiB chunk
    const found = await findSnapshots({ ...source(), shardId: "shard-s", builtFrom: FROM });
    // the big keys come as several entries of their name, one after another
    const entries: string[] = [];
    await readSnapshot({ ...source(), manifest: found.candidates[0]! }, async (e) => void entries.push(e.name));
    expect(entries.filter((n) => n === "board:global").length).toBeGreaterThan(10);
    expect(entries.filter((n, i) => i > 0 && n !== entries[i - 1]).length).toBe(4); // 5 keys, each in one run
    expect(found.candidates.map((m) => m.snapshotId)).toEqual([taken.manifest.snapshotId]);
    const other = freshNamespace("snap-copy").keyPrefix;
    await loadSnapshot({ ...source(), manifest: found.candidates[0]!, redis, targetPrefix: other });
    const copy = await contents(other);
    const original = await contents(prefix);
    expect({ ...copy, offsets: undefined, builtFrom: undefined }).toEqual({ ...original, offsets: undefined, builtFrom: undefined });
  });

  it("ignores a snapshot of another topic id or configuration, and says why", async () => {
    await fill(prefix, 10, { 0: 3 });
    await take("a");
    const otherTopic = await findSnapshots({ ...source(), shardId: "shard-s", builtFrom: builtFrom(STAMP, "topic-id-2") });
    expect(otherTopic.candidates).toEqual([]);
    expect(otherTopic.ignored.join("\n")).toMatch(
      /score topic's id \(the topic was deleted and created again\): topic-id-1 there, topic-id-2 here/,
    );
    const otherBoards = builtFrom(
      shardStamp({
        shardId: "shard-s",
        topic: "t",
        numSlots: 3,
        slots,
        boards: new BoardSpecs([makeBoardSpec({ ...DEFAULT_BOARD, maxPoints: 1000 }).spec!]),
      }),
      "topic-id-1",
    );
    expect((await findSnapshots({ ...source(), shardId: "shard-s", builtFrom: otherBoards })).ignored.join("\n")).toMatch(
      /board specs \(LADDER_BOARDS\)/,
    );
    expect((await findSnapshots({ ...source(), shardId: "shard-x", builtFrom: FROM })).candidates).toEqual([]);
  });

  it("never uses a damaged snapshot, and falls back to the previous one while a new one is half written", async () => {
    await fill(prefix, 2000, { 0: 10, 1: 10, 2: 10 });
    const first = await take("a");
    await redis.hset(keyLayout(prefix).offsets, "0", "50");
    const second = await take("b");
    // a third snapshot dies half-way: a chunk of slot "a" written, no manifest; the second (slot "b") is untouched
    const [dead] = await producer.send(topic, [
      {
        key: chunkKey("shard-s", "a", 0),
        value: encodeChunk({ snapshotId: "dead", index: 0, count: 9 }, Buffer.from("x")),
        partition: first.manifest.chunks.partition,
      },
    ]);
    let found = await findSnapshots({ ...source(), shardId: "shard-s", builtFrom: FROM });
    expect(found.candidates.map((m) => m.snapshotId)).toEqual([second.manifest.snapshotId, first.manifest.snapshotId]);
    // once compaction keeps only the newest record of each key, the first snapshot's chunk 0 is that dead one
    const compacted: SnapshotManifest = {
      ...first.manifest,
      chunks: { ...first.manifest.chunks, firstOffset: dead!.baseOffset!, lastOffset: dead!.baseOffset!, count: 1 },
    };
    await expect(loadSnapshot({ ...source(), manifest: compacted, redis, targetPrefix: freshNamespace("x").keyPrefix })).rejects.toThrow(
      /belongs to another snapshot/,
    );
    // a manifest whose checksum does not match its chunks
    const forged: SnapshotManifest = {
      ...second.manifest,
      snapshotId: second.manifest.snapshotId,
      sha256: "0".repeat(64),
      takenAtMs: Date.now(),
    };
    await producer.send(topic, [{ key: manifestKey("shard-s"), value: encodeManifest(forged), partition: 0 }]);
    found = await findSnapshots({ ...source(), shardId: "shard-s", builtFrom: FROM });
    expect(found.candidates).toHaveLength(3);
    await expect(
      loadSnapshot({ ...source(), manifest: found.candidates[0]!, redis, targetPrefix: freshNamespace("x").keyPrefix }),
    ).rejects.toThrow(/does not match its manifest/);
    // a refill tries the forged one, then the intact second one, and installs that
    const target = freshNamespace("refill").keyPrefix;
    const res = await refillFromSnapshot({ ...source(), shardId: "shard-s", builtFrom: FROM, slots, redis, keyPrefix: target, log });
    expect(res).toMatchObject({ installed: { snapshotId: second.manifest.snapshotId } });
    expect(await redis.hgetall(keyLayout(target).offsets)).toEqual({ "0": "50", "1": "10", "2": "10" });
    expect(await redis.keys(`${target}snapshot-load:*`)).toEqual([]);
  });

  it("installs over a Redis that applied less, atomically, and never over one that applied more", async () => {
    await fill(prefix, 1000, { 0: 400, 1: 400, 2: 400 });
    const taken = await take("a");
    // a Redis that lost data, then refilled a little from the log: behind the snapshot
    const behind = freshNamespace("behind").keyPrefix;
    await fill(behind, 3, { 0: 2 });
    await redis.zadd(keyLayout(behind).board("gone"), 1, "stale");
    const res = await refillFromSnapshot({ ...source(), shardId: "shard-s", builtFrom: FROM, slots, redis, keyPrefix: behind, log });
    expect(res).toMatchObject({ installed: { snapshotId: taken.manifest.snapshotId } });
    expect(await contents(behind)).toEqual(await contents(prefix)); // the stale board is gone, everything else is the snapshot
    // a Redis ahead of the snapshot in one partition is left alone
    const ahead = freshNamespace("ahead").keyPrefix;
    await fill(ahead, 3, { 0: 401 });
    expect(await refillFromSnapshot({ ...source(), shardId: "shard-s", builtFrom: FROM, slots, redis, keyPrefix: ahead, log })).toEqual({
      skipped: expect.stringMatching(/applied more of partition 0/),
    });
    // a Redis built from something else is left alone
    const drift = freshNamespace("drift").keyPrefix;
    await redis.set(keyLayout(drift).builtFrom, builtFrom(STAMP, "topic-id-0"));
    expect(await refillFromSnapshot({ ...source(), shardId: "shard-s", builtFrom: FROM, slots, redis, keyPrefix: drift, log })).toEqual({
      skipped: expect.stringMatching(/built from/),
    });
  });

  it("a snapshot read while records are applied is exactly the log replayed to its offsets; loaded, plus the rest of the log, it is the live state", async () => {
    const DEDUP_MS = 3000;
    const writer = new ShardWriter({
      shardId: "shard-s",
      stamp: STAMP,
      builtFrom: FROM,
      redis: writerRedis,
      keyPrefix: prefix,
      dedupWindowMs: DEDUP_MS,
    });
    // the log of each partition, as the applier gets it (a player's records all in one partition, as the slot assigner puts them): sets, increments and bests on an all-time board, an expiring one and boards
    // that appear as the log goes on; few distinct scores (long runs of equal scores that pages must cross); retries of recent events; metadata
    const logOf = new Map<number, PreparedEvent[]>(slots.map((p) => [p, []]));
    let clock = 1_000_000;
    let made = 0;
    let newPlayers = false;
    let seed = 7;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const more = (p: number, n: number): PreparedEvent[] => {
      const log = logOf.get(p)!;
      const out: PreparedEvent[] = [];
      for (let i = 0; i < n; i++) {
        const offset = BigInt(log.length);
        let e: PreparedEvent;
        if (log.length > 50 && rand(10) === 0) {
          e = { ...log[log.length - 1 - rand(50)]!, offset, ingestedAtMs: ++clock }; // a retry: same event id, board and player
        } else {
          const kind = rand(20);
          const board = kind < 3 ? "daily" : kind === 3 ? `late-${Math.floor(made / 4000)}` : "global";
          const op = 1 + rand(3);
          e = {
            offset,
            part: false,
            board,
            // while snapshots are read, one record in four of a new player: counts of records added meanwhile
            playerId: newPlayers && rand(4) === 0 ? `new-${p}-${log.length}` : `player-${rand(7000) * slots.length + p}`,
            op,
            value: op === 2 ? rand(9) - 3 : rand(25),
            timeIdx: rand(3),
            maxPoints: 1_000_000,
            minPoints: -1_000_000,
            timeUnits: 1000,
            ttlSeconds: board === "daily" ? 3600 : 0,
            eventId: `e-${p}-${log.length}`,
            ingestedAtMs: ++clock,
            lowerIsBetter: false,
            expireAtMs: 0,
            metadata: rand(3) === 0 ? `{"name":"n${rand(4)}"}` : "", // kept in the board's metadata key, a sorted set of its own
          };
        }
        made++;
        log.push(e);
        out.push(e);
      }
      return out;
    };
    const applyAll = async (w: ShardWriter, p: number, events: readonly PreparedEvent[]) => {
      for (let i = 0; i < events.length; i += 500) {
        const res = await w.apply(p, events.slice(i, i + 500));
        if (!res.inSequence) throw new Error(`partition ${p}: out of sequence at ${res.lastOffset}`);
      }
    };
    for (const p of slots) await applyAll(writer, p, more(p, 15_000));

    newPlayers = true;
    let writing = true;
    let appliedWhileRunning = 0;
    const writes = (async () => {
      while (writing) {
        for (const p of slots) await applyAll(writer, p, more(p, 60));
        appliedWhileRunning += 180;
      }
    })();
    const taken: TakenSnapshot[] = [];
    try {
      // the last two set the journal aside until it holds at most 16 members: several rounds while records flow
      for (const [slot, finalJournal] of [
        ["a", undefined],
        ["b", 16],
        ["a", 16],
      ] as const) {
        const before = appliedWhileRunning;
        taken.push(await take(slot, FROM, finalJournal));
        expect(appliedWhileRunning).toBeGreaterThan(before); // records were applied while it was read
      }
    } finally {
      writing = false;
      await writes;
    }
    const live = await contents(prefix);
    expect(Object.keys(live).filter((k) => k.startsWith("board:late-")).length).toBeGreaterThan(3);
    for (const t of taken) {
      console.log(
        `[snapshot] read while applying: ${t.manifest.players} players, ${t.journaled} members journaled, journal set aside ${t.rotations} time(s), ${t.attempts} attempt(s), read ${Math.round(t.readMs)} ms, longest call ${t.longestCallMs.toFixed(1)} ms, finish ${t.finishMs.toFixed(1)} ms`,
      );
      expect(t.journaled).toBeGreaterThan(0);
      if (t !== taken[0]) expect(t.rotations).toBeGreaterThan(1);
      expect(t.manifest.players).toBeGreaterThan(2 * 4096); // more than one page of the biggest board
      // the copy: the snapshot under the same prefix in another database...
      await unlinkPrefix(otherDb, prefix);
      await loadSnapshot({ ...source(), manifest: t.manifest, redis: otherDb, targetPrefix: prefix });
      await otherDb.hset(keyLayout(prefix).offsets, t.manifest.offsets);
      await otherDb.set(keyLayout(prefix).builtFrom, FROM);
      // it is exactly what replaying the log up to its offsets makes
      await unlinkPrefix(replayDb, prefix);
      const replay = new ShardWriter({
        shardId: "shard-s",
        stamp: STAMP,
        builtFrom: FROM,
        redis: replayDb,
        keyPrefix: prefix,
        dedupWindowMs: DEDUP_MS,
      });
      for (const p of slots) await applyAll(replay, p, logOf.get(p)!.slice(0, Number(t.manifest.offsets[String(p)]) + 1));
      expect(await contents(prefix, otherDb)).toEqual(await contents(prefix, replayDb));
      // ...then every record of the log after it: the live state
      const copy = new ShardWriter({
        shardId: "shard-s",
        stamp: STAMP,
        builtFrom: FROM,
        redis: otherDb,
        keyPrefix: prefix,
        dedupWindowMs: DEDUP_MS,
      });
      for (const p of slots) {
        const after = Number(t.manifest.offsets[String(p)]) + 1;
        expect(after).toBeGreaterThan(15_000);
        await applyAll(copy, p, logOf.get(p)!.slice(after));
      }
      expect(await contents(prefix, otherDb)).toEqual(live);
    }
    await unlinkPrefix(otherDb, prefix);
    await unlinkPrefix(replayDb, prefix);
    expect(
      await redis.exists(keyLayout(prefix).snapshotReading, keyLayout(prefix).snapshotJournal, keyLayout(prefix).snapshotJournalSetAside),
    ).toBe(0); // the journal stopped
    // 16 s alone; beside the rest of the first group on two cores, up to 8x that (its reads, replays and
    // loads all wait for the cores): a limit for a hang, not for speed
  }, 300_000);
});
