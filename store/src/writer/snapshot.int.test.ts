// Snapshots against a real Redis and Kafka, below the services: what is taken is what is loaded
// (boards, dedup sets, expiries, offsets), a snapshot of another topic id or configuration is
// ignored, a damaged or half-written one is never used, and the install only ever moves a shard
// forward.
import { Redis } from "ioredis";
import type { Producer } from "kafkajs";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec } from "@ladder/common/board-spec";
import { createKafka } from "@ladder/common/kafka";
import { silentLogger } from "@ladder/common/logger";
import { freshNamespace } from "@ladder/common/test-namespace";
import { builtFrom, shardStamp } from "../identity.js";
import { keyLayout } from "../keys.js";
import { chunkKey, encodeChunk, encodeManifest, manifestKey, type SnapshotManifest } from "./snapshot-format.js";
import { ensureSnapshotTopic } from "./snapshot-topic.js";
import { findSnapshots, loadSnapshot, refillFromSnapshot, takeSnapshot, type TakenSnapshot } from "./snapshot.js";

const log = silentLogger();
const kafka = createKafka(inject("kafkaBrokers"), "test-snapshots", log);
const admin = kafka.admin();
const redis = new Redis(inject("redisUrls")[0]!);
const boards = new BoardSpecs([makeBoardSpec(DEFAULT_BOARD).spec!]);
const slots = [0, 1, 2];
const STAMP = shardStamp({ shardId: "shard-s", topic: "t", numSlots: 3, slots, boards });
const FROM = builtFrom(STAMP, "topic-id-1");
let producer: Producer;
let topic: string;
let prefix: string;
let partitions: number;

