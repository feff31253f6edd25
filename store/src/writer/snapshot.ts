/**
 * Snapshots: a rebuild, or a shard whose Redis lost its data, starts from a recent copy of the
 * shard and replays only the log after it, so its time is bounded by the number of players,
 * not by the length of the history.
 *
 * What. A snapshot is everything a shard's Redis holds that the log made: every board, every
 * dedup set (the event ids applied within the dedup window, per partition: without them a
 * retry after the snapshot, of an update applied before it, would count twice in the replayed
 * tail), the applied offset of each partition, and the built-from value (identity.ts) — all as
 * of ONE atomic point for the whole shard. Heartbeat, rebuild lease and audit views are not in
 * it: they are not the log's state.
 *
 * Where. In Kafka, the cluster's only durable store (Redis is a view; its RDB or AOF lives on
 * the Redis host and is lost with it): the compacted topic "<score topic>.snapshots"
 * (snapshot-topic.ts). Each snapshot is a body (its keys, each as Redis's DUMP serialization
 * with its absolute expiry: snapshot-format.ts) cut in chunks of 512 KiB, half of Kafka's
 * default message limit, then a manifest naming it: snapshot id, offsets, built-from, chunk
 * count and location, the body's size and SHA-256. Chunk keys alternate between two slots per
 * shard ("<shard>|a|<i>", "<shard>|b|<i>") and the manifest ("<shard>") is written only once
 * every chunk is acknowledged: a snapshot being written never overwrites the chunks of the
 * latest complete one, so a node that dies while writing leaves the previous snapshot usable,
 * and compaction drops the chunks of the one before.
 *
 * Taking one (the shard node, only while it serves: its Redis is then complete up to its
 * offsets; snapshot scheduling is in shard-node/src/snapshots.ts). One MULTI/EXEC reads the
 * offsets, the built-from value, the list of board and dedup keys and the DUMP of each key:
 * one atomic point, taken without stopping the applier, whose scripts simply wait behind the
 * EXEC like any other command. EXEC blocks the shard's Redis for the DUMPs, reads included: a
 * DUMP of a board of a million players takes 0.43 s here, and the whole EXEC of such a shard took
 * 0.92 s as the node saw it, its 28 MB reply included (loadtest/results/snapshot-bench.md). The
 * key list is read once before the MULTI and again inside it; if a key appeared or went in between
 * (a new board), the freeze is retried. The DUMPs, frozen in the node's memory (about 28 bytes per
 * player), are then streamed to Kafka at leisure. Alternatives considered: COPY into
 * a scratch database blocks Redis longer (1.8 s per million, measured) and still has to be read
 * out; reading the live keys in chunks with the applier paused is consistent only if nothing
 * else writes (a rebuild's SWAPDB does), and pauses the applier for as long as the read.
 *
 * Which one is used. A reader scans the manifest partition and keeps the manifests of its shard
 * whose built-from equals its own (the same stamp, so the same topic, slots and board specs, and
 * the same Kafka topic id): a snapshot of a score topic that was deleted and created again, or
 * of another configuration, is never loaded (it is logged as ignored). The newest is tried
 * first, then older ones still in the partition; a snapshot is used only when every chunk is
 * there in order, carries its snapshot id, and the body's SHA-256 matches. Otherwise nothing is
 * loaded and the shard is replayed from offset 0, as without snapshots.
 *
 * Loading one. The snapshot is the state after applying the log up to its offsets, so loading it
 * and replaying the records after them through the apply loop gives the state a full replay
 * gives (dedup decisions included: they depend only on the records and the dedup sets).
 *   - a rebuild (swap mode, rebuild.ts) RESTOREs the keys into the spare database it fills,
 *     sets the offsets, and replays from there; readers keep the old board until the SWAPDB.
 *   - a shard node whose Redis is empty at start, or lost its data (readiness.ts, LOST), or is
 *     behind the snapshot by more records than the snapshot has players, RESTOREs the keys
 *     under a temporary prefix of the live database while the live data stays as it is, then
 *     makes them live in one atomic script (snapshot-install.lua: RENAMEs, offsets, built-from)
 *     only if that moves no partition backwards; its applier is paused meanwhile and then
 *     fetches from the snapshot's offsets. The shard refuses reads throughout: the node's
 *     catch-up rule (serve only once at the log's end as of when catching up began) holds for
 *     the loaded state plus the tail as for a replay.
 *   - audit views always replay from offset 0: a snapshot holds the present, not the past.
 *
 * Limits. RESTORE takes what DUMP made by the same or an older Redis (a snapshot taken on a newer
 * Redis than the one loading it is refused by Redis, and the shard is replayed instead). One key's
 * DUMP must fit Redis's proto-max-bulk-len (512 MB by default: about 23 million players on one
 * board of one shard). A board's expiry is kept as an absolute time.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Admin, Kafka, Producer } from "kafkajs";
import type { Redis } from "ioredis";
import type { Logger } from "@ladder/common/logger";
import { topicOffsets } from "@ladder/common/kafka";
import { explainMismatch } from "../identity.js";
import { keyLayout, snapshotLoadPrefix } from "../keys.js";
import { InstallStatus, withSnapshotScripts } from "../scripts.js";
import { globEscape, listKeys, unlinkPrefix } from "./key-scan.js";
import {
  BodyDecoder, CHUNK_BYTES, SNAPSHOT_FORMAT, chunkKey, chunkPartition, decodeChunk, decodeManifest, encodeBody, encodeChunk, encodeManifest, manifestKey, manifestOffsets,
  type ChunkSlot, type SnapshotEntry, type SnapshotManifest,
} from "./snapshot-format.js";
import { readRange, snapshotTopicPartitions } from "./snapshot-topic.js";

/** A snapshot could not be used (missing or overwritten chunks, wrong checksum): replay instead. */
export class SnapshotUnusable extends Error {
  override readonly name = "SnapshotUnusable";
}

