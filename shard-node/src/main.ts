/**
 * Shard node: applies the score log's partitions of its slots to its Redis.
 * Wiring only: config, logger, Kafka, Redis, store, applier, heartbeat, signals.
 */
import { Redis } from "ioredis";
import { loadConfig } from "@ladder/common/config";
import { ensureScoreTopic, createKafka } from "@ladder/common/kafka";
import { rootLogger } from "@ladder/common/logger";
import { buildPlacement } from "@ladder/common/placement";
import { onShutdown } from "@ladder/common/shutdown";
import { ShardWriter } from "@ladder/store/writer";
import { startApplier } from "./applier.js";
import { startReadiness, type Readiness } from "./readiness.js";

const config = loadConfig(process.env);
if (!config.shardId) throw new Error("LADDER_SHARD_ID is required for a shard node");
const shardId = config.shardId;
const log = rootLogger({ level: config.logLevel, name: `shard-node:${shardId}` });
const shard = config.shards.find((s) => s.id === shardId)!;
const slots = buildPlacement(config.shards.map((s) => s.id), config.numSlots).slotsOf.get(shardId) ?? [];

const redis = new Redis(shard.redisUrl, { lazyConnect: true, maxRetriesPerRequest: null }); // wait out Redis restarts
redis.on("error", (err: Error) => log.warn({ err: err.message }, "redis connection error"));
await redis.connect();
const writer = new ShardWriter({ shardId, redis, keyPrefix: config.keyPrefix, dedupWindowMs: config.dedupWindowMs });
const kafka = createKafka(config.kafkaBrokers, `ladder-shard-${shardId}`, log.child({ component: "kafka" }));
await ensureScoreTopic(kafka, config.scoreTopic, config.numSlots);
const admin = kafka.admin();
await admin.connect();
let readiness: Readiness | undefined;
const applier = await startApplier({
  kafka, topic: config.scoreTopic, shardId, slots, writer, boards: config.boards, applyBatch: config.applyBatch,
  known: await writer.appliedOffsets(),
  log: log.child({ component: "applier" }),
  onRewind: () => readiness?.fallBehind(),
  onFatal: (err) => {
    log.fatal({ err }, "applier crashed; exiting so the supervisor restarts the node");
    process.exit(1);
  },
});
readiness = startReadiness({
  store: writer, admin, topic: config.scoreTopic, slots, applier, ttlMs: config.heartbeatTtlMs, maxLag: config.readyLag,
  log: log.child({ component: "readiness" }),
});
log.info({ shardId, redis: shard.redisUrl, slots }, "shard node ready");

onShutdown(log, async () => {
  await readiness!.stop();
  await admin.disconnect();
  await applier.stop();
  log.info({ stats: applier.stats }, "applier stopped");
  await redis.quit();
});