beforeAll(async () => {
  await admin.connect();
  producer = kafka.producer({ maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
});
afterAll(async () => {
  await producer.disconnect();
  await admin.disconnect();
  await redis.quit();
});
beforeEach(async () => {
  const ns = freshNamespace("snap");
  topic = `${ns.topic}.snapshots`;
  prefix = ns.keyPrefix;
  partitions = (await ensureSnapshotTopic(admin, { topic })).partitions;
});

/** A shard's data as the apply script leaves it: boards, a dedup set, offsets, built-from. */
async function fill(p: string, players: number, offsets: Record<number, number>, from = FROM): Promise<void> {
  const k = keyLayout(p);
  const members: Array<string | number> = [];
  for (let i = 0; i < players; i++) members.push(i * 1000 + (i % 7), `player-${i}`);
  for (let i = 0; i < members.length; i += 20_000) await redis.zadd(k.board("global"), ...members.slice(i, i + 20_000));
  await redis.zadd(k.board("daily"), 5, "a", 7, "b");
  await redis.pexpireat(k.board("daily"), Date.now() + 3_600_000);
  await redis.zadd(k.dedup(1), 1000, "e1\nboard\nplayer-1", 1001, "e2\nboard\nplayer-2");
  await redis.hset(k.offsets, ...Object.entries(offsets).flat());
  await redis.set(k.builtFrom, from);
}

/** Everything a snapshot covers, keyed without the prefix. */
async function contents(p: string): Promise<Record<string, unknown>> {
  const k = keyLayout(p);
  const out: Record<string, unknown> = { offsets: await redis.hgetall(k.offsets), builtFrom: await redis.get(k.builtFrom) };
  for (const key of [...(await redis.keys(`${p}board:*`)), ...(await redis.keys(`${p}dedup:*`))].sort()) {
    out[key.slice(p.length)] = { members: await redis.zrange(key, "0", "-1", "WITHSCORES"), expiring: (await redis.pexpiretime(key)) > 0 };
  }
  return out;
}

const take = async (slot: "a" | "b", from = FROM): Promise<TakenSnapshot> => {
  const res = await takeSnapshot({ redis, keyPrefix: prefix, shardId: "shard-s", builtFrom: from, slots, producer, topic, partitions, slot });
  if ("skipped" in res) throw new Error(res.skipped);
  return res;
};
const source = () => ({ kafka, admin, topic });

describe("store > snapshots", () => {
  it("loads exactly what was taken, under any prefix: boards, dedup sets, expiries, offsets", async () => {
    await fill(prefix, 50_000, { 0: 100, 1: 20, 2: 5 });
    const taken = await take("a");
    expect(taken.manifest).toMatchObject({ records: 128, players: 50_002, keys: 3, offsets: { "0": "100", "1": "20", "2": "5" } });
    expect(taken.manifest.chunks.count).toBeGreaterThan(1); // 50,000 players are more than one 512 KiB chunk
    const found = await findSnapshots({ ...source(), shardId: "shard-s", builtFrom: FROM });
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
    expect(otherTopic.ignored.join("\n")).toMatch(/score topic's id \(the topic was deleted and created again\): topic-id-1 there, topic-id-2 here/);
    const otherBoards = builtFrom(shardStamp({ shardId: "shard-s", topic: "t", numSlots: 3, slots, boards: new BoardSpecs([makeBoardSpec({ ...DEFAULT_BOARD, maxPoints: 1000 }).spec!]) }), "topic-id-1");
    expect((await findSnapshots({ ...source(), shardId: "shard-s", builtFrom: otherBoards })).ignored.join("\n")).toMatch(/board specs \(LADDER_BOARDS\)/);
    expect((await findSnapshots({ ...source(), shardId: "shard-x", builtFrom: FROM })).candidates).toEqual([]);
  });

  it("never uses a damaged snapshot, and falls back to the previous one while a new one is half written", async () => {
    await fill(prefix, 2000, { 0: 10, 1: 10, 2: 10 });
    const first = await take("a");
    await redis.hset(keyLayout(prefix).offsets, "0", "50");
    const second = await take("b");
    // a third snapshot dies half-way: a chunk of slot "a" written, no manifest; the second (slot "b") is untouched
    const [dead] = await producer.send({ topic, messages: [{ key: chunkKey("shard-s", "a", 0), value: encodeChunk({ snapshotId: "dead", index: 0, count: 9 }, Buffer.from("x")), partition: first.manifest.chunks.partition }] });
    let found = await findSnapshots({ ...source(), shardId: "shard-s", builtFrom: FROM });
    expect(found.candidates.map((m) => m.snapshotId)).toEqual([second.manifest.snapshotId, first.manifest.snapshotId]);
    // once compaction keeps only the newest record of each key, the first snapshot's chunk 0 is that dead one
    const compacted: SnapshotManifest = { ...first.manifest, chunks: { ...first.manifest.chunks, firstOffset: dead!.baseOffset!, lastOffset: dead!.baseOffset!, count: 1 } };
    await expect(loadSnapshot({ ...source(), manifest: compacted, redis, targetPrefix: freshNamespace("x").keyPrefix })).rejects.toThrow(/belongs to another snapshot/);
    // a manifest whose checksum does not match its chunks
    const forged: SnapshotManifest = { ...second.manifest, snapshotId: second.manifest.snapshotId, sha256: "0".repeat(64), takenAtMs: Date.now() };
    await producer.send({ topic, messages: [{ key: manifestKey("shard-s"), value: encodeManifest(forged), partition: 0 }] });
    found = await findSnapshots({ ...source(), shardId: "shard-s", builtFrom: FROM });
    expect(found.candidates).toHaveLength(3);
    await expect(loadSnapshot({ ...source(), manifest: found.candidates[0]!, redis, targetPrefix: freshNamespace("x").keyPrefix })).rejects.toThrow(/does not match its manifest/);
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
    expect(await refillFromSnapshot({ ...source(), shardId: "shard-s", builtFrom: FROM, slots, redis, keyPrefix: ahead, log })).toEqual({ skipped: expect.stringMatching(/applied more of partition 0/) });
    // a Redis built from something else is left alone
    const drift = freshNamespace("drift").keyPrefix;
    await redis.set(keyLayout(drift).builtFrom, builtFrom(STAMP, "topic-id-0"));
    expect(await refillFromSnapshot({ ...source(), shardId: "shard-s", builtFrom: FROM, slots, redis, keyPrefix: drift, log })).toEqual({ skipped: expect.stringMatching(/built from/) });
  });
});