/** Where snapshots are: the Kafka client, an admin, and the snapshot topic. */
export interface SnapshotSource {
  kafka: Kafka;
  admin: Admin;
  topic: string;
}

// ---------------------------------------------------------------------------------------------
// Taking a snapshot

export interface TakeSnapshotOptions {
  /** The shard's live database. */
  redis: Redis;
  keyPrefix: string;
  shardId: string;
  builtFrom: string;
  slots: readonly number[];
  producer: Producer;
  topic: string;
  /** Partitions of the snapshot topic. */
  partitions: number;
  /** The chunk slot to write: not the latest complete snapshot's. */
  slot: ChunkSlot;
  /** Chunks the slot held before (its last snapshot's count): those past this one's count are deleted (tombstones). */
  staleChunks?: number;
  /** Skip unless every partition has applied at least this much (the previous snapshot's offsets). */
  notBefore?: ReadonlyMap<number, bigint>;
  signal?: AbortSignal;
}

export interface TakenSnapshot {
  manifest: SnapshotManifest;
  /** How long Redis was blocked (the MULTI/EXEC), and how long writing to Kafka took. */
  freezeMs: number;
  publishMs: number;
}

/** Takes a snapshot of the shard and writes it to the snapshot topic; or says why it did not. */
export async function takeSnapshot(o: TakeSnapshotOptions): Promise<TakenSnapshot | { skipped: string }> {
  const frozen = await freeze(o.redis, o.keyPrefix);
  const freezeMs = frozen.execMs;
  if (frozen.builtFrom !== o.builtFrom) return { skipped: `the shard's Redis is built from "${frozen.builtFrom ?? "nothing"}", not "${o.builtFrom}"` };
  const offsets: Record<string, string> = {};
  let records = 0;
  for (const p of o.slots) {
    const offset = BigInt(frozen.offsets[String(p)] ?? "-1");
    if (offset < (o.notBefore?.get(p) ?? -1n)) return { skipped: `partition ${p} is at offset ${offset}, behind the latest snapshot (${o.notBefore!.get(p)})` };
    offsets[String(p)] = offset.toString();
    records += Number(offset + 1n);
  }
  if (records === 0) return { skipped: "nothing applied yet" };
  o.signal?.throwIfAborted();

  const snapshotId = `${Date.now()}-${randomBytes(4).toString("hex")}`;
  const bytes = frozen.entries.reduce((sum, e) => sum + 2 + Buffer.byteLength(e.name, "utf8") + 12 + e.value.length, 0);
  const count = Math.ceil(bytes / CHUNK_BYTES);
  const partition = chunkPartition(o.shardId, o.partitions);
  const hash = createHash("sha256");
  const publishStart = performance.now();
  let firstOffset = "0";
  let lastOffset = "0";
  let index = 0;
  for (const slice of encodeBody(frozen.entries, hash)) {
    o.signal?.throwIfAborted();
    const [meta] = await o.producer.send({ topic: o.topic, acks: -1, messages: [{ key: chunkKey(o.shardId, o.slot, index), value: encodeChunk({ snapshotId, index, count }, slice), partition }] });
    if (index === 0) firstOffset = meta!.baseOffset!;
    lastOffset = meta!.baseOffset!;
    index++;
  }
  if (index !== count) throw new Error(`snapshot ${snapshotId}: wrote ${index} chunks, expected ${count}`);
  const manifest: SnapshotManifest = {
    format: SNAPSHOT_FORMAT, shardId: o.shardId, snapshotId, builtFrom: o.builtFrom, takenAtMs: Date.now(), offsets, records, players: frozen.players,
    keys: frozen.entries.length, bytes, sha256: hash.digest("hex"), chunks: { slot: o.slot, partition, count, firstOffset, lastOffset },
  };
  o.signal?.throwIfAborted();
  await o.producer.send({ topic: o.topic, acks: -1, messages: [{ key: manifestKey(o.shardId), value: encodeManifest(manifest), partition: 0 }] });
  if ((o.staleChunks ?? 0) > count) {
    const stale = Array.from({ length: o.staleChunks! - count }, (_, i) => ({ key: chunkKey(o.shardId, o.slot, count + i), value: null, partition }));
    await o.producer.send({ topic: o.topic, acks: -1, messages: stale });
  }
  const publishMs = performance.now() - publishStart;
  return { manifest, freezeMs, publishMs };
}

