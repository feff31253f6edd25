/**
 * One run of a shard node over one slot set: the build check, the writer, snapshots, the
 * applier and the heartbeat, all for the slots the placement gives the shard (placement-log.ts).
 * A node keeps one run while its slots stay the same, and replaces it when a new placement
 * changes them (main.ts): the old run stops (its heartbeat is cleared: reads are refused), the
 * new one waits until the shard's Redis holds data built for the new slots (AdminService.Reshard
 * swaps in a database rebuilt for them, or moves its slots in place: store/src/writer/move.ts) and
 * starts from the offsets stored there. A run also deletes what a move in place left to delete.
 */
import type { Redis } from "ioredis";
import type { Config } from "@ladder/platform/config";
import type { TopicIds } from "@ladder/log/topic-ids";
import type { LogClient } from "@ladder/log/log-client";
import type { Logger } from "@ladder/platform/logger";
import { shardStamp } from "@ladder/store";
import { inspectShard, ShardWriter, startMoveDrainer } from "@ladder/store/writer";
import { startApplier } from "./applier.js";
import { BuildMismatch, checkBuild, topicProblem } from "./build-check.js";
import type { ShardMetrics } from "./metrics.js";
import { startReadiness, type Readiness } from "./readiness.js";
import { openSnapshots } from "./snapshots.js";

export interface ShardRunOptions {
  config: Config;
  shardId: string;
  slots: readonly number[];
  redis: Redis;
  logClient: LogClient;
  topicIds: TopicIds;
  metrics: ShardMetrics;
  log: Logger;
  /** How long to wait for the Redis to hold data built for these slots (a reshard's swap) before refusing; 0: refuse at once. */
  waitForBuildMs: number;
  /** An earlier run of this process checked the score topic (build-check.ts): only its id is asked again. */
  topicChecked: boolean;
  /** The Redis (or the log) is not what this run was built from, while running: stop it and decide (main.ts). */
  onDrift(problem: string): void;
  /** The applier failed for good. */
  onFatal(err: Error): void;
}

export interface ShardRun {
  readonly slots: readonly number[];
  readonly stamp: string;
  /** Stops everything this run started; its heartbeat is cleared. */
  stop(): Promise<void>;
}

const BUILD_POLL_MS = 200;
/**
 * The move drainer rests while the applier's records wait longer than this to be applied: a quarter
 * of ingest's default bound on that wait (LADDER_INGEST_MAX_LAG_MS, 250 ms), so the drain gives way
 * before ingest starts refusing writes (ingest/src/lag-admission.ts), and stays out of the way of a
 * shard that keeps up.
 */
const DRAIN_BACKLOG_MS = 60;

