// `npm start`: the whole cluster on this machine, on embedded defaults. Starts a single-node Kafka
// broker (KRaft) and one redis-server per shard, then the shard nodes, router and ingest; prints what
// runs where; on Ctrl-C (or SIGTERM) stops the services, then Redis and Kafka. Data stays under
// .ladder/ between runs: Redis keeps an append-only file, Kafka its log.
import { loadConfig } from "@ladder/common/config";
import { rootLogger } from "@ladder/common/logger";
import { localCredentialsPath } from "@ladder/common/credentials-file";
import { localCredentials } from "./credentials.js";
import { startInfra } from "./infra.js";
import { loadLocalConfig } from "./local-config.js";
import { startServices } from "./services.js";

const local = loadLocalConfig(process.env, process.cwd());
const cluster = loadConfig(process.env); // validates the LADDER_* settings passed to the services
const log = rootLogger({ level: local.logLevel, name: "local-cluster" });

log.info({ dataDir: local.dataDir, shards: local.shards }, "starting Kafka and Redis");
const infra = await startInfra({
  redisCount: local.shards,
  dataDir: local.dataDir,
  cacheDir: local.cacheDir,
  kafkaHome: local.kafkaHome,
  kafkaPort: local.kafkaPort,
  redisPorts: Array.from({ length: local.shards }, (_, i) => local.redisBasePort + i),
  persistRedis: local.persistRedis,
  preferContainers: false,
  log,
});

let stopping = false;
async function stopAll(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    log.info("stopping the cluster");
    await services?.stop().catch((err: unknown) => log.error({ err }, "stopping services"));
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
    redisUrls: infra.redis.map((r) => r.url),
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
  ...["router", "ingest", ...s.shardIds].map((name): [string, string] => [`metrics  ${name}`, s.metricsUrl(name)]),
  ["data", local.dataDir],
  ["tokens", cluster.tokens.length ? "from LADDER_TOKENS" : localCredentialsPath(local.dataDir)],
];
const width = Math.max(...rows.map(([k]) => k.length));
console.log(["", "ladder is running:", ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`), "",
  "try:  npm run cli -- demo", "stop: Ctrl-C", ""].join("\n"));
