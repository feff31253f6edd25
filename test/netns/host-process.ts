// How the partition harness starts a process on one of its hosts, and its Kafka broker: the command
// runs through `ip netns exec <namespace>` (cluster.ts builds it), its output is kept and logged, and
// the start is complete once a line of it says ready.
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Logger } from "@ladder/platform/logger";
import { REPO } from "@ladder/deploy/built-entry";
import { brokerProperties, randomClusterId } from "@ladder/deploy/kafka-config";
import { spawnManaged, type ManagedProcess } from "@ladder/deploy/managed-process";
import { describeKafka, warmKafka } from "@ladder/log/kafka-ready";
import { LAUNCH_BACKOFF, retryUntil } from "@ladder/platform/backoff";

export const KAFKA_PORT = 9092;
const KAFKA_HARNESS_PORT = 9093;
const KAFKA_CONTROLLER_PORT = 9094;
const LOG4J_CONFIG = fileURLToPath(new URL("../../deploy/local/kafka/log4j2.xml", import.meta.url));
const JVM_FLAGS = ["-Xms256m", "-Xmx512m", "-XX:+ExitOnOutOfMemoryError", "-Djava.awt.headless=true"];

/** A ready test for a service's pino line with this `msg`. */
export const readyLine = (msg: string) => (line: string) => line.startsWith("{") && line.includes(`"msg":"${msg}"`);

/** Spawns, resolves once a line satisfies `ready`; rejects with the output when it exits or 90 s pass. */
export function startUntil(
  name: string,
  o: { command: string; args: string[]; env?: Record<string, string>; log: Logger },
  ready: (line: string) => boolean,
): Promise<ManagedProcess> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const proc = spawnManaged({
      ...o,
      cwd: REPO,
      levelOf: (line) => (line.includes('"level":50') || line.includes('"level":60') ? "error" : "debug"),
      onLine: (line) => {
        if (settled || !ready(line)) return;
        settled = true;
        clearTimeout(timer);
        resolve(proc);
      },
    });
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void proc.kill();
      reject(new Error(`${name} ${why}\n${proc.output()}`));
    };
    const timer = setTimeout(() => fail("not ready after 90 s"), 90_000);
    void proc.exited.then((s) => fail(`exited (${JSON.stringify(s)})`));
  });
}

/**
 * The partition harness's Kafka broker (KRaft, one node) on its host at `host`: the cluster's listener
 * on host:9092 advertised as kafka.pt:9092 (each client host resolves that to its own link), the
 * harness's own on host:9093, the controller on the host's loopback. `start` runs the broker in the
 * host's namespace; this resolves once it answers and its coordinators are ready.
 */
export async function startKafka(
  o: { dataDir: string; kafkaLibs: string },
  host: string,
  start: (cmd: { command: string; args: string[] }, ready: (line: string) => boolean) => Promise<void>,
): Promise<void> {
  const dir = join(o.dataDir, "kafka");
  const logDir = join(dir, "logs");
  await mkdir(dir, { recursive: true });
  const own: Record<string, string> = {
    "controller.quorum.voters": `1@127.0.0.1:${KAFKA_CONTROLLER_PORT}`,
    listeners: `PLAINTEXT://${host}:${KAFKA_PORT},HARNESS://${host}:${KAFKA_HARNESS_PORT},CONTROLLER://127.0.0.1:${KAFKA_CONTROLLER_PORT}`,
    "advertised.listeners": `PLAINTEXT://kafka.pt:${KAFKA_PORT},HARNESS://${host}:${KAFKA_HARNESS_PORT}`,
    "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,HARNESS:PLAINTEXT,CONTROLLER:PLAINTEXT",
  };
  const base = brokerProperties({ port: KAFKA_PORT, controllerPort: KAFKA_CONTROLLER_PORT, logDir })
    .split("\n")
    .filter((l) => !Object.keys(own).some((k) => l.startsWith(`${k}=`)));
  const configPath = join(dir, "server.properties");
  await writeFile(configPath, [...base, ...Object.entries(own).map(([k, v]) => `${k}=${v}`)].join("\n"));
  const jvm = [...JVM_FLAGS, `-Dlog4j2.configurationFile=${LOG4J_CONFIG}`, `-Dkafka.logs.dir=${dir}`];
  const classpath = ["-cp", join(o.kafkaLibs, "*")];
  const clusterId = randomClusterId();
  await promisify(execFile)("java", [...jvm, ...classpath, "kafka.tools.StorageTool", "format", "-t", clusterId, "-c", configPath], {
    timeout: 90_000,
  });
  await start({ command: "java", args: [...jvm, ...classpath, "kafka.Kafka", configPath] }, () => true);
  const brokers = [`${host}:${KAFKA_HARNESS_PORT}`];
  await retryUntil(() => describeKafka(brokers, clusterId), { ...LAUNCH_BACKOFF, what: `kafka on ${brokers[0]}`, timeoutMs: 90_000 });
  await warmKafka(brokers);
}
