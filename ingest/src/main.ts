/**
 * Ingest: IngestService in front of the score log. Wiring only.
 */
import * as grpc from "@grpc/grpc-js";
import { loadConfig } from "@ladder/common/config";
import { Authenticator, requireRole } from "@ladder/common/auth";
import { addService, listen, shutdown } from "@ladder/common/grpc-adapter";
import { serverCredentials } from "@ladder/common/tls";
import { HealthRegistry, ServingStatus } from "@ladder/common/health";
import { createKafka, createScoreProducer, ensureScoreTopic } from "@ladder/common/kafka";
import { rootLogger } from "@ladder/common/logger";
import { onShutdown } from "@ladder/common/shutdown";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { GroupCommitProducer } from "./group-commit-producer.js";
import { ingestService } from "./ingest-service.js";

const config = loadConfig(process.env);
const log = rootLogger({ level: config.logLevel, name: "ingest" });
const kafka = createKafka(config.kafkaBrokers, "ladder-ingest", log.child({ component: "kafka" }));
await ensureScoreTopic(kafka, config.scoreTopic, config.numSlots);
// Retries are unbounded (createScoreProducer); GroupCommitProducer bounds how long a caller waits.
const producer = await createScoreProducer(kafka);
const server = new grpc.Server();
const commit = new GroupCommitProducer({ producer, topic: config.scoreTopic, log: log.child({ component: "producer" }), maxQueuedRecords: config.ingestMaxQueued });
const auth = new Authenticator(config.tokens, config.readsOpen);
if (!config.tokens.some((t) => t.roles.includes("write"))) log.warn("no write token configured (LADDER_TOKENS): every write will be refused");
addService(server, IngestService, ingestService(config, commit), log.child({ component: "grpc" }), requireRole(auth, "write"));
const health = new HealthRegistry();
health.set(IngestService.typeName, ServingStatus.SERVING);
health.register(server, log);
const port = await listen(server, config.ingestListen, serverCredentials(config));
log.info({ address: config.ingestListen, port, topic: config.scoreTopic }, "ingest listening");

onShutdown(log, async () => {
  health.drain();
  await shutdown(server); // lets calls in flight finish: their flushes complete first
  await producer.disconnect();
});
