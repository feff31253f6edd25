/**
 * Router: LeaderboardService over all shards. Wiring only.
 */
import * as grpc from "@grpc/grpc-js";
import { loadConfig } from "../../common/src/config.js";
import { Authenticator, requireRole } from "../../common/src/auth.js";
import { addService, listen, shutdown } from "../../common/src/grpc-adapter.js";
import { serverCredentials } from "../../common/src/tls.js";
import { HealthRegistry, ServingStatus } from "../../common/src/health.js";
import { rootLogger } from "../../common/src/logger.js";
import { onShutdown } from "../../common/src/shutdown.js";
import { LeaderboardService } from "../../proto/gen/leaderboard/v1/leaderboard_pb.js";
import { decodeToken } from "../../common/src/consistency-token.js";
import { createKafka } from "../../common/src/kafka.js";
import { AdminService } from "../../proto/gen/leaderboard/v1/admin_pb.js";
import { adminService } from "./admin-service.js";
import { leaderboardService, type TokenWaiter } from "./leaderboard-service.js";
import { waitApplied } from "./wait-applied.js";
import { Queries } from "./queries.js";
import { ShardPool } from "./shard-pool.js";

const config = loadConfig(process.env);
const log = rootLogger({ level: config.logLevel, name: "router" });
const pool = new ShardPool(config.shards, config.numSlots, config.keyPrefix, config.shardTimeoutMs);
const server = new grpc.Server();
const auth = new Authenticator(config.tokens, config.readsOpen);
const waitFor: TokenWaiter = (token, deadlineMs) => waitApplied(pool, decodeToken(token, config.numSlots), config.consistencyWaitMs, deadlineMs);
addService(server, LeaderboardService, leaderboardService(new Queries(pool, config.boards), waitFor), log.child({ component: "grpc" }), requireRole(auth, "read"));
const kafka = createKafka(config.kafkaBrokers, "ladder-router-admin", log.child({ component: "kafka" }));
const kafkaAdmin = kafka.admin(); // connects on first use: the router needs Kafka only for rebuilds
addService(server, AdminService, adminService({ config, kafka, admin: kafkaAdmin, log: log.child({ component: "admin" }) }), log.child({ component: "grpc" }), requireRole(auth, "admin"));
const health = new HealthRegistry();
health.set(LeaderboardService.typeName, ServingStatus.SERVING);
health.set(AdminService.typeName, ServingStatus.SERVING);
health.register(server, log);
const port = await listen(server, config.routerListen, serverCredentials(config));
log.info({ address: config.routerListen, port, shards: config.shards.length }, "router listening");

onShutdown(log, async () => {
  health.drain();
  await shutdown(server);
  await pool.close();
  await kafkaAdmin.disconnect();
});
