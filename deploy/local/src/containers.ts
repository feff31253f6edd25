// The same Kafka broker and Redis servers as kafka-broker.ts and redis-server.ts, run as containers by
// testcontainers when a Docker engine answers. Machines without an engine use the local processes.
//
// The images are ladder's own, built on this machine by deploy/images/build.sh (no image registry is
// reachable here): ladder/kafka (Debian's Java 17 + the broker's jars from Maven Central) and ladder/redis
// (Debian's redis-server). A missing image fails the start at once, naming the build script; nothing is
// pulled. The engine runs without a bridge network (deploy/images/engine.sh: dockerd --bridge=none), so
// every container uses host networking on free loopback ports chosen here, and the addresses are the
// same as the local processes' (127.0.0.1:port). Testcontainers' reaper (Ryuk) is an image from Docker
// Hub too: it is disabled, and each container is removed by stop() or kill().
//
// `dataDir` of the returned handles is the data path inside the container; the data dies with the
// container (no restart on the same data here).
import { GenericContainer, getContainerRuntimeClient, ImageName, type StartedTestContainer, Wait } from "testcontainers";
import type { Logger } from "@ladder/platform/logger";
import { freePort } from "./free-port.js";
import type { KafkaBroker } from "./kafka-broker.js";
import { KAFKA_VERSION } from "./kafka-jars.js";
import { randomClusterId } from "./kafka-config.js";
import { describeKafka, warmKafka } from "@ladder/log/kafka-ready";
import { choosePort, redisArgs, type RedisServer } from "./redis-server.js";
import { LAUNCH_BACKOFF, retryUntil } from "@ladder/platform/backoff";

export const KAFKA_IMAGE = `ladder/kafka:${KAFKA_VERSION}`;
export const REDIS_IMAGE = "ladder/redis:bookworm";
export const SERVICES_IMAGE = "ladder/services:dev";
export const BUILD_SCRIPT = "deploy/images/build.sh";

const KAFKA_DATA_DIR = "/var/lib/kafka";
const REDIS_DATA_DIR = "/data";
const STOP_TIMEOUT_MS = 30_000;

// testcontainers reads these when it first talks to the engine: no reaper; and the containers' host is
// this machine's loopback (host networking), not the gateway of a bridge network that does not exist
// (testcontainers looks one up when it runs inside a container itself, and fails without it)
process.env.TESTCONTAINERS_RYUK_DISABLED ??= "true";
process.env.TESTCONTAINERS_HOST_OVERRIDE ??= "127.0.0.1";

/** True when testcontainers finds a working container runtime; false on any error. */
export async function dockerAvailable(): Promise<boolean> {
  try {
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

/** Rejects, naming the build script, unless the engine holds every image given. */
export async function requireImages(...images: string[]): Promise<void> {
  const client = await getContainerRuntimeClient();
  const missing: string[] = [];
  for (const image of images) if (!(await client.image.exists(ImageName.fromString(image)))) missing.push(image);
  if (missing.length > 0) {
    throw new Error(
      `docker image${missing.length > 1 ? "s" : ""} ${missing.join(", ")} not built: run \`bash ${BUILD_SCRIPT}\` (no registry is used)`,
    );
  }
}

export interface KafkaContainerOptions {
  log: Logger;
  image?: string;
  readyTimeoutMs?: number; // default 120 s
}

export async function startKafkaContainer({
  log,
  image = KAFKA_IMAGE,
  readyTimeoutMs = 120_000,
}: KafkaContainerOptions): Promise<KafkaBroker> {
  const started = Date.now();
  await requireImages(image);
  const port = await freePort();
  let controllerPort = await freePort();
  while (controllerPort === port) controllerPort = await freePort();
  const container = await new GenericContainer(image)
    .withNetworkMode("host")
    .withEnvironment({
      KAFKA_NODE_ID: "1",
      KAFKA_CLUSTER_ID: randomClusterId(),
      KAFKA_PORT: String(port),
      KAFKA_CONTROLLER_PORT: String(controllerPort),
      KAFKA_DATA_DIR,
    })
    .withWaitStrategy(Wait.forListeningPorts()) // none exposed: readiness is the describe below
    .withStartupTimeout(readyTimeoutMs)
    .start();
  const brokers = [`127.0.0.1:${port}`];
  try {
    await retryUntil(() => describeKafka(brokers), {
      ...LAUNCH_BACKOFF,
      what: `kafka container on ${brokers[0]}`,
      timeoutMs: readyTimeoutMs,
    });
    await warmKafka(brokers);
  } catch (err) {
    const logs = await containerOutput(container);
    await container.stop({ timeout: 0 }).catch(() => undefined);
    throw new Error(`${(err as Error).message}\n--- container output ---\n${logs}`, { cause: err });
  }
  log.info({ brokers, image, ms: Date.now() - started }, "kafka container ready");
  return { brokers, dataDir: KAFKA_DATA_DIR, ...containerControls(container, log, { brokers }) };
}

export interface RedisContainerOptions {
  /** Append-only file with fsync every second when true (inside the container). */
  persist: boolean;
  log: Logger;
  image?: string;
  readyTimeoutMs?: number; // default 60 s
}

export async function startRedisContainer({
  persist,
  log,
  image = REDIS_IMAGE,
  readyTimeoutMs = 60_000,
}: RedisContainerOptions): Promise<RedisServer> {
  const started = Date.now();
  await requireImages(image);
  const port = await choosePort(0);
  const container = await new GenericContainer(image)
    .withNetworkMode("host")
    .withEntrypoint(["redis-server"])
    .withCommand(redisArgs({ port, dataDir: REDIS_DATA_DIR, persist }))
    .withWaitStrategy(Wait.forLogMessage("Ready to accept connections"))
    .withStartupTimeout(readyTimeoutMs)
    .start();
  const url = `redis://127.0.0.1:${port}`;
  log.info({ url, image, persist, ms: Date.now() - started }, "redis container ready");
  return { url, port, dataDir: REDIS_DATA_DIR, ...containerControls(container, log, { url }) };
}

/** stop: SIGTERM, SIGKILL after 30 s, then remove; kill: SIGKILL (a crash), then remove. */
function containerControls(
  container: StartedTestContainer,
  log: Logger,
  what: Record<string, unknown>,
): { stop(): Promise<void>; kill(): Promise<void> } {
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

async function containerOutput(container: StartedTestContainer): Promise<string> {
  try {
    const chunks: string[] = [];
    const stream = await container.logs({ tail: 40 });
    await new Promise<void>((resolve) => {
      stream
        .on("data", (c: Buffer | string) => chunks.push(c.toString()))
        .on("end", resolve)
        .on("error", () => resolve());
      setTimeout(resolve, 2000);
    });
    return chunks.join("");
  } catch {
    return "(no output)";
  }
}
