// The same Kafka broker and Redis servers as kafka-broker.ts and redis-server.ts, run as containers by
// testcontainers when a Docker engine answers. Machines without an engine use the local processes.
//
// Kafka (apache/kafka) must advertise the host port Docker maps to its client listener, which is known
// only once the container runs. So the container starts with a shell that waits for a starter script;
// the script, copied in after start, exports KAFKA_ADVERTISED_LISTENERS and runs the image's own
// /etc/kafka/docker/run (the approach of Testcontainers' own Kafka modules). A separate flag file is
// written after the script so the shell never runs a script whose copy is still open ("Text file busy").
//
// `dataDir` of the returned handles is the data path inside the container; the data dies with the
// container (no restart on the same data here).
import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from "testcontainers";
import type { Logger } from "@ladder/common/logger";
import type { KafkaBroker } from "./kafka-broker.js";
import { randomClusterId } from "./kafka-config.js";
import { describeKafka, warmKafka } from "./kafka-ready.js";
import { redisArgs, type RedisServer } from "./redis-server.js";
import { LAUNCH_BACKOFF, retryUntil } from "@ladder/common/backoff";

export const KAFKA_IMAGE = "apache/kafka:4.1.1";
export const REDIS_IMAGE = "redis:7";

const KAFKA_PORT = 9092; // client listener, mapped to a random host port
const STARTER_SCRIPT = "/tmp/ladder_start.sh";
const STARTER_READY = "/tmp/ladder_start.ready";
const WAITING_MESSAGE = "ladder: waiting for starter script";
const KAFKA_DATA_DIR = "/tmp/kraft-combined-logs";
const REDIS_PORT = 6379; // inside the container only
const STOP_TIMEOUT_MS = 30_000;

/** True when testcontainers finds a working container runtime; false on any error. */
export async function dockerAvailable(): Promise<boolean> {
  try {
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

export interface KafkaContainerOptions {
  log: Logger;
  image?: string;
  readyTimeoutMs?: number; // default 120 s (includes the image pull)
}

export async function startKafkaContainer({ log, image = KAFKA_IMAGE, readyTimeoutMs = 120_000 }:
  KafkaContainerOptions): Promise<KafkaBroker> {
  const started = Date.now();
  const container = await new GenericContainer(image)
    .withEnvironment(kafkaEnvironment())
    .withExposedPorts(KAFKA_PORT)
    .withCommand(["sh", "-c",
      `echo '${WAITING_MESSAGE}'; while [ ! -f ${STARTER_READY} ]; do sleep 0.1; done; exec ${STARTER_SCRIPT}`])
    .withWaitStrategy(Wait.forLogMessage(WAITING_MESSAGE))
    .withStartupTimeout(readyTimeoutMs)
    .start();
  const brokers = [`${container.getHost()}:${container.getMappedPort(KAFKA_PORT)}`];
  const advertised = `PLAINTEXT://${brokers[0]},BROKER://${container.getHostname()}:9093`;
  await container.copyContentToContainer([
    { content: `#!/bin/bash\nexport KAFKA_ADVERTISED_LISTENERS=${advertised}\nexec /etc/kafka/docker/run\n`,
      target: STARTER_SCRIPT, mode: 0o755 },
  ]);
  await container.copyContentToContainer([{ content: "", target: STARTER_READY }]);
  try {
    await retryUntil(() => describeKafka(brokers), { ...LAUNCH_BACKOFF, what: `kafka container on ${brokers[0]}`, timeoutMs: readyTimeoutMs });
    await warmKafka(brokers);
  } catch (err) {
    await container.stop().catch(() => undefined);
    throw err;
  }
  log.info({ brokers, image, ms: Date.now() - started }, "kafka container ready");
  return { brokers, dataDir: KAFKA_DATA_DIR, ...containerControls(container, log, { brokers }) };
}

/** The image's configure script turns each KAFKA_FOO_BAR into foo.bar in server.properties. */
function kafkaEnvironment(): Record<string, string> {
  return {
    CLUSTER_ID: randomClusterId(),
    KAFKA_NODE_ID: "1",
    KAFKA_PROCESS_ROLES: "broker,controller",
    KAFKA_LISTENERS: `PLAINTEXT://:${KAFKA_PORT},BROKER://:9093,CONTROLLER://:9094`,
    KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: "PLAINTEXT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT",
    KAFKA_INTER_BROKER_LISTENER_NAME: "BROKER",
    KAFKA_CONTROLLER_LISTENER_NAMES: "CONTROLLER",
    KAFKA_CONTROLLER_QUORUM_VOTERS: "1@localhost:9094",
    KAFKA_LOG_DIRS: KAFKA_DATA_DIR,
    KAFKA_NUM_PARTITIONS: "1",
    KAFKA_DEFAULT_REPLICATION_FACTOR: "1",
    KAFKA_MIN_INSYNC_REPLICAS: "1",
    KAFKA_AUTO_CREATE_TOPICS_ENABLE: "false",
    KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: "1",
    KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: "10",
    KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: "1",
    KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: "1",
    KAFKA_TRANSACTION_STATE_LOG_NUM_PARTITIONS: "4",
    KAFKA_BROKER_SESSION_TIMEOUT_MS: "4000",
    KAFKA_BROKER_HEARTBEAT_INTERVAL_MS: "1000",
    KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR: "1",
    KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR: "1",
    KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: "0",
    KAFKA_HEAP_OPTS: "-Xms256m -Xmx768m",
  };
}

export interface RedisContainerOptions {
  /** Append-only file with fsync every second when true (inside the container). */
  persist: boolean;
  log: Logger;
  image?: string;
  readyTimeoutMs?: number; // default 60 s (includes the image pull)
}

export async function startRedisContainer({ persist, log, image = REDIS_IMAGE, readyTimeoutMs = 60_000 }:
  RedisContainerOptions): Promise<RedisServer> {
  const started = Date.now();
  const args = redisArgs({ port: REDIS_PORT, dataDir: "/data", persist })
    .map((a) => (a === "127.0.0.1" ? "0.0.0.0" : a)); // reachable through Docker's port mapping
  const container = await new GenericContainer(image)
    .withExposedPorts(REDIS_PORT)
    .withCommand(["redis-server", ...args, "--protected-mode", "no"])
    .withWaitStrategy(Wait.forLogMessage("Ready to accept connections"))
    .withStartupTimeout(readyTimeoutMs)
    .start();
  const port = container.getMappedPort(REDIS_PORT);
  const url = `redis://${container.getHost()}:${port}`;
  log.info({ url, image, persist, ms: Date.now() - started }, "redis container ready");
  return { url, port, dataDir: "/data", ...containerControls(container, log, { url }) };
}

/** stop: SIGTERM, SIGKILL after 30 s, then remove; kill: SIGKILL (a crash), then remove. */
function containerControls(container: StartedTestContainer, log: Logger, what: Record<string, unknown>):
  { stop(): Promise<void>; kill(): Promise<void> } {
  return {
    stop: async () => {
      await container.stop({ timeout: STOP_TIMEOUT_MS });
      log.info(what, "container stopped");
    },
    kill: async () => {
      const client = await getContainerRuntimeClient();
      await client.container.getById(container.getId()).kill({ signal: "SIGKILL" });
      await container.stop({ timeout: 0 }).catch(() => undefined);
      log.info(what, "container killed");
    },
  };
}
