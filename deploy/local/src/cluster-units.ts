// What the launcher supervises (supervisor.ts): every process of the local cluster, each with the way
// to start it again on the same ports and data dir. Kafka keeps its log (restarts replay nothing);
// a shard's Redis comes back empty unless LADDER_REDIS_PERSIST, and its shard node then refills it
// from the newest snapshot and the log, refusing reads until whole (docs/operations.md, "Snapshots"); in the
// replica layout a restarted Redis server rejoins as a replica of the primary the Sentinels name
// (replicated-redis.ts); the services come back on the addresses and metrics ports they had
// (services.ts), the gateway on its address (gateway-service.ts). At shutdown the gateway stops first
// (its browsers reconnect once it is back), then ingest (no more writes), the router, the shard nodes,
// the Sentinels (so none starts a failover), Redis, and Kafka last.
import { join } from "node:path";
import type { Logger } from "@ladder/platform/logger";
import type { Infra } from "./infra.js";
import { startKafkaBroker, type KafkaBroker } from "./kafka-broker.js";
import { ensureKafkaJars } from "./kafka-jars.js";
import { brokerSecurityOf, localKafkaLogins } from "./kafka-credentials.js";
import type { LocalConfig } from "./local-config.js";
import type { GatewayService } from "./gateway-service.js";
import type { ManagedProcess } from "./managed-process.js";
import { startRedisServer, type RedisServer } from "./redis-server.js";
import type { ReplicatedRedis } from "./replicated-redis.js";
import type { SentinelServer } from "./sentinel.js";
import type { RunningServices } from "./services.js";
import type { Running, Supervised } from "./supervisor.js";

export interface ClusterUnit {
  spec: Supervised;
  /** The process running now. */
  running: Running;
}

export interface UnitsOptions {
  local: LocalConfig;
  infra: Infra;
  /** The replica layout, when LADDER_LOCAL_REPLICAS > 0. */
  replicas: ReplicatedRedis | undefined;
  services: RunningServices;
  gateway: GatewayService;
  log: Logger;
}

/** Stop order, lowest first. */
const ORDER = { gateway: 0, ingest: 1, router: 2, shardNode: 3, sentinel: 4, redis: 5, kafka: 6 } as const;
const SERVICE_STOP_GRACE_MS = 10_000;

export function clusterUnits(o: UnitsOptions): ClusterUnit[] {
  return [kafkaUnit(o), ...redisUnits(o), ...sentinelUnits(o), ...serviceUnits(o.services, o.gateway)];
}

function runningOf(proc: ManagedProcess | undefined, stop: () => Promise<void>, what: string): Running {
  if (!proc) throw new Error(`${what} runs in a container: the launcher supervises local processes only`);
  return { pid: proc.pid, startedAtMs: proc.startedAtMs, exited: proc.exited, stop };
}

const kafkaRunning = (k: KafkaBroker) => runningOf(k.process, k.stop, "kafka");
const redisRunning = (r: RedisServer) => runningOf(r.process, r.stop, r.url);
const sentinelRunning = (s: SentinelServer) => runningOf(s.process, s.stop, s.address);

function kafkaUnit({ local, infra, log }: UnitsOptions): ClusterUnit {
  return {
    spec: {
      name: "kafka",
      kind: "kafka",
      address: infra.kafka.brokers.join(","),
      stopOrder: ORDER.kafka,
      start: async () => {
        const libsDir = await ensureKafkaJars({ cacheDir: local.cacheDir, kafkaHome: local.kafkaHome, log });
        const security = brokerSecurityOf(localKafkaLogins(local.dataDir)); // the logins it was formatted with
        return kafkaRunning(
          await startKafkaBroker({ libsDir, dataDir: join(local.dataDir, "kafka"), port: local.kafkaPort, log, security }),
        );
      },
    },
    running: kafkaRunning(infra.kafka),
  };
}

function redisUnits({ local, infra, replicas, log }: UnitsOptions): ClusterUnit[] {
  const unit = (name: string, server: RedisServer, start: () => Promise<RedisServer>): ClusterUnit => ({
    spec: {
      name,
      kind: "redis",
      address: `127.0.0.1:${server.port}`,
      stopOrder: ORDER.redis,
      start: async () => redisRunning(await start()),
    },
    running: redisRunning(server),
  });
  if (!replicas) {
    return infra.redis.map((r, i) =>
      unit(`redis-${i}`, r, () =>
        startRedisServer({
          dataDir: r.dataDir,
          port: r.port,
          persist: local.persistRedis,
          hugePages: local.redisHugePages,
          security: r.security,
          log,
        }),
      ),
    );
  }
  return replicas.shards.flatMap((shard, i) => [
    unit(`redis-${i}`, shard.primary, () => replicas.restartServer(shard.primary)),
    ...shard.replicas.map((r, j) => unit(`redis-${i}-replica-${j + 1}`, r, () => replicas.restartServer(r))),
  ]);
}

function sentinelUnits({ replicas }: UnitsOptions): ClusterUnit[] {
  return (replicas?.sentinels ?? []).map((s, k) => ({
    spec: {
      name: `sentinel-${k}`,
      kind: "sentinel",
      address: s.address,
      stopOrder: ORDER.sentinel,
      start: async () => sentinelRunning(await replicas!.restartSentinel(k)),
    },
    running: sentinelRunning(s),
  }));
}

function serviceUnits(s: RunningServices, gateway: GatewayService): ClusterUnit[] {
  const running = (proc: ManagedProcess): Running => ({
    pid: proc.pid,
    startedAtMs: proc.startedAtMs,
    exited: proc.exited,
    stop: async () => void (await proc.stop(SERVICE_STOP_GRACE_MS)),
  });
  const hostPort = (url: string) => new URL(url).host;
  return [
    ...s.shardIds.map(
      (id): ClusterUnit => ({
        spec: {
          name: id,
          kind: "shard-node",
          address: hostPort(s.metricsUrl(id)),
          stopOrder: ORDER.shardNode,
          start: async () => (await s.restartShardNode(id), running(s.shardNode(id))),
        },
        running: running(s.shardNode(id)),
      }),
    ),
    {
      spec: {
        name: "router",
        kind: "router",
        address: s.routerAddress,
        stopOrder: ORDER.router,
        start: async () => (await s.restartRouter(), running(s.router())),
      },
      running: running(s.router()),
    },
    {
      spec: {
        name: "ingest",
        kind: "ingest",
        address: s.ingestAddress,
        stopOrder: ORDER.ingest,
        start: async () => (await s.restartIngest(), running(s.ingest())),
      },
      running: running(s.ingest()),
    },
    {
      spec: {
        name: "gateway",
        kind: "gateway",
        address: gateway.address,
        stopOrder: ORDER.gateway,
        start: async () => (await gateway.restart(), running(gateway.process())),
      },
      running: running(gateway.process()),
    },
  ];
}
