// Starts the local cluster the launcher (`npm start`, main.ts) runs: a single-node Kafka broker (KRaft)
// and one redis-server per shard — or, with LADDER_LOCAL_REPLICAS=n, each shard's Redis with n
// replicas and 3 Redis Sentinels that fail primaries over (replicated-redis.ts), the services then
// finding each shard's nodes through the Sentinels — then the shard nodes, router and ingest, and the
// browser gateway in front of the router (its own token: LADDER_GATEWAY_TOKEN, or else the first
// monitor token of the grants, the local cluster's or LADDER_TOKENS's; none: no board list, no status).
// A part that fails to start stops what had started. Also the summary the
// launcher prints.
//
// The broker is secured: clients log in with SCRAM-SHA-512 over TLS on loopback, each service with its
// own user (kafka-credentials.ts, kept in credentials.json) and only the ACLs its role needs
// (log/src/kafka-acls.ts), created at every start by the broker's own user.
import type { TokenGrant } from "@ladder/platform/auth";
import type { Config } from "@ladder/platform/config";
import { localCredentialsPath } from "@ladder/platform/credentials-file";
import type { Logger } from "@ladder/platform/logger";
import { createRoleAcls } from "@ladder/log/kafka-acls";
import { LogClient } from "@ladder/log/log-client";
import { localCredentials, localStreamSecret, monitorToken } from "./credentials.js";
import { brokerSecurityOf, kafkaRoleSettings, localKafkaLogins, type LocalKafkaLogins } from "./kafka-credentials.js";
import type { KafkaBroker } from "./kafka-broker.js";
import { startGatewayService, type GatewayService } from "./gateway-service.js";
import { startInfra, type Infra } from "./infra.js";
import { logsDir } from "./log-files.js";
import { SENTINELS, type LocalConfig } from "./local-config.js";
import { localRedisPasswords, localRedisSecurity, localRedisServiceEnv, type LocalRedisSecurity } from "./redis-credentials.js";
import { startReplicatedRedis, type ReplicatedRedis } from "./replicated-redis.js";
import { startServices, type RunningServices } from "./services.js";

export interface LocalCluster {
  infra: Infra;
  replicas: ReplicatedRedis | undefined;
  services: RunningServices;
  gateway: GatewayService;
}

export async function startLocalCluster(
  local: LocalConfig,
  cluster: Config,
  env: Readonly<Record<string, string | undefined>>,
  log: Logger,
): Promise<LocalCluster> {
  const logins = localKafkaLogins(local.dataDir);
  // every Redis and Sentinel runs with the cluster's ACL users; each service logs in as its own
  const redisPasswords = localRedisPasswords(local.dataDir);
  const security = localRedisSecurity(redisPasswords, cluster.keyPrefix);
  const { infra, replicas, stop } = await startKafkaAndRedis(local, logins, security, log);
  // tokens from the environment win; otherwise the local cluster's own
  const grants: readonly TokenGrant[] = cluster.tokens.length ? cluster.tokens : localCredentials(local.dataDir);
  const logLevel = cluster.logLevel === "silent" ? "info" : cluster.logLevel;
  let services: RunningServices | undefined;
  try {
    await grantRoleAcls(infra.kafka, cluster.scoreTopic, log);
    services = await startServices({
      kafkaBrokers: infra.kafka.brokers,
      redisUrls: replicas ? replicas.shards.map((s) => s.url) : infra.redis.map((r) => r.url),
      routerListen: cluster.routerListen,
      ingestListen: cluster.ingestListen,
      // fixed metrics addresses: router, ingest, and shard i at LADDER_SHARD_METRICS_LISTEN's port + i
      metricsListen: {
        router: cluster.routerMetricsListen,
        ingest: cluster.ingestMetricsListen,
        shard: (i) => cluster.shardMetricsListen.replace(/\d+$/, (port) => (port === "0" ? "0" : String(Number(port) + i))),
      },
      tokens: grants,
      streamSecret: cluster.streamSecret ?? localStreamSecret(local.dataDir),
      settings: {
        LADDER_LOG_LEVEL: logLevel,
        ...(replicas ? { LADDER_SENTINELS: replicas.sentinelList } : {}),
      },
      kafkaLogins: kafkaRoleSettings(logins, local.dataDir),
      own: localRedisServiceEnv(local.dataDir, redisPasswords, replicas !== undefined),
      baseEnv: env,
      log,
    });
    const gateway = await startGatewayService({
      listen: cluster.gatewayListen,
      routerAddress: services.routerAddress,
      monitorToken: cluster.gatewayToken ?? monitorToken(grants),
      settings: { LADDER_LOG_LEVEL: logLevel },
      baseEnv: env,
      log,
    });
    return { infra, replicas, services, gateway };
  } catch (err) {
    await services?.stop();
    await stop();
    throw err;
  }
}

