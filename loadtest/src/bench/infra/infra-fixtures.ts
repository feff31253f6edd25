/**
 * The servers the bench starts for itself, on its own ports (ports.ts) and in its own
 * temporary data directory, each registered for cleanup: fresh redis-servers (no
 * persistence: nothing is written to disk, so disk speed stays out of the figures) and
 * one single-node Kafka broker (deploy/local: KRaft, jars from Maven Central).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { Redis } from "ioredis";
import { LogClient } from "@ladder/log/log-client";
import { join } from "node:path";
import type { Logger } from "@ladder/platform/logger";
import { brokerProperties } from "@ladder/deploy/kafka-config";
import { startKafkaBroker, type KafkaBroker } from "@ladder/deploy/kafka-broker";
import { ensureKafkaJars } from "@ladder/deploy/kafka-jars";
import { loadLocalConfig } from "@ladder/deploy/local-config";
import { startRedisServer, type RedisServer } from "@ladder/deploy/redis-server";
import type { CleanupEntry, CleanupStack } from "./cleanup.js";
import { benchPort } from "./ports.js";

export interface FixtureDeps {
  dataDir: string;
  ports: Set<number>;
  cleanup: CleanupStack;
  log: Logger;
}

export interface RedisFleet {
  servers: RedisServer[];
  /** Stops them now (also done at the end of the run). */
  stop(): Promise<void>;
}

/** `count` fresh, empty redis-servers. */
export async function startRedisFleet(d: FixtureDeps, label: string, count: number): Promise<RedisFleet> {
  const servers: RedisServer[] = [];
  const entries: CleanupEntry[] = [];
  const stop = async () => void (await Promise.all(entries.map((e) => e.release())));
  try {
    for (let i = 0; i < count; i++) {
      const server = await startRedisServer({
        dataDir: join(d.dataDir, `${label}-redis-${i}`),
        port: await benchPort(d.ports),
        persist: false,
        log: d.log,
      });
      servers.push(server);
      entries.push(d.cleanup.push(`redis-server ${server.url} (${label})`, () => server.stop()));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { servers, stop };
}

/**
 * A Kafka broker on two ports of the bench's choosing. The client port is passed; the
 * controller port is written beforehand into the data dir's server.properties, which
 * startKafkaBroker reuses when it is free (it would otherwise take any free port).
 */
export async function startBenchKafka(d: FixtureDeps): Promise<KafkaBroker> {
  const local = loadLocalConfig(process.env, process.cwd()); // LADDER_CACHE_DIR, KAFKA_HOME like npm start
  const libsDir = await ensureKafkaJars({ cacheDir: local.cacheDir, kafkaHome: local.kafkaHome, log: d.log });
  const dataDir = join(d.dataDir, "kafka");
  const port = await benchPort(d.ports);
  const controllerPort = await benchPort(d.ports);
  await mkdir(dataDir, { recursive: true });
  await writeFile(join(dataDir, "server.properties"), brokerProperties({ port, controllerPort, logDir: join(dataDir, "logs") }));
  // the JVM's full JIT: the benches measure sustained load, and their figures compare with earlier runs
  const broker = await startKafkaBroker({ libsDir, dataDir, port, log: d.log, jit: "full" });
  d.cleanup.push(`kafka broker ${broker.brokers.join(",")}`, () => broker.stop());
  return broker;
}

/**
 * A LogClient of the bench's own on `broker`, its admin connected (close() disconnects it).
 * Its log is silenced: the broker's routine hiccups (a fresh topic's leader not yet known)
 * are retried, and real failures reach the caller as errors.
 */
export function benchLogClient(d: Pick<FixtureDeps, "log">, broker: KafkaBroker, clientId: string): Promise<LogClient> {
  return LogClient.open(broker.brokers, clientId, d.log.child({ component: "kafka" }, { level: "fatal" }));
}

/**
 * The bench's own connection to one of its redis-servers. Commands fail after 3 retries;
 * connection errors are not logged (a server stopped by the clean-up while a benchmark
 * still holds a connection to it is expected on Ctrl-C).
 */
export function benchRedis(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 3 });
  redis.on("error", () => {});
  return redis;
}