interface Frozen {
  builtFrom: string | null;
  offsets: Record<string, string>;
  entries: SnapshotEntry[];
  players: number;
  /** How long the MULTI/EXEC took (Redis blocked for most of it). */
  execMs: number;
}

/** Reads the shard's keys, offsets and built-from in one MULTI/EXEC (see the top of this file). */
async function freeze(redis: Redis, keyPrefix: string): Promise<Frozen> {
  const keys = keyLayout(keyPrefix);
  const prefixes = [keys.board(""), `${keyPrefix}dedup:`];
  const patterns = prefixes.map((p) => `${globEscape(p)}*`);
  for (let attempt = 1; attempt <= 5; attempt++) {
    const listed = (await Promise.all(prefixes.map((p) => listKeys(redis, p)))).flat().sort();
    const multi = redis.multi().get(keys.builtFrom).hgetall(keys.offsets);
    for (const p of patterns) multi.keys(p);
    for (const k of listed) multi.dumpBuffer(k).pexpiretime(k).zcard(k);
    const t0 = performance.now();
    const replies = await multi.exec();
    const execMs = performance.now() - t0;
    if (!replies) throw new Error("the snapshot's MULTI was aborted");
    const value = (i: number) => {
      const [err, v] = replies[i]!;
      if (err && !/WRONGTYPE/.test(err.message)) throw err;
      return err ? undefined : v;
    };
    const inside = [...(value(2) as string[]), ...(value(3) as string[])].sort();
    if (inside.length !== listed.length || inside.some((k, i) => k !== listed[i])) continue; // a key came or went: again
    const entries: SnapshotEntry[] = [];
    let players = 0;
    listed.forEach((k, i) => {
      const at = 4 + i * 3;
      const dump = value(at) as Buffer | null;
      if (dump === null) throw new Error(`${k} vanished inside the snapshot's MULTI`);
      const expireAt = Number(value(at + 1));
      entries.push({ name: k.slice(keyPrefix.length), expireAtMs: expireAt > 0 ? expireAt : -1, value: dump });
      if (k.startsWith(keys.board(""))) players += Number(value(at + 2) ?? 0);
    });
    return { builtFrom: value(0) as string | null, offsets: value(1) as Record<string, string>, entries, players, execMs };
  }
  throw new Error("the shard's keys kept changing while taking a snapshot");
}

// ---------------------------------------------------------------------------------------------
// Finding and loading one

export interface SnapshotCandidates {
  /** Manifests of this shard built from the reader's built-from value, newest first. */
  candidates: SnapshotManifest[];
  /** Manifests of this shard that were ignored, and why. */
  ignored: string[];
  /** The chunk slot of the newest manifest of this shard, whoever wrote it. */
  newestSlot?: ChunkSlot;
}

