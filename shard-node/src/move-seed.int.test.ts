// A move seeded from the old owner's snapshot (store/src/writer/move-seed.ts) against a real Redis
// and Kafka, below the services: shard A holds slots 0 and 1, shard B slots 2 and 3; B gains slot 1.
// Seeded from A's snapshot (taken mid-log) and then given the rest of partition 1's log, B holds
// exactly what B given partition 1's whole log from offset 0 holds: every key, member, score, hash
// field, expiry and offset, the move's "!arr" companion and the histogram counts included — in a
// move in place (mirrored into "!arr") and into a new shard's empty database. While it seeds, the old
// placement's readers never see a seeded member. A snapshot holding a key the split does not know
// seeds nothing: the slot is replayed as before.
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { LogClient } from "@ladder/log/log-client";
import type { RecordProducer } from "@ladder/log/record-producer";
import { silentLogger } from "@ladder/platform/logger";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { slotOf } from "@ladder/model/placement";
import { builtFrom, keyLayout, shardStamp } from "@ladder/store";
import { beginMove, noopEvent, seedFromSnapshots, ShardWriter, takeSnapshot, unlinkPrefix, type PreparedEvent } from "@ladder/store/writer";
import { ensureSnapshotTopic } from "@ladder/log/snapshot-topic";

const log = silentLogger();
const logClient = LogClient.unconnected(inject("kafkaBrokers"), "test-move-seed", log);
// every shard's Redis under the same key prefix, as in a cluster (event ids name their board key): A in
// database 0, the replayed copy of B in 11, the seeded one in 12
const redis = new Redis(inject("redisUrls")[0]!);
const replayDb = new Redis(inject("redisUrls")[0]!, { db: 11 });
const seedDb = new Redis(inject("redisUrls")[0]!, { db: 12 });
const reader = new Redis(inject("redisUrls")[0]!, { db: 12 });
const boards = new BoardSpecs([makeBoardSpec(DEFAULT_BOARD).spec!]);
const SLOTS = 4;
const A_SLOTS = [0, 1];
const B_SLOTS = [2, 3];
const stampOf = (shardId: string, slots: number[]) => shardStamp({ shardId, topic: "t", numSlots: SLOTS, slots, boards });
const A_FROM = builtFrom(stampOf("shard-a", A_SLOTS), "topic-id-1");
const B_FROM = builtFrom(stampOf("shard-b", B_SLOTS), "topic-id-1");
const B_TO = builtFrom(stampOf("shard-b", [1, ...B_SLOTS]), "topic-id-1");
const DEDUP_MS = 5000;
/** Histogram bounds of board "hist": sort keys (maxPoints - points) * timeUnits + time. */
const BOUNDS = [0, 400_000_000, 900_000_000, 990_000_000];

let producer: RecordProducer;
let topic: string;
let partitions: number;
let prefix: string;

beforeAll(async () => {
  await logClient.connect();
  producer = await logClient.producer();
});
afterAll(async () => {
  await producer.disconnect();
  await logClient.close();
  await Promise.all([redis, replayDb, seedDb, reader].map((r) => r.quit()));
});
beforeEach(async () => {
  const ns = freshNamespace("seed");
  topic = `${ns.topic}.snapshots`;
  prefix = ns.keyPrefix;
  partitions = (await ensureSnapshotTopic(logClient, { topic })).partitions;
});

afterEach(async () => {
  for (const db of [redis, replayDb, seedDb]) await unlinkPrefix(db, prefix);
});

/** Players of each slot, found by the placement's own hash. */
const playersOf = new Map<number, string[]>(Array.from({ length: SLOTS }, (_, s) => [s, []]));
for (let i = 0; playersOf.get(0)!.length < 300 || [...playersOf.values()].some((l) => l.length < 300); i++)
  playersOf.get(slotOf(`p${i}`, SLOTS))!.push(`p${i}`);

