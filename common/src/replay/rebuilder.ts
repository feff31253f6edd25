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
 * Replay reads with a consumer group of its own (deleted afterwards), assigned the shard's
 * slots. Progress (records replayed, rate, lag, ETA) is reported about once a second.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import type { Admin, EachBatchPayload, Kafka } from "kafkajs";
import type { BoardSpecs } from "../board-spec.js";
import type { Logger } from "../logger.js";
import { auditPrefix } from "../shard-store/keys.js";
import { ShardStore } from "../shard-store/shard-store.js";
import { noopEvent, prepareEvent } from "./prepare-event.js";
import { slotAssigner } from "./slot-assigner.js";

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
    const store = new ShardStore(o.shardId, target, targetPrefix, o.dedupWindowMs);
    const stopAt = await stopOffsets(o);
    const progress = await replay(o, store, stopAt);
    if (o.mode.kind === "swap") await swapIn(o, target, o.mode.stagingDb);
    else await store.heartbeat(2 ** 31 - 1); // ~25 days, renewed by any later rebuild of the view
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

async function replay(o: RebuildOptions, store: ShardStore, stopAt: Map<number, bigint> | undefined): Promise<RebuildProgress> {
  const groupId = `${o.topic}.rebuild.${o.shardId}.${randomUUID()}`;
  const consumer = o.kafka.consumer({ groupId, partitionAssigners: [slotAssigner(o.slots)], maxWaitTimeInMs: 100, maxBytesPerPartition: 8 * 1024 * 1024 });
  const cutoff = o.mode.kind === "audit" && o.mode.asOfTimestampMs > 0 ? o.mode.asOfTimestampMs : Infinity;
  let replayed = 0;
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [o.topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: Math.min(4, Math.max(1, o.slots.length)),
      eachBatch: async (payload) => {
        const n = await applyBatch(payload, store, o, stopAt?.get(payload.batch.partition), cutoff);
        replayed += n; // after the await: partitions run concurrently
      },
    });
    return await watch(o, store, stopAt, () => replayed);
  } finally {
    await consumer.disconnect();
    await o.admin.deleteGroups([groupId]).catch((err: unknown) => o.log.warn({ err, groupId }, "could not delete the rebuild's consumer group"));
  }
}

async function applyBatch(payload: EachBatchPayload, store: ShardStore, o: RebuildOptions, stop: bigint | undefined, cutoff: number): Promise<number> {
  const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
  let count = 0;
  for (let i = 0; i < batch.messages.length; i += o.applyBatch) {
    if (!isRunning() || isStale()) break;
    const messages = batch.messages.slice(i, i + o.applyBatch).filter((m) => stop === undefined || BigInt(m.offset) <= stop);
    if (messages.length === 0) break;
    const events = messages.map((m) => {
      const { event } = prepareEvent(m.value, BigInt(m.offset), o.boards);
      return event.ingestedAtMs >= cutoff ? noopEvent(event.offset) : event;
    });
    await store.apply(batch.partition, events);
    count += events.length;
    resolveOffset(messages[messages.length - 1]!.offset);
    await heartbeat();
  }
  return count;
}

/** Reports progress each second until the replay reaches its target. */
async function watch(o: RebuildOptions, store: ShardStore, stopAt: Map<number, bigint> | undefined, replayed: () => number): Promise<RebuildProgress> {
  let last = { at: Date.now(), replayed: 0 };
  let previousLag = Infinity;
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const targets = stopAt ?? new Map([...(await logEnds(o))].map(([p, end]) => [p, end - 1n]));
    const applied = await store.appliedOffsetsOf(o.slots);
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
    const heartbeat = `${o.keyPrefix}heartbeat`;
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