/** The usable manifests of `shardId` in the snapshot topic (none when the topic does not exist). */
export async function findSnapshots(s: SnapshotSource & { shardId: string; builtFrom: string; signal?: AbortSignal }): Promise<SnapshotCandidates> {
  const out: SnapshotCandidates = { candidates: [], ignored: [] };
  if ((await snapshotTopicPartitions(s.admin, s.topic)) === undefined) return out;
  const { low, high } = (await topicOffsets(s.admin, s.topic)).find((p) => p.partition === 0)!;
  if (high <= low) return out;
  const key = manifestKey(s.shardId);
  await readRange({
    kafka: s.kafka, admin: s.admin, topic: s.topic, partition: 0, from: low, until: high - 1n, signal: s.signal,
    onRecord(m) {
      if (m.key?.toString("utf8") !== key || m.value === null) return;
      const decoded = decodeManifest(m.value);
      if ("problem" in decoded) return void out.ignored.push(`manifest at offset ${m.offset}: ${decoded.problem}`);
      const manifest = decoded.manifest;
      out.newestSlot = manifest.chunks.slot;
      if (manifest.shardId !== s.shardId) return void out.ignored.push(`snapshot ${manifest.snapshotId}: of ${manifest.shardId}, not ${s.shardId}`);
      if (manifest.builtFrom !== s.builtFrom) return void out.ignored.push(`snapshot ${manifest.snapshotId}: built from something else: ${explainMismatch(s.builtFrom, manifest.builtFrom)}`);
      out.candidates.unshift(manifest);
    },
  });
  return out;
}

export interface LoadedSnapshot {
  /** The keys restored (names without prefix), and whether each has an expiry. */
  names: Array<{ name: string; expiring: boolean }>;
  ms: number;
}

/**
 * Reads the snapshot's chunks and RESTOREs its keys under `targetPrefix` on `redis` (replacing
 * keys of the same names). Throws SnapshotUnusable when a chunk is missing or overwritten or
 * the body's checksum differs; the keys restored so far are left for the caller to delete.
 */
export async function loadSnapshot(s: SnapshotSource & { manifest: SnapshotManifest; redis: Redis; targetPrefix: string; signal?: AbortSignal }): Promise<LoadedSnapshot> {
  const started = performance.now();
  const m = s.manifest;
  const decoder = new BodyDecoder();
  const names: LoadedSnapshot["names"] = [];
  let next = 0;
  const restore = async (e: SnapshotEntry) => {
    const key = s.targetPrefix + e.name;
    try {
      if (e.expireAtMs >= 0) await s.redis.restore(key, e.expireAtMs, e.value, "REPLACE", "ABSTTL");
      else await s.redis.restore(key, 0, e.value, "REPLACE");
    } catch (err) {
      // e.g. a snapshot taken on a newer Redis: "DUMP payload version or checksum are wrong"
      if ((err as Error).name === "ReplyError") throw new SnapshotUnusable(`snapshot ${m.snapshotId}: Redis refused to RESTORE ${e.name}: ${(err as Error).message}`);
      throw err;
    }
    names.push({ name: e.name, expiring: e.expireAtMs >= 0 });
  };
  if (m.chunks.count > 0) {
    await readRange({
      kafka: s.kafka, admin: s.admin, topic: s.topic, partition: m.chunks.partition, from: BigInt(m.chunks.firstOffset), until: BigInt(m.chunks.lastOffset), signal: s.signal,
      async onRecord(record) {
        const key = record.key?.toString("utf8") ?? "";
        if (!key.startsWith(`${m.shardId}|${m.chunks.slot}|`)) return; // another shard's, or the other slot's
        const chunk = decodeChunk(record.value);
        if (!chunk || chunk.header.snapshotId !== m.snapshotId) throw new SnapshotUnusable(`snapshot ${m.snapshotId}: chunk record ${key} at offset ${record.offset} belongs to another snapshot (overwritten)`);
        if (chunk.header.index < next) return; // written twice (a producer retry): the same bytes again
        if (chunk.header.index !== next) throw new SnapshotUnusable(`snapshot ${m.snapshotId}: chunk ${next} is missing (overwritten by a later snapshot?)`);
        next++;
        for (const e of decoder.push(chunk.slice)) await restore(e);
      },
    });
  }
  if (next !== m.chunks.count) throw new SnapshotUnusable(`snapshot ${m.snapshotId}: found ${next} of its ${m.chunks.count} chunks`);
  let sha: string;
  try {
    sha = decoder.finish();
  } catch (err) {
    throw new SnapshotUnusable(`snapshot ${m.snapshotId}: ${(err as Error).message}`);
  }
  if (sha !== m.sha256 || decoder.bytes !== m.bytes) throw new SnapshotUnusable(`snapshot ${m.snapshotId}: its body does not match its manifest (SHA-256 or size)`);
  return { names, ms: performance.now() - started };
}

// ---------------------------------------------------------------------------------------------
// Refilling a shard node's live database

