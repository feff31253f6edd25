/**
 * Shard node: applies the score log's partitions of its slots to its Redis.
 * Wiring only: config, logger, Kafka, Redis, build check, writer, applier, heartbeat, signals.
 */
import { loadConfig } from "@ladder/common/config";
import { createKafka, TopicIds } from "@ladder/common/kafka";
import { redactUrl, rootLogger } from "@ladder/common/logger";
import { startMetricsServer } from "@ladder/common/metrics";
import { buildPlacement } from "@ladder/common/placement";
import { onShutdown } from "@ladder/common/shutdown";
import { openRedis, shardStamp } from "@ladder/store";
import { inspectShard, ShardWriter } from "@ladder/store/writer";
import { startApplier } from "./applier.js";
import { BuildMismatch, checkBuild, topicProblem } from "./build-check.js";
import { startReadiness, type Readiness } from "./readiness.js";
import { openSnapshots } from "./snapshots.js";
import { ShardMetrics } from "./metrics.js";

/** Exit status of a node that refuses its configuration (sysexits EX_CONFIG): restarting won't help. */
const EX_CONFIG = 78;

const config = loadConfig(process.env);
if (!config.shardId) throw new Error("LADDER_SHARD_ID is required for a shard node");
const shardId = config.shardId;
const log = rootLogger({ level: config.logLevel, name: `shard-node:${shardId}` });
const metrics = new ShardMetrics(shardId);
const metricsServer = await startMetricsServer({ listen: config.shardMetricsListen, log }); // GET /metrics, from the start
const shard = config.shards.find((s) => s.id === shardId)!;
const slots = buildPlacement(config.shards.map((s) => s.id), config.numSlots).slotsOf.get(shardId) ?? [];
const refuse = (message: string): never => {
  log.fatal({ shardId }, message);
  process.exit(EX_CONFIG);
};

// Waits out Redis restarts; for a sentinel:// shard, follows its primary through a failover. After a
// failover the promoted replica may lack the last writes applied to the old primary (replication is
// asynchronous): the heartbeat finds it holding less than was applied and the node replays from the
// log, refusing reads meanwhile (readiness.ts, "lost data").
const redis = openRedis(shard.redisUrl, { lazyConnect: true, maxRetriesPerRequest: null });
redis.on("error", (err: Error) => log.warn({ err: err.message }, "redis connection error"));
await redis.connect();
const kafka = createKafka(config.kafkaBrokers, `ladder-shard-${shardId}`, log.child({ component: "kafka" }));
const topicIds = new TopicIds(config.kafkaBrokers, `ladder-shard-${shardId}-ids`);
const stamp = shardStamp({ shardId, topic: config.scoreTopic, numSlots: config.numSlots, slots, boards: config.boards });
const build = await checkBuild({
  kafka, topicIds, shardId, stamp, state: await inspectShard(redis, config.keyPrefix), log,
  policy: { topic: config.scoreTopic, numSlots: config.numSlots, replication: config.topicReplication, minInsyncReplicas: config.topicMinInsync },
}).catch((err: unknown) => (err instanceof BuildMismatch ? refuse(err.message) : Promise.reject(err)));
const writer = new ShardWriter({ shardId, stamp, builtFrom: build.builtFrom, redis, keyPrefix: config.keyPrefix, dedupWindowMs: config.dedupWindowMs });
if (build.record) await writer.recordBuiltFrom();
const admin = kafka.admin();
await admin.connect();
let readiness: Readiness | undefined;
const snapshots = config.snapshots
  ? await openSnapshots({
    kafka, admin, writer, redis, shardId, slots, keyPrefix: config.keyPrefix, builtFrom: build.builtFrom, scoreTopic: config.scoreTopic,
    replication: config.topicReplication, minInsyncReplicas: config.topicMinInsync, everyRecords: config.snapshotRecords,
    minIntervalMs: config.snapshotMinIntervalMs, heartbeatTtlMs: config.heartbeatTtlMs, log: log.child({ component: "snapshots" }), metrics,
  })
  : undefined;
const installed = await snapshots?.refillAtStart(); // Redis empty, or far behind the newest snapshot
const known = await writer.appliedOffsets(); // a loaded snapshot's included
const applier = await startApplier({
  kafka, topic: config.scoreTopic, shardId, slots, writer, boards: config.boards, applyBatch: config.applyBatch,
  known,
  startAfter: new Map(slots.map((p) => [p, installed?.get(p) ?? known.get(p) ?? -1n])),
  metrics,
  log: log.child({ component: "applier" }),
  onRewind: (partition) => {
    readiness?.fallBehind(`a rewind of partition ${partition}`);
    snapshots?.refill(`a rewind of partition ${partition}`); // Redis behind the records fetched: it may have lost data
  },
  onDrift: (builtFrom) => refuse(`${shardId}: the apply script found this shard's Redis built from "${builtFrom}", not "${build.builtFrom}": stopping`),
  onFatal: (err) => {
    log.fatal({ err }, "applier crashed; exiting so the supervisor restarts the node");
    process.exit(1);
  },
});
readiness = startReadiness({
  writer, admin, topic: config.scoreTopic, slots, applier, ttlMs: config.heartbeatTtlMs,
  stallMs: config.stallMs, maxLag: config.maxLag, maxLagMs: config.maxLagMs,
  verifySource: () => topicProblem(topicIds, config.scoreTopic, build.builtFrom),
  onDrift: (problem) => refuse(`${shardId}: ${problem}: stopping; rebuild the shard from the log (npm run cli -- rebuild --shard ${shardId})`),
  onLost: () => snapshots?.refill("Redis lost data"),
  log: log.child({ component: "readiness" }),
  metrics,
});
snapshots?.run({ applier, serving: () => readiness!.serving });
log.info({ shardId, redis: redactUrl(shard.redisUrl), slots, stamp, metricsPort: metricsServer.port }, "shard node ready");

onShutdown(log, async () => {
  await readiness!.stop();
  await snapshots?.stop();
  await admin.disconnect();
  await applier.stop();
  log.info({ stats: applier.stats }, "applier stopped");
  await topicIds.close();
  await redis.quit();
  await metricsServer.close();
});
