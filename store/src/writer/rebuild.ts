/**
 * Rebuild of one shard from the score log.
 *
 * The log is the truth and a shard's Redis only a view of it, so a shard can always be made
 * again by replaying its partitions from offset 0 through the same apply script the shard
 * node uses (same dedup decisions: they depend only on the records). Two targets:
 *
 *   swap   the replay fills a spare database of the shard's Redis (LADDER_REBUILD_DB, 1)
 *          while the live database keeps serving. Once the replay is within `readyLag`
 *          records of the log's end, the live heartbeat is copied over and SWAPDB makes
 *          the rebuilt data live in one atomic step; readers never see a half-built
 *          board. The shard node notices the (small) difference between what it had
 *          applied and what the rebuilt data holds and applies the newest records again
 *          (see heartbeat.lua). The old data, now in the spare database, is deleted.
 *   audit  the replay fills a separate key namespace (`<prefix>audit:<view>:`) next to the
 *          live board, as of a point in time (records up to given offsets, and/or ingested
 *          before a given time); when complete the view gets a permanent heartbeat and is
 *          readable through the router with `view`.
 *
 * Replay runs the shard node's own apply loop (apply-loop.ts) with a consumer group of its
 * own (deleted afterwards), assigned the shard's slots, and fails if the apply script reports
 * a gap (only another writer on the target could cause one). Progress (records replayed,
 * rate, lag, ETA) is reported about once a second.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import type { Admin, Kafka } from "kafkajs";
import type { BoardSpecs } from "@ladder/common/board-spec";
import type { Logger } from "@ladder/common/logger";
import { auditPrefix, keyLayout } from "../keys.js";
import { startApplyLoop } from "./apply-loop.js";
import { noopEvent } from "./prepare-event.js";
import { ShardWriter } from "./shard-writer.js";

export type RebuildMode =
  | { kind: "swap"; stagingDb: number; readyLag: number }
  | { kind: "audit"; view: string; asOfOffsets: ReadonlyMap<number, bigint>; asOfTimestampMs: number };

export interface RebuildOptions {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  shardId: string;
  slots: readonly number[];
  redisUrl: string;
  keyPrefix: string;
  boards: BoardSpecs;
  applyBatch: number;
  dedupWindowMs: number;
  mode: RebuildMode;
  onProgress(p: RebuildProgress): void;
  log: Logger;
}

export interface RebuildProgress {
  shardId: string;
  done: boolean;
  replayed: number;
  perSecond: number;
  lag: number;
  etaMs: number;
}

export async function rebuildShard(o: RebuildOptions): Promise<RebuildProgress> {
  const audit = o.mode.kind === "audit";
  const targetPrefix = o.mode.kind === "audit" ? auditPrefix(o.keyPrefix, o.mode.view) : o.keyPrefix;
  const target = new Redis(o.redisUrl, { db: o.mode.kind === "swap" ? o.mode.stagingDb : 0, maxRetriesPerRequest: null });
  try {
    await unlinkPrefix(target, targetPrefix);
    const writer = new ShardWriter({ shardId: o.shardId, redis: target, keyPrefix: targetPrefix, dedupWindowMs: o.dedupWindowMs });
    const stopAt = await stopOffsets(o);
    const progress = await replay(o, writer, stopAt);
    if (o.mode.kind === "swap") await swapIn(o, target, o.mode.stagingDb);
    else await writer.heartbeat(2 ** 31 - 1); // ~25 days, renewed by any later rebuild of the view
    const done = { ...progress, done: true, lag: 0, etaMs: 0 };
    o.onProgress(done);
    o.log.info({ shardId: o.shardId, replayed: done.replayed, mode: o.mode.kind, audit }, "rebuild done");
    return done;
  } finally {
    target.disconnect();
  }
}

/** Per partition, the last offset to replay: audit cut-offs, else unbounded (-1n = none). */
async function stopOffsets(o: RebuildOptions): Promise<Map<number, bigint> | undefined> {
  if (o.mode.kind !== "audit") return undefined;
  const ends = await logEnds(o);
  return new Map(o.slots.map((p) => [p, o.mode.kind === "audit" && o.mode.asOfOffsets.has(p) ? o.mode.asOfOffsets.get(p)! : ends.get(p)! - 1n]));
}

async function logEnds(o: RebuildOptions): Promise<Map<number, bigint>> {
  return new Map((await o.admin.fetchTopicOffsets(o.topic)).map((p) => [p.partition, BigInt(p.high)]));
}

