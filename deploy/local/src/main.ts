// `npm start`: the whole cluster on this machine, on embedded defaults. Starts a single-node Kafka
// broker (KRaft) and one redis-server per shard, then the shard nodes, router and ingest; prints what
// runs where; on Ctrl-C (or SIGTERM) stops the services, then Redis and Kafka. Data stays under
// .ladder/ between runs: Redis keeps an append-only file, Kafka its log. With LADDER_LOCAL_REPLICAS=n
// each shard's Redis gets n replicas and 3 Redis Sentinels watch the primaries and fail them over
// (replicated-redis.ts); the services then find each shard's nodes through the Sentinels.
import { loadConfig } from "@ladder/common/config";
import { rootLogger } from "@ladder/common/logger";
import { localCredentialsPath } from "@ladder/common/credentials-file";
import { localCredentials } from "./credentials.js";
import { startInfra } from "./infra.js";
import { loadLocalConfig, SENTINELS } from "./local-config.js";
import { startReplicatedRedis, type ReplicatedRedis } from "./replicated-redis.js";
import { startServices } from "./services.js";

const local = loadLocalConfig(process.env, process.cwd());
const cluster = loadConfig(process.env); // validates the LADDER_* settings passed to the services
const log = rootLogger({ level: local.logLevel, name: "local-cluster" });

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
    redisPorts: replicated ? [] : Array.from({ length: local.shards }, (_, i) => base + i),
    persistRedis: local.persistRedis,
    preferContainers: false,
    log,
  }),
  replicated
    ? startReplicatedRedis({
      shards: local.shards, replicas: local.replicas, sentinels: SENTINELS, dataDir: local.dataDir, persist: local.persistRedis,
      ports: { primary: (i) => base + i, replica: (i, j) => base + 100 * j + i, sentinel: (k) => base + 100 * (local.replicas + 1) + k },
      downAfterMs: 2000, failoverTimeoutMs: 10_000, log,
    })
    : Promise.resolve(undefined),
]);
if (infraStarted.status === "rejected" || replicasStarted.status === "rejected") {
  if (infraStarted.status === "fulfilled") await infraStarted.value.stop();
  if (replicasStarted.status === "fulfilled") await replicasStarted.value?.stop();
  const failed = [infraStarted, replicasStarted].find((r) => r.status === "rejected") as PromiseRejectedResult;
  log.error({ err: failed.reason }, "Kafka or Redis did not start");
  process.exit(1);
}
const infra = infraStarted.value;
const replicas: ReplicatedRedis | undefined = replicasStarted.value;

let stopping = false;
async function stopAll(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    log.info("stopping the cluster");
    await services?.stop().catch((err: unknown) => log.error({ err }, "stopping services"));
    await replicas?.stop();
    await infra.stop();
    log.info("stopped");
  }
  process.exit(code);
}
process.on("SIGINT", () => void stopAll(0));
process.on("SIGTERM", () => void stopAll(0));

let services: Awaited<ReturnType<typeof startServices>> | undefined;
try {
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
    settings: {
      LADDER_LOG_LEVEL: cluster.logLevel === "silent" ? "info" : cluster.logLevel,
      // tokens from the environment win; otherwise the local cluster's own
      LADDER_TOKENS: JSON.stringify(cluster.tokens.length ? cluster.tokens : localCredentials(local.dataDir)),
      ...(replicas ? { LADDER_SENTINELS: replicas.sentinelList } : {}),
    },
    baseEnv: process.env,
    log,
  });
} catch (err) {
  log.error({ err }, "the cluster did not start");
  await stopAll(1);
}

const s = services!;
const watched = [["router", s.router()], ["ingest", s.ingest()], ...s.shardIds.map((id) => [id, s.shardNode(id)] as const)] as const;
for (const [name, proc] of watched) {
  void proc.exited.then((exit) => {
    if (stopping) return;
    log.error({ service: name, exit, output: proc.output() }, "a service exited; stopping the cluster");
    void stopAll(1);
  });
}
const rows: Array<[string, string]> = [
  ["router   (LeaderboardService)", s.routerAddress],
  ["ingest   (IngestService)", s.ingestAddress],
  ["kafka    (topic " + cluster.scoreTopic + ", " + cluster.numSlots + " partitions)", infra.kafka.brokers.join(",")],
  ...infra.redis.map((r, i): [string, string] => [`${s.shardIds[i]}  (shard node + redis)`, r.url]),
  ...(replicas?.shards ?? []).map((r, i): [string, string] => [`${s.shardIds[i]}  (shard node + ${r.url})`, `primary ${r.primary.url}, replica${r.replicas.length > 1 ? "s" : ""} ${r.replicas.map((x) => x.url).join(", ")}`]),
  ...(replicas ? [["sentinels (quorum 2, failover after 2 s down)", replicas.sentinelList] as [string, string]] : []),
  ...["router", "ingest", ...s.shardIds].map((name): [string, string] => [`metrics  ${name}`, s.metricsUrl(name)]),
  ["data", local.dataDir],
  ["tokens", cluster.tokens.length ? "from LADDER_TOKENS" : localCredentialsPath(local.dataDir)],
];
const width = Math.max(...rows.map(([k]) => k.length));
console.log(["", "ladder is running:", ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`), "",
  "try:  npm run cli -- demo", "stop: Ctrl-C", ""].join("\n"));
