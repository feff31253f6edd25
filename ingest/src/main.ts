/**
 * Ingest: IngestService in front of the score log. Wiring only.
 */
import { loadConfig } from "@ladder/platform/config";
import { Authenticator, requireRole } from "@ladder/platform/auth";
import { addService, listen, newServer, shutdown } from "@ladder/platform/grpc-adapter";
import { serverCredentials } from "@ladder/platform/tls";
import { HealthRegistry, ServingStatus } from "@ladder/platform/health";
import { LAUNCH_BACKOFF, retryUntil } from "@ladder/platform/backoff";
import { createScoreProducer, ensureScoreTopic, ScoreTopicInvalid } from "@ladder/log/kafka";
import { LogClient } from "@ladder/log/log-client";
import { followBoardDefinitions } from "@ladder/log/board-definitions-follower";
import { rootLogger } from "@ladder/platform/logger";
import { startMetricsServer } from "@ladder/platform/metrics";
import { onShutdown } from "@ladder/platform/shutdown";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { GroupCommitProducer } from "./group-commit-producer.js";
import { ingestService } from "./ingest-service.js";
import { TournamentDesk } from "./tournament-desk.js";
import { LeagueDesk } from "./league-desk.js";
import { RankReporter } from "./rank-reports.js";
import { ShardReaders } from "./shard-readers.js";
import { LagAdmission } from "./lag-admission.js";
import { ingestMetrics } from "./metrics.js";
import { WriteQuotas } from "./write-quotas.js";
import { followPlacement, placementOrExit } from "@ladder/log/placement-follower";

/** How long ingest waits at start for the shard nodes to create the score topic. */
const TOPIC_WAIT_MS = 120_000;

const config = loadConfig(process.env);
const log = rootLogger({ level: config.logLevel, name: "ingest" });
const metrics = await startMetricsServer({ listen: config.ingestMetricsListen, log }); // GET /metrics, from the start
const logClient = LogClient.unconnected(config.kafkaBrokers, "ladder-ingest", log.child({ component: "kafka" }), config.kafkaSecurity);
// Ingest never creates the score topic (shard nodes do, and only over an empty shard): it waits
// for it, then refuses to run on a topic weaker than configured (durability, retention, slots).
const topicPolicy = {
  topic: config.scoreTopic,
  numSlots: config.numSlots,
  replication: config.topicReplication,
  minInsyncReplicas: config.topicMinInsync,
};
await retryUntil(() => ensureScoreTopic(logClient, topicPolicy, { create: false }), {
  ...LAUNCH_BACKOFF,
  what: `score topic ${config.scoreTopic}`,
  timeoutMs: TOPIC_WAIT_MS,
  giveUp: (err) => (err instanceof ScoreTopicInvalid ? "it does not match the configuration" : undefined), // waiting won't fix it
}).catch((err: unknown) => {
  log.fatal({ err }, "the score topic is missing or does not match the configuration; exiting");
  process.exit(78); // EX_CONFIG
});
// every board definition read before serving, then followed (model/src/board-definitions.ts)
const definitions = await followBoardDefinitions(config, logClient, log.child({ component: "boards" }));
// Retries are unbounded (createScoreProducer); GroupCommitProducer bounds how long a caller waits.
const producer = await createScoreProducer(logClient);
const server = newServer();
const commit = new GroupCommitProducer({
  producer,
  topic: config.scoreTopic,
  log: log.child({ component: "producer" }),
  maxQueuedRecords: config.ingestMaxQueued,
});
const auth = new Authenticator(config.tokens, config.readsOpen);
if (!config.tokens.some((t) => t.roles.includes("write")))
  log.warn("no write token configured (LADDER_TOKENS): every write will be refused");
// SubmitScoresRequest.report_ranks and lag admission read the shards' primaries, by the placement it follows
const placement = await placementOrExit(followPlacement(config, logClient, log.child({ component: "placement" })), log);
const shards = new ShardReaders(config, () => placement.current);
const reporter = new RankReporter(shards);
const lag = new LagAdmission(config.ingestLag, shards, ingestMetrics());
addService(
  server,
  IngestService,
  ingestService(
    config,
    commit,
    definitions,
    Date.now,
    reporter,
    {
      quotas: new WriteQuotas(config.ingestQuota),
      caller: (ctx) => auth.identify(ctx.metadata).name, // the grant's name; the guard has admitted it
    },
    lag,
    new TournamentDesk({ numSlots: config.numSlots, producer: commit, shards, catalog: () => definitions.catalog }),
    new LeagueDesk({ numSlots: config.numSlots, producer: commit, shards }),
  ),
  log.child({ component: "grpc" }),
  requireRole(auth, "write"),
);
const health = new HealthRegistry();
health.set(IngestService.typeName, ServingStatus.SERVING);
health.register(server, log);
const port = await listen(server, config.ingestListen, serverCredentials(config));
log.info({ address: config.ingestListen, port, metricsPort: metrics.port, topic: config.scoreTopic }, "ingest listening");

onShutdown(log, async () => {
  health.drain();
  await shutdown(server); // lets calls in flight finish: their flushes complete first
  await producer.disconnect();
  await lag.close();
  await shards.close();
  await Promise.all([placement.stop(), definitions.stop()]); // each waits for its fetch in flight: together
  await logClient.close();
  await metrics.close();
});