/** A partition's log as the applier gets it: scores on four boards (metadata, a daily key, a histogram), retries, hides with audit lines. */
function logOf(p: number, n: number, seed: number): PreparedEvent[] {
  const out: PreparedEvent[] = [];
  let s = seed;
  const rand = (k: number) => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8) % k;
  const players = playersOf.get(p)!;
  for (let i = 0; i < n; i++) {
    const offset = BigInt(i);
    const ingestedAtMs = 1_000_000 + p * 100_000 + i;
    if (i > 50 && rand(12) === 0) {
      out.push({ ...out[i - 1 - rand(40)]!, offset, ingestedAtMs }); // a retry: same event id
      continue;
    }
    const player = players[rand(players.length)]!;
    if (rand(40) === 0) {
      const op = rand(2) === 0 ? 8 : 9; // HIDE, UNHIDE on every board
      const action = op === 8 ? "HIDE" : "UNHIDE";
      out.push({
        ...noopEvent(offset),
        playerId: player,
        op,
        value: 1,
        ingestedAtMs,
        audit: JSON.stringify({ offset: String(offset), action, playerId: player, by: "test", reason: "r", atMs: ingestedAtMs }),
      });
      continue;
    }
    const kind = rand(4);
    const board = ["global", "daily", "hist", "global"][kind]!;
    const op = 1 + rand(3);
    out.push({
      offset,
      part: false,
      board,
      playerId: player,
      op,
      value: op === 2 ? rand(9) - 3 : rand(1000),
      timeIdx: rand(3),
      maxPoints: 1_000_000,
      minPoints: -1_000_000,
      timeUnits: 1000,
      ttlSeconds: board === "daily" ? 3600 : 0,
      eventId: `e-${p}-${i}`,
      ingestedAtMs,
      lowerIsBetter: false,
      expireAtMs: 0,
      ...(rand(4) === 0 ? { metadata: `{"n":${rand(5)}}` } : {}),
      ...(board === "hist" ? { histogram: BOUNDS } : {}),
    });
  }
  return out;
}

async function applyAll(w: ShardWriter, p: number, events: readonly PreparedEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 500) {
    const res = await w.apply(p, events.slice(i, i + 500));
    if (!res.inSequence) throw new Error(`partition ${p}: out of sequence at ${res.lastOffset}`);
  }
}

const writerOf = (shardId: string, slots: number[], db: Redis, from: string) =>
  new ShardWriter({ shardId, stamp: stampOf(shardId, slots), builtFrom: from, redis: db, keyPrefix: prefix, dedupWindowMs: DEDUP_MS });

/** Everything under `prefix` but the heartbeat and the snapshot's leftovers, keyed without it: members and scores, hash fields, strings, expiries. */
async function contents(redis: Redis): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const key of (await redis.keys(`${prefix}*`)).sort()) {
    const name = key.slice(prefix.length);
    if (name === "heartbeat" || name === "current" || name.startsWith("snapshot:")) continue;
    const type = await redis.type(key);
    const value =
      type === "zset"
        ? await redis.zrange(key, "0", "-1", "WITHSCORES")
        : type === "hash"
          ? Object.entries(await redis.hgetall(key)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          : await redis.get(key);
    const at = await redis.pexpiretime(key);
    out[name] = { type, value, expiring: at > 0 };
  }
  return out;
}

/** A snapshot of shard A as it stands, into chunk slot `slot`. */
async function takeA(slot: "a" | "b") {
  const taken = await takeSnapshot({
    entryBytes: 16 * 1024, // keys in several entries each (format 3), as a shard of millions has them
    redis,
    keyPrefix: prefix,
    shardId: "shard-a",
    builtFrom: A_FROM,
    slots: A_SLOTS,
    producer,
    topic,
    partitions,
    slot,
  });
  if ("skipped" in taken) throw new Error(taken.skipped);
  return taken.manifest;
}

/** The logs of every slot, shard A given the first 4,000 records of each of its partitions, and A's snapshot then. */
async function twoShards() {
  const logs = new Map<number, PreparedEvent[]>(Array.from({ length: SLOTS }, (_, p) => [p, logOf(p, 6000, 17 + p)]));
  const writerA = writerOf("shard-a", A_SLOTS, redis, A_FROM);
  await writerA.recordBuiltFrom();
  for (const p of A_SLOTS) await applyAll(writerA, p, logs.get(p)!.slice(0, 4000));
  return { logs, manifest: await takeA("a") };
}