async function replay(o: RebuildOptions, writer: ShardWriter, stopAt: Map<number, bigint> | undefined): Promise<RebuildProgress> {
  const groupId = `${o.topic}.rebuild.${o.shardId}.${randomUUID()}`;
  const cutoff = o.mode.kind === "audit" && o.mode.asOfTimestampMs > 0 ? o.mode.asOfTimestampMs : Infinity;
  let replayed = 0;
  let failure: Error | undefined;
  const fail = (err: Error) => void (failure ??= err);
  const loop = await startApplyLoop({
    kafka: o.kafka, topic: o.topic, groupId, slots: o.slots, writer, boards: o.boards, chunk: o.applyBatch,
    consumer: { maxWaitTimeInMs: 100, maxBytesPerPartition: 8 * 1024 * 1024 },
    stopAt: (partition) => stopAt?.get(partition),
    filter: (event) => (event.ingestedAtMs >= cutoff ? noopEvent(event.offset) : event),
    onApplied: (_partition, _result, records) => void (replayed += records),
    onGap: (partition, result, fetchedFrom) =>
      fail(new Error(`rebuild of ${o.shardId}: partition ${partition} holds offset ${result.lastOffset} in the target, but the replay fetched from ${fetchedFrom}: something else wrote to the rebuild's target`)),
    onFatal: fail,
  });
  try {
    return await watch(o, writer, stopAt, () => replayed, () => failure);
  } finally {
    await loop.stop();
    await o.admin.deleteGroups([groupId]).catch((err: unknown) => o.log.warn({ err, groupId }, "could not delete the rebuild's consumer group"));
  }
}

/** Reports progress each second until the replay reaches its target. */
async function watch(o: RebuildOptions, writer: ShardWriter, stopAt: Map<number, bigint> | undefined, replayed: () => number, failure: () => Error | undefined): Promise<RebuildProgress> {
  let last = { at: Date.now(), replayed: 0 };
  let previousLag = Infinity;
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const failed = failure();
    if (failed) throw failed;
    const targets = stopAt ?? new Map([...(await logEnds(o))].map(([p, end]) => [p, end - 1n]));
    const applied = await writer.appliedOffsetsOf(o.slots);
    const lag = o.slots.reduce((sum, p, i) => sum + Math.max(0, Number((targets.get(p) ?? -1n) - applied[i]!)), 0);
    const now = Date.now();
    const perSecond = ((replayed() - last.replayed) * 1000) / Math.max(1, now - last.at);
    last = { at: now, replayed: replayed() };
    const progress: RebuildProgress = { shardId: o.shardId, done: false, replayed: replayed(), perSecond, lag, etaMs: perSecond > 0 ? Math.round((lag / perSecond) * 1000) : 0 };
    // swap: at the log's end, or within the ready lag once live writes keep the replay from closing in
    const reached = lag === 0 || (o.mode.kind === "swap" && lag <= o.mode.readyLag && lag >= previousLag);
    previousLag = lag;
    if (reached) return progress;
    o.onProgress(progress);
  }
}

/** Makes the spare database live: copies the heartbeat, SWAPDB, deletes the old data. */
async function swapIn(o: RebuildOptions, staging: Redis, stagingDb: number): Promise<void> {
  const live = new Redis(o.redisUrl, { db: 0, maxRetriesPerRequest: null });
  try {
    const heartbeat = keyLayout(o.keyPrefix).heartbeat;
    const ttl = await live.pttl(heartbeat);
    if (ttl > 0) await staging.set(heartbeat, o.shardId, "PX", ttl);
    await live.swapdb(0, stagingDb);
    o.log.info({ shardId: o.shardId }, "rebuilt data swapped in");
    await moveViewsBack(staging, o.keyPrefix); // audit views belong with the live data
    await unlinkPrefix(staging, o.keyPrefix); // the old data, now in the spare database
  } finally {
    live.disconnect();
  }
}

/** Moves the audit views' keys from the spare database back to database 0. */
async function moveViewsBack(staging: Redis, prefix: string): Promise<void> {
  await forEachKey(staging, auditPrefix(prefix, ""), async (keys) => {
    for (const key of keys) await staging.move(key, 0);
  });
}

/** Deletes every key under `prefix` in the connection's database. */
async function unlinkPrefix(redis: Redis, prefix: string): Promise<void> {
  await forEachKey(redis, prefix, async (keys) => void (await redis.unlink(...keys)));
}

/** Calls `fn` with each non-empty SCAN page of the keys under `prefix`. */
async function forEachKey(redis: Redis, prefix: string, fn: (keys: string[]) => Promise<void>): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`, "COUNT", 1000);
    cursor = next;
    if (keys.length) await fn(keys);
  } while (cursor !== "0");
}