/** Starts a run; rejects with BuildMismatch when the Redis is built for something else (after `waitForBuildMs`). */
export async function startShardRun(o: ShardRunOptions): Promise<ShardRun> {
  const { config, shardId, slots, redis, logClient, log, metrics } = o;
  const stamp = shardStamp({
    shardId,
    topic: config.scoreTopic,
    numSlots: config.numSlots,
    slots,
    boards: config.boards,
    recordCountBuckets: config.recordCountBuckets,
  });
  const t0 = performance.now();
  const build = await checkBuildWaiting(o, stamp);
  const tBuild = performance.now();
  const writer = new ShardWriter({
    shardId,
    stamp,
    builtFrom: build.builtFrom,
    redis,
    keyPrefix: config.keyPrefix,
    dedupWindowMs: config.dedupWindowMs,
  });
  if (build.record) await writer.recordBuiltFrom();
  let readiness: Readiness | undefined;
  const snapshots = config.snapshots
    ? await openSnapshots({
        logClient,
        writer,
        redis,
        shardId,
        slots,
        keyPrefix: config.keyPrefix,
        builtFrom: build.builtFrom,
        scoreTopic: config.scoreTopic,
        replication: config.topicReplication,
        minInsyncReplicas: config.topicMinInsync,
        everyRecords: config.snapshotRecords,
        minIntervalMs: config.snapshotMinIntervalMs,
        maxLag: config.maxLag,
        heartbeatTtlMs: config.heartbeatTtlMs,
        log: log.child({ component: "snapshots" }),
        metrics,
      })
    : undefined;
  const installed = await snapshots?.refillAtStart(); // Redis empty, or far behind the newest snapshot
  const known = await writer.appliedOffsets(); // a loaded snapshot's included
  const tSnapshots = performance.now();
  const applier = await startApplier({
    logClient,
    topic: config.scoreTopic,
    shardId,
    slots,
    writer,
    boards: config.boards,
    applyBatch: config.applyBatch,
    fetchWaitMs: config.fetchWaitMs,
    known,
    startAfter: new Map(slots.map((p) => [p, installed?.get(p) ?? known.get(p) ?? -1n])),
    metrics,
    log: log.child({ component: "applier" }),
    onRewind: (partition) => {
      readiness?.fallBehind(`a rewind of partition ${partition}`);
      snapshots?.refill(`a rewind of partition ${partition}`); // Redis behind the records fetched: it may have lost data
    },
    onDrift: (builtFrom) => o.onDrift(`the apply script found this shard's Redis built from "${builtFrom}", not "${build.builtFrom}"`),
    onFatal: o.onFatal,
  });
  const tApplier = performance.now();
  readiness = startReadiness({
    writer,
    logClient,
    topic: config.scoreTopic,
    slots,
    applier,
    ttlMs: config.heartbeatTtlMs,
    stallMs: config.stallMs,
    maxLag: config.maxLag,
    maxLagMs: config.maxLagMs,
    verifySource: () => topicProblem(o.topicIds, config.scoreTopic, build.builtFrom),
    onDrift: o.onDrift,
    onLost: () => snapshots?.refill("Redis lost data"),
    log: log.child({ component: "readiness" }),
    metrics,
  });
  snapshots?.run({ applier, serving: () => readiness!.serving, lag: () => readiness!.lag });
  // a move of this shard's slots in place (store/src/writer/move.ts), once cut over or given up: its
  // departed players, or its arrivals, are deleted here, page by page, while reads go on, giving way
  // while the applier is behind: its records wait longer than DRAIN_BACKLOG_MS, or more than an apply
  // call's worth of them waits (at the last heartbeat)
  const drainer = startMoveDrainer(
    redis,
    config.keyPrefix,
    log.child({ component: "move-drain" }),
    config.numSlots,
    () => applier.applyDelayMs > DRAIN_BACKLOG_MS || readiness!.lag > config.applyBatch,
  );
  const ms = { build: tBuild - t0, snapshots: tSnapshots - tBuild, applier: tApplier - tSnapshots };
  log.info({ shardId, slots, stamp, ms: Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Math.round(v)])) }, "shard run started");
  return {
    slots,
    stamp,
    async stop() {
      await drainer.stop();
      await readiness!.stop();
      await snapshots?.stop();
      await applier.stop();
      log.info({ stats: applier.stats, slots }, "shard run stopped");
    },
  };
}

/** The build check, retried while the Redis is built for other slots, for up to `waitForBuildMs` (a swap is coming). */
async function checkBuildWaiting(o: ShardRunOptions, stamp: string): Promise<{ builtFrom: string; record: boolean }> {
  const deadline = Date.now() + o.waitForBuildMs;
  let said = false;
  for (;;) {
    try {
      return await checkBuild({
        logClient: o.logClient,
        topicIds: o.topicIds,
        shardId: o.shardId,
        stamp,
        state: await inspectShard(o.redis, o.config.keyPrefix),
        topicChecked: o.topicChecked,
        log: o.log,
        policy: {
          topic: o.config.scoreTopic,
          numSlots: o.config.numSlots,
          replication: o.config.topicReplication,
          minInsyncReplicas: o.config.topicMinInsync,
        },
      });
    } catch (err) {
      if (!(err instanceof BuildMismatch) || Date.now() >= deadline) throw err;
      if (!said)
        o.log.info({ slots: o.slots }, "waiting for this shard's Redis to hold data built for its new slots (a reshard swaps it in)");
      said = true;
      await new Promise((r) => setTimeout(r, BUILD_POLL_MS));
    }
  }
}
