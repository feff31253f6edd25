/**
 * Shard node: applies the score log's partitions of its slots to its Redis.
 * Wiring only: config, logger, Kafka, Redis, the placement it follows, and one shard run
 * (shard-run.ts) per slot set the placement gives it (placement-transitions.ts).
 */
import { loadConfig } from "@ladder/platform/config";
import { TopicIds } from "@ladder/log/topic-ids";
import { LogClient } from "@ladder/log/log-client";
import { redactUrl, rootLogger } from "@ladder/platform/logger";
import { startMetricsServer } from "@ladder/platform/metrics";
import { followPlacement, placementOrExit } from "@ladder/log/placement-follower";
import { onShutdown } from "@ladder/platform/shutdown";
import { openRedis } from "@ladder/store";
import { ShardMetrics } from "./metrics.js";
import { followSlots } from "./placement-transitions.js";

/** Exit status of a node that refuses its configuration (sysexits EX_CONFIG): restarting won't help. */
const EX_CONFIG = 78;

const config = loadConfig(process.env);
if (!config.shardId) throw new Error("LADDER_SHARD_ID is required for a shard node");
const shardId = config.shardId;
const log = rootLogger({ level: config.logLevel, name: `shard-node:${shardId}` });
const metrics = new ShardMetrics(shardId);
const metricsServer = await startMetricsServer({ listen: config.shardMetricsListen, log }); // GET /metrics, from the start
const shard = config.shards.find((s) => s.id === shardId)!;

// Waits out Redis restarts; for a sentinel:// shard, follows its primary through a failover. After a
// failover the promoted replica may lack the last writes applied to the old primary (replication is
// asynchronous): the heartbeat finds it holding less than was applied and the node replays from the
// log, refusing reads meanwhile (readiness.ts, "lost data").
const redis = openRedis(shard.redisUrl, { lazyConnect: true, maxRetriesPerRequest: null }, config.redisLogin);
redis.on("error", (err: Error) => log.warn({ err: err.message }, "redis connection error"));
await redis.connect();
const logClient = await LogClient.open(
  config.kafkaBrokers,
  `ladder-shard-${shardId}`,
  log.child({ component: "kafka" }),
  config.kafkaSecurity,
);
const topicIds = new TopicIds(config.kafkaBrokers, `ladder-shard-${shardId}-ids`, config.kafkaSecurity);
const placement = await placementOrExit(followPlacement(config, logClient, log.child({ component: "placement" })), log);
const named = placement.current.shards.find((s) => s.id === shardId);
if (named && named.redisUrl !== shard.redisUrl)
  log.warn(
    { placement: redactUrl(named.redisUrl), configured: redactUrl(shard.redisUrl) },
    "the placement names another Redis for this shard than LADDER_SHARDS: this node writes to the configured one",
  );

const node = await followSlots({
  config,
  shardId,
  redis,
  logClient,
  topicIds,
  metrics,
  placement,
  log,
  refuse: (message) => {
    log.fatal({ shardId }, message);
    process.exit(EX_CONFIG);
  },
  crash: (err) => {
    log.fatal({ err }, "applier crashed; exiting so the supervisor restarts the node");
    process.exit(1);
  },
});
log.info(
  { shardId, redis: redactUrl(shard.redisUrl), epoch: placement.current.epoch, slots: node.slots, metricsPort: metricsServer.port },
  "shard node ready",
);

onShutdown(log, async () => {
  // the run's applier and the placement's follower each wait for their fetch in flight (LADDER_FETCH_WAIT_MS): together
  await Promise.all([node.stop(), placement.stop()]);
  await logClient.close();
  await topicIds.close();
  await redis.quit();
  await metricsServer.close();
});