export interface RefillOptions extends SnapshotSource {
  shardId: string;
  builtFrom: string;
  slots: readonly number[];
  /** The shard's live database. */
  redis: Redis;
  keyPrefix: string;
  log: Logger;
  signal?: AbortSignal;
  /** Candidates already found (findSnapshots); found here when absent. */
  found?: SnapshotCandidates;
  /** Called when a snapshot is about to be loaded (it is ahead enough of what Redis holds). */
  onLoading?(m: SnapshotManifest): void;
}

export type RefillResult = { installed: SnapshotManifest; offsets: Map<number, bigint>; ms: number } | { skipped: string };

/**
 * Why loading snapshot `m` into a Redis that has applied `applied` (per partition of `slots`,
 * -1 for none) is not worth it, or undefined when it is: it must not move any partition
 * backwards, and must be ahead by more records than it has players (loading costs about what
 * replaying that many records does), unless Redis holds nothing at all.
 */
export function notWorthLoading(m: SnapshotManifest, slots: readonly number[], applied: readonly bigint[]): string | undefined {
  const snap = manifestOffsets(m);
  const ahead = slots.findIndex((p, i) => applied[i]! > (snap.get(p) ?? -1n));
  if (ahead >= 0) return `Redis has applied more of partition ${slots[ahead]} than snapshot ${m.snapshotId}`;
  const gain = slots.reduce((sum, p, i) => sum + Number((snap.get(p) ?? -1n) - applied[i]!), 0);
  const empty = applied.every((a) => a < 0n);
  if (gain === 0 || (!empty && gain < m.players)) return `snapshot ${m.snapshotId} is only ${gain} records ahead of Redis (replaying them is cheaper than loading ${m.players} players)`;
  return undefined;
}

/**
 * Loads the newest usable snapshot into the shard's live database when it is ahead of what
 * the database holds (see the top of this file: when, and how atomically), or says why not.
 * The caller keeps its applier from writing meanwhile, and afterwards fetches each partition
 * from the installed offsets.
 */
export async function refillFromSnapshot(o: RefillOptions): Promise<RefillResult> {
  const started = performance.now();
  const found = o.found ?? (await findSnapshots({ ...o }));
  for (const why of found.ignored) o.log.warn({ shardId: o.shardId }, `snapshot ignored: ${why}`);
  const keys = keyLayout(o.keyPrefix);
  const redis = withSnapshotScripts(o.redis);
  let why = "no snapshot of this shard built from this configuration";
  for (const m of found.candidates) {
    const snap = manifestOffsets(m);
    const notWorth = notWorthLoading(m, o.slots, await appliedOffsets(o.redis, keys.offsets, o.slots));
    if (notWorth) return { skipped: notWorth };
    await unlinkPrefix(o.redis, snapshotLoadPrefix(o.keyPrefix, "")); // what a load interrupted by a crash left
    const temp = snapshotLoadPrefix(o.keyPrefix, m.snapshotId);
    o.onLoading?.(m);
    try {
      const loaded = await loadSnapshot({ ...o, manifest: m, targetPrefix: temp });
      const args: Array<string | number> = [m.builtFrom, o.keyPrefix, globEscape(o.keyPrefix), temp, snap.size];
      for (const [p, offset] of snap) args.push(p, offset.toString());
      args.push(loaded.names.length);
      for (const n of loaded.names) args.push(n.name, n.expiring ? 1 : 0);
      const [status, a, b] = await redis.ladderSnapshotInstall(keys.offsets, keys.builtFrom, ...args);
      switch (Number(status)) {
        case InstallStatus.OK:
          return { installed: m, offsets: snap, ms: performance.now() - started };
        case InstallStatus.DRIFT:
          return { skipped: `the live data is built from "${a}"` };
        case InstallStatus.AHEAD:
          return { skipped: `Redis applied partition ${a} up to ${b} while the snapshot loaded, past the snapshot` };
        default:
          why = `the loaded key ${a} disappeared before it could be installed`;
      }
    } catch (err) {
      if (o.signal?.aborted || !(err instanceof SnapshotUnusable)) throw err;
      why = (err as Error).message;
      o.log.warn({ shardId: o.shardId, snapshot: m.snapshotId, why }, "snapshot not usable; trying an older one, or the log");
    } finally {
      await unlinkPrefix(o.redis, temp).catch(() => {}); // nothing left after an install; the partial load otherwise
    }
  }
  return { skipped: why };
}

/** The applied offset of each of `slots` in the offsets hash (-1 where none). */
export async function appliedOffsets(redis: Redis, offsetsKey: string, slots: readonly number[]): Promise<bigint[]> {
  return (await redis.hmget(offsetsKey, ...slots.map(String))).map((v) => (v === null ? -1n : BigInt(v)));
}
