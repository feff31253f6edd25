// Starts the infrastructure a local cluster or an integration test needs: one Kafka broker and
// `redisCount` Redis servers, started together. Containers are used when asked for and a Docker engine
// answers; otherwise local processes (a JVM from Maven Central jars, redis-server from PATH).
//
// Local layout under `dataDir`: kafka/ for the broker, redis-<i>/ for each Redis server.
import { join } from "node:path";
import type { Logger } from "@ladder/platform/logger";
import { dockerAvailable, startKafkaContainer, startRedisContainer } from "./containers.js";
import { type KafkaBroker, type KafkaBrokerSecurity, startKafkaBroker } from "./kafka-broker.js";
import { ensureKafkaJars } from "./kafka-jars.js";
import type { LocalRedisSecurity } from "./redis-credentials.js";
import { type RedisServer, startRedisServer } from "./redis-server.js";

export interface Infra {
  kafka: KafkaBroker;
  /** In shard order: redis[i] was started with redisPorts[i] when ports were given. */
  redis: RedisServer[];
  /** Stops Redis and Kafka; errors from processes that are already gone are ignored. */
  stop(): Promise<void>;
}

export interface InfraOptions {
  redisCount: number;
  /** Root of the local processes' data (unused by containers). */
  dataDir: string;
  /** Where Kafka's jars are cached, e.g. ~/.cache/ladder. */
  cacheDir: string;
  /** An unpacked Kafka distribution to take the jars from instead of Maven. */
  kafkaHome?: string;
  /** Fixed Kafka client port (local processes only); else a free one. */
  kafkaPort?: number;
  /** The local broker secured (SASL_SSL, SCRAM users, ACLs); absent: PLAINTEXT. Not for containers. */
  kafkaSecurity?: KafkaBrokerSecurity;
  /** Fixed Redis ports, one per server (local processes only); else free ones. */
  redisPorts?: number[];
  /** Redis keeps an append-only file (fsync every second) when true. */
  persistRedis: boolean;
  /** Local Redis processes back their memory with transparent huge pages (redis-server.ts); containers do not take it. */
  redisHugePages?: boolean;
  /** Local Redis processes run with these ACL users (redis-credentials.ts); containers do not take it. */
  redisSecurity?: LocalRedisSecurity;
  preferContainers: boolean;
  log: Logger;
}

export async function startInfra(opts: InfraOptions): Promise<Infra> {
  const { redisCount, redisPorts, preferContainers, log } = opts;
  if (redisPorts !== undefined && redisPorts.length !== redisCount) {
    throw new Error(`redisPorts has ${redisPorts.length} ports for ${redisCount} redis servers`);
  }
  const containers = preferContainers && opts.kafkaSecurity === undefined && (await dockerAvailable());
  if (containers && opts.redisSecurity) throw new Error("Redis ACL users are set up for local redis-server processes, not containers");
  log.info({ redisCount, containers }, containers ? "starting infra in containers" : "starting infra as local processes");

  const kafka = containers ? startKafkaContainer({ log }) : startLocalKafka(opts);
  const redis = Array.from({ length: redisCount }, (_, i) =>
    containers
      ? startRedisContainer({ persist: opts.persistRedis, log })
      : startRedisServer({
          dataDir: join(opts.dataDir, `redis-${i}`),
          port: redisPorts?.[i],
          persist: opts.persistRedis,
          hugePages: opts.redisHugePages,
          security: opts.redisSecurity,
          log,
        }),
  );

  const settled = await Promise.allSettled([kafka, ...redis]);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  const started = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  if (failed !== undefined) {
    await stopAll(started, log);
    throw failed.reason;
  }
  const infra = { kafka: await kafka, redis: await Promise.all(redis) };
  return { ...infra, stop: () => stopAll([...infra.redis, infra.kafka], log) };
}

async function startLocalKafka(opts: InfraOptions): Promise<KafkaBroker> {
  const { cacheDir, kafkaHome, kafkaPort, kafkaSecurity, log } = opts;
  const libsDir = await ensureKafkaJars({ cacheDir, kafkaHome, log });
  return startKafkaBroker({
    libsDir,
    dataDir: join(opts.dataDir, "kafka"),
    port: kafkaPort,
    log,
    ...(kafkaSecurity ? { security: kafkaSecurity } : {}),
  });
}

async function stopAll(services: { stop(): Promise<void> }[], log: Logger): Promise<void> {
  const results = await Promise.allSettled(services.map((s) => s.stop()));
  for (const r of results) {
    if (r.status === "rejected") log.debug({ err: r.reason }, "ignored error while stopping infra");
  }
}