/** Kafka and the shards' Redis (one server each, or the replica layout), started together; all or none. */
/** The roles' ACLs on `scoreTopic` and its internal topics, created by the broker's own user. */
export async function grantRoleAcls(kafka: KafkaBroker, scoreTopic: string, log: Logger): Promise<void> {
  if (!kafka.superUser) return;
  const client = await LogClient.open(kafka.brokers, "ladder-launcher-acls", log.child({ component: "kafka" }), kafka.superUser);
  try {
    const acls = await createRoleAcls(client, scoreTopic);
    log.info({ acls, scoreTopic }, "kafka ACLs in place");
  } finally {
    await client.close();
  }
}

async function startKafkaAndRedis(
  local: LocalConfig,
  logins: LocalKafkaLogins,
  security: LocalRedisSecurity,
  log: Logger,
): Promise<Omit<LocalCluster, "services" | "gateway"> & { stop(): Promise<void> }> {
  log.info({ dataDir: local.dataDir, shards: local.shards, replicas: local.replicas }, "starting Kafka and Redis");
  const replicated = local.replicas > 0;
  const base = local.redisBasePort;
  const [infraStarted, replicasStarted] = await Promise.allSettled([
    startInfra({
      redisCount: replicated ? 0 : local.shards, // the replica layout starts its own below
      dataDir: local.dataDir,
      cacheDir: local.cacheDir,
      kafkaHome: local.kafkaHome,
      kafkaPort: local.kafkaPort,
      kafkaSecurity: brokerSecurityOf(logins),
      redisPorts: replicated ? [] : Array.from({ length: local.shards }, (_, i) => base + i),
      persistRedis: local.persistRedis,
      redisHugePages: local.redisHugePages,
      redisSecurity: security,
      preferContainers: false,
      log,
    }),
    replicated
      ? startReplicatedRedis({
          shards: local.shards,
          replicas: local.replicas,
          sentinels: SENTINELS,
          dataDir: local.dataDir,
          persist: local.persistRedis,
          hugePages: local.redisHugePages,
          ports: {
            primary: (i) => base + i,
            replica: (i, j) => base + 100 * j + i,
            sentinel: (k) => base + 100 * (local.replicas + 1) + k,
          },
          downAfterMs: 2000,
          failoverTimeoutMs: 10_000,
          security,
          log,
        })
      : Promise.resolve(undefined),
  ]);
  const stop = async () => {
    if (replicasStarted.status === "fulfilled") await replicasStarted.value?.stop();
    if (infraStarted.status === "fulfilled") await infraStarted.value.stop();
  };
  const failed = [infraStarted, replicasStarted].find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return {
    infra: (infraStarted as PromiseFulfilledResult<Infra>).value,
    replicas: (replicasStarted as PromiseFulfilledResult<ReplicatedRedis | undefined>).value,
    stop,
  };
}

/** What runs where, for the terminal. */
export function clusterSummary({ infra, replicas, services: s, gateway }: LocalCluster, local: LocalConfig, cluster: Config): string {
  const rows: Array<[string, string]> = [
    ["gateway  (dashboard, JSON reads, live push)", gateway.url],
    ["router   (LeaderboardService)", s.routerAddress],
    ["ingest   (IngestService)", s.ingestAddress],
    ["kafka    (topic " + cluster.scoreTopic + ", " + cluster.numSlots + " partitions)", infra.kafka.brokers.join(",")],
    ...infra.redis.map((r, i): [string, string] => [`${s.shardIds[i]}  (shard node + redis)`, r.url]),
    ...(replicas?.shards ?? []).map((r, i): [string, string] => [
      `${s.shardIds[i]}  (shard node + ${r.url})`,
      `primary ${r.primary.url}, replica${r.replicas.length > 1 ? "s" : ""} ${r.replicas.map((x) => x.url).join(", ")}`,
    ]),
    ...(replicas ? [["sentinels (quorum 2, failover after 2 s down)", replicas.sentinelList] as [string, string]] : []),
    ...["router", "ingest", ...s.shardIds].map((name): [string, string] => [`metrics  ${name}`, s.metricsUrl(name)]),
    ["data", local.dataDir],
    ["logs", `${logsDir(local.dataDir)}  (one file per process: npm run logs [-- <name>...])`],
    ["tokens", cluster.tokens.length ? "from LADDER_TOKENS" : localCredentialsPath(local.dataDir)],
    ["kafka logins", `${localCredentialsPath(local.dataDir)}  (SASL/SCRAM-SHA-512 over TLS, CA ${infra.kafka.caFile ?? "-"})`],
    ["redis users", `${localCredentialsPath(local.dataDir)} ("redis"; default user off)`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return [
    "",
    "ladder is running:",
    ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`),
    "",
    "every process is restarted if it dies; Ctrl-C (or npm run stop) stops them all",
    "try:  npm run cli -- demo",
    "      npm run cli -- status",
    `      open ${gateway.url} (the dashboard)`,
    "stop: Ctrl-C, or npm run stop",
    "",
  ].join("\n");
}