/** A copy of B in `db` with its own slots applied, a move gaining slot 1 begun when `move`. */
async function shardB(db: Redis, logs: Map<number, PreparedEvent[]>, move: boolean) {
  const writer = writerOf("shard-b", B_SLOTS, db, B_FROM);
  await writer.recordBuiltFrom();
  for (const p of B_SLOTS) await applyAll(writer, p, logs.get(p)!);
  if (move) await beginMove(db, prefix, { gained: [1], lost: [], from: B_FROM, to: B_TO }, { waitMs: 0 });
  return writer;
}

const seedSource = { shardId: "shard-a", builtFrom: A_FROM, ownerSlots: A_SLOTS, slots: [1] };

describe("shard node > moves seeded from snapshots", () => {
  for (const move of [true, false])
    it(`${move ? "in place" : "into a new shard's database"}: seeded, then the rest of the log, is exactly the replay from offset 0`, async () => {
      const { logs, manifest } = await twoShards();
      const at = Number(manifest.offsets["1"]);
      expect(at).toBe(3999);
      // the reference: partition 1's whole log
      await applyAll(await shardB(replayDb, logs, move), 1, logs.get(1)!);
      // seeded from A's snapshot, then the log after it; the old placement's reader counts the board meanwhile
      const seeded = await shardB(seedDb, logs, move);
      const global = keyLayout(prefix).board("global");
      const before = await seedDb.zcard(global);
      let watching = move;
      const seen: number[] = [];
      const watcher = (async () => {
        while (watching) {
          const [card, excluded] = (await reader.multi().zcard(global).zcard(`${global}!arr`).exec())!.map(([, n]) => Number(n));
          seen.push(card! - excluded!);
        }
      })();
      const result = await seedFromSnapshots({
        logClient,
        topic,
        sources: [seedSource],
        redis: seedDb,
        keyPrefix: prefix,
        offsetsKey: keyLayout(prefix).offsets,
        numSlots: SLOTS,
        mirror: move,
        log,
      });
      watching = false;
      await watcher;
      expect(result.from).toEqual([{ shardId: "shard-a", snapshotId: manifest.snapshotId, slots: [1], members: result.members }]);
      expect(result.members).toBeGreaterThan(300);
      expect(result.startAfter).toEqual(new Map([[1, 3999n]]));
      if (move) {
        expect(seen.length).toBeGreaterThan(0);
        expect(seen.filter((n) => n !== before)).toEqual([]); // the old placement's readers saw no seeded member
      }
      await applyAll(seeded, 1, logs.get(1)!.slice(at + 1));
      const got = await contents(seedDb);
      const want = await contents(replayDb);
      expect(Object.keys(got)).toEqual(Object.keys(want));
      expect(Object.keys(got)).toEqual(expect.arrayContaining(["board:hist!hist", "board:~audit", "board:~hidden", "dedup:1"]));
      expect(Object.keys(got).filter((name) => name.startsWith("count:records:1:")).length).toBeGreaterThan(10); // slot 1's counts, by bucket
      if (move) expect(Object.keys(got)).toContain("board:global!arr");
      expect(got).toEqual(want);
    }, 120_000);

  it("seeds nothing from a snapshot holding a key it cannot split by slot, nor from one of another configuration", async () => {
    await twoShards();
    await redis.zadd(`${prefix}board:global!strange`, 1, "x");
    await takeA("b");
    const o = {
      logClient,
      topic,
      redis: seedDb,
      keyPrefix: prefix,
      offsetsKey: keyLayout(prefix).offsets,
      numSlots: SLOTS,
      mirror: false,
      log,
    };
    expect((await seedFromSnapshots({ ...o, sources: [seedSource] })).from).toEqual([]);
    expect((await seedFromSnapshots({ ...o, sources: [{ ...seedSource, builtFrom: B_FROM }] })).from).toEqual([]);
    expect(await seedDb.keys(`${prefix}*`)).toEqual([]);
  }, 60_000);
});
