// Starts a real single-node Apache Kafka broker (KRaft, broker and controller in one JVM) as a child
// process, from a directory of jars (see kafka-jars.ts), keeping all its state in `dataDir`:
//
//   dataDir/server.properties   written on every start (see kafka-config.ts)
//   dataDir/logs/               log.dirs: formatted once, so a restart on the same dataDir keeps the data
//   dataDir/server.log          the broker's own log (deploy/local/kafka/log4j2.xml)
//   dataDir/tls/                secured only: its CA and certificate (kafka-tls.ts)
//   dataDir/scram-users         secured only: the SCRAM users the log dir was formatted with (names)
//
// Secured (`security` given), clients log in with SCRAM-SHA-512 over TLS and need ACLs (kafka-acls.ts);
// the users are made when the log dir is formatted (KIP-900), so a log dir formatted without one of
// them is refused with what to do rather than started with logins that cannot work.
//
// Without a `port`, a restart on the same dataDir comes back on the ports it had if they are still free.
//
// The JVM compiles with C1 only and collects with the serial collector unless `jit: "full"` is asked
// for: on a machine of two cores, C2's compiler threads cost more CPU than its faster code saves for
// as long as a local broker usually lives (a test run, a development session): its start, its topics
// and millions of records cost less CPU with C1 alone. A benchmark of sustained load asks for "full".
import { execFile } from "node:child_process";
import { access, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type Logger, redactSecrets } from "@ladder/platform/logger";
import { freePort, portIsFree } from "./free-port.js";
import {
  type BrokerPorts,
  type BrokerSecurityFiles,
  brokerProperties,
  clusterIdOf,
  randomClusterId,
  recordedPorts,
} from "./kafka-config.js";
import { ensureBrokerTls } from "./kafka-tls.js";
import type { KafkaSecurity } from "@ladder/platform/kafka-security";
import { describeKafka, warmKafka } from "@ladder/log/kafka-ready";
import { describeExit, type LineLevel, type ManagedProcess, spawnManaged } from "./managed-process.js";
import { LAUNCH_BACKOFF, retryUntil, sleep } from "@ladder/platform/backoff";

export interface KafkaBroker {
  /** Bootstrap servers, e.g. ["127.0.0.1:9092"]. */
  brokers: string[];
  dataDir: string;
  /** Clean shutdown: SIGTERM, SIGKILL if still running after 30 s; resolves once it has exited. */
  stop(): Promise<void>;
  /** SIGKILL (a crash, for fault tests); resolves once it has exited. */
  kill(): Promise<void>;
  /** The local process, to watch (the launcher restarts it when it dies); none for a container. */
  readonly process?: ManagedProcess;
  /** Secured: the broker's own login (super user) over TLS, for setting up ACLs; undefined: PLAINTEXT. */
  readonly superUser?: KafkaSecurity;
  /** Secured: the CA file clients trust (LADDER_KAFKA_TLS_CA). */
  readonly caFile?: string;
}

/** A secured broker's logins: its own (the super user) and every role's, made when the log dir is formatted. */
export interface KafkaBrokerSecurity {
  brokerUser: string;
  brokerPassword: string;
  /** SCRAM-SHA-512 users: name → password. */
  users: Readonly<Record<string, string>>;
}

export interface KafkaBrokerOptions {
  /** Directory of the broker's jars, from ensureKafkaJars. */
  libsDir: string;
  dataDir: string;
  /** Client port on 127.0.0.1; absent or 0 for the previous run's port if free, else any free port. */
  port?: number;
  log: Logger;
  readyTimeoutMs?: number; // default 60 s
  /** The java executable (Java 17+). */
  java?: string;
  /** SASL_SSL with SCRAM users and ACLs; absent: a PLAINTEXT listener without login. */
  security?: KafkaBrokerSecurity;
  /** "quick" (default): C1 only and the serial collector; "full": the JVM's defaults (C2, G1), for sustained load. */
  jit?: "quick" | "full";
}

const LOG4J_CONFIG = fileURLToPath(new URL("../kafka/log4j2.xml", import.meta.url));
const JVM_FLAGS = ["-Xms256m", "-Xmx768m", "-XX:+ExitOnOutOfMemoryError", "-Djava.awt.headless=true"];
const QUICK_JIT_FLAGS = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"];
const STOP_GRACE_MS = 30_000;
const PORT_RELEASE_WAIT_MS = 15_000; // a previous broker on a fixed port may still be shutting down
const run = promisify(execFile);

export async function startKafkaBroker(opts: KafkaBrokerOptions): Promise<KafkaBroker> {
  const { libsDir, dataDir, log, readyTimeoutMs = 60_000, java = "java" } = opts;
  const logDir = join(dataDir, "logs");
  const configPath = join(dataDir, "server.properties");
  await mkdir(dataDir, { recursive: true });
  const ports = await choosePorts(configPath, opts.port ?? 0);
  const { security } = opts;
  const files: BrokerSecurityFiles | undefined = security && {
    ...(await ensureBrokerTls(join(dataDir, "tls"))),
    user: security.brokerUser,
    password: security.brokerPassword,
  };
  await writeFile(configPath, brokerProperties({ ...ports, logDir, security: files }), { mode: 0o600 }); // it holds the broker's password
  const jit = opts.jit === "full" ? [] : QUICK_JIT_FLAGS;
  const jvm = [...JVM_FLAGS, ...jit, `-Dlog4j2.configurationFile=${LOG4J_CONFIG}`, `-Dkafka.logs.dir=${dataDir}`];
  const classpath = ["-cp", join(libsDir, "*")];
  const scram = security && { ...security.users, [security.brokerUser]: security.brokerPassword };
  const clusterId = await formatOnce({ java, jvm, classpath, configPath, logDir, log, scram, dataDir });
  const superUser: KafkaSecurity | undefined = files && {
    sasl: { mechanism: "scram-sha-512", username: files.user, password: files.password },
    tls: { caFile: files.caFile },
  };

  const started = Date.now();
  const brokers = [`127.0.0.1:${ports.port}`];
  log.info({ brokers, controllerPort: ports.controllerPort, dataDir }, "starting kafka broker");
  const proc = spawnManaged({
    command: java,
    args: [...jvm, ...classpath, "kafka.Kafka", configPath],
    cwd: dataDir,
    log: log.child({ proc: "kafka" }),
    levelOf: kafkaLineLevel,
  });
  await waitReady(proc, brokers, clusterId, dataDir, readyTimeoutMs, superUser);
  log.info({ brokers, ms: Date.now() - started }, "kafka ready");

  return {
    brokers,
    dataDir,
    process: proc,
    ...(superUser ? { superUser, caFile: files!.caFile } : {}),
    stop: async () => {
      const s = await proc.stop(STOP_GRACE_MS);
      log.info({ brokers, how: describeExit(s) }, "kafka stopped");
    },
    kill: async () => {
      await proc.kill();
      log.info({ brokers }, "kafka killed");
    },
  };
}

/** The client port asked for (waiting for it to be released), else the recorded one if free, else any. */
async function choosePorts(configPath: string, port: number): Promise<BrokerPorts> {
  const recorded = recordedPorts(await readFile(configPath, "utf8").catch(() => ""));
  if (port !== 0) await waitForFreePort(port);
  const reuse = async (p: number | undefined): Promise<number | undefined> =>
    p !== undefined && p !== port && (await portIsFree(p)) ? p : undefined;
  const clientPort = port !== 0 ? port : ((await reuse(recorded?.port)) ?? (await freePort()));
  let controllerPort = (await reuse(recorded?.controllerPort)) ?? (await freePort());
  while (controllerPort === clientPort) controllerPort = await freePort();
  return { port: clientPort, controllerPort };
}

async function waitForFreePort(port: number): Promise<void> {
  const deadline = Date.now() + PORT_RELEASE_WAIT_MS;
  while (!(await portIsFree(port))) {
    if (Date.now() > deadline) throw new Error(`port 127.0.0.1:${port} is in use (another broker running?)`);
    await sleep(250);
  }
}

interface FormatOptions {
  java: string;
  jvm: string[];
  classpath: string[];
  configPath: string;
  logDir: string;
  log: Logger;
  /** SCRAM-SHA-512 users to make (name → password); undefined: none. */
  scram: Readonly<Record<string, string>> | undefined;
  dataDir: string;
}

/**
 * Formats the log dir unless a previous run did (with the SCRAM users asked for, their names kept in
 * dataDir/scram-users); returns the cluster id either way. A log dir formatted without one of the
 * users asked for is refused: SCRAM users are made only by the format here.
 */
async function formatOnce({ java, jvm, classpath, configPath, logDir, log, scram, dataDir }: FormatOptions): Promise<string> {
  const metaPath = join(logDir, "meta.properties");
  const usersPath = join(dataDir, "scram-users");
  const existing = await readFile(metaPath, "utf8").then(clusterIdOf, () => undefined);
  if (existing !== undefined) {
    const made = new Set((await readFile(usersPath, "utf8").catch(() => "")).split("\n").filter(Boolean));
    const missing = Object.keys(scram ?? {}).filter((u) => !made.has(u));
    if (missing.length)
      throw new Error(
        `kafka log dir ${logDir} was formatted without the SASL users ${missing.join(", ")}: ` +
          `remove ${dataDir} (its data is lost; for the local cluster: npm run cluster -- reset) so that it is formatted again with them`,
      );
    return existing;
  }
  const clusterId = randomClusterId();
  const users = Object.entries(scram ?? {}).flatMap(([name, password]) => [
    "--add-scram",
    `SCRAM-SHA-512=[name=${name},password=${password}]`,
  ]);
  const args = [...jvm, ...classpath, "kafka.tools.StorageTool", "format", "-t", clusterId, "-c", configPath, ...users];
  try {
    await run(java, args, { timeout: 60_000 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    // the command line carries the SCRAM passwords: masked, and the cause (holding it too) left out
    throw new Error(redactSecrets(`kafka StorageTool format failed: ${e.message}\n${e.stdout ?? ""}${e.stderr ?? ""}`));
  }
  await access(metaPath);
  await writeFile(
    usersPath,
    Object.keys(scram ?? {})
      .map((u) => `${u}\n`)
      .join(""),
    { mode: 0o600 },
  );
  log.info({ logDir, clusterId, scramUsers: Object.keys(scram ?? {}) }, "kafka log dir formatted");
  return clusterId;
}

/**
 * Waits for the broker to answer as `clusterId`, then for its coordinators (see warmKafka); on failure
 * stops it and throws with its output and the tail of its log.
 */
async function waitReady(
  proc: ManagedProcess,
  brokers: string[],
  clusterId: string,
  dataDir: string,
  timeoutMs: number,
  security: KafkaSecurity | undefined,
): Promise<void> {
  try {
    await retryUntil(() => describeKafka(brokers, clusterId, security), {
      ...LAUNCH_BACKOFF,
      what: `kafka broker on ${brokers.join(",")}`,
      timeoutMs,
      giveUp: () => (proc.hasExited() ? "process ended before it was ready" : undefined),
    });
    await warmKafka(brokers, security);
  } catch (err) {
    await proc.stop(5000);
    const s = await proc.exited;
    const serverLog = await tailFile(join(dataDir, "server.log"), 40);
    const message = `${(err as Error).message} (${describeExit(s)})`;
    throw new Error(`${message}\n--- output ---\n${proc.output()}\n--- server.log ---\n${serverLog}`, { cause: err });
  }
}

async function tailFile(path: string, lines: number): Promise<string> {
  const text = await readFile(path, "utf8").catch(() => "");
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

/**
 * Broker stdout carries only log4j WARN and up (see log4j2.xml). Its WARNs on a healthy single node are
 * routine (controller activation, closing clients at shutdown), so only ERROR/FATAL lines are raised.
 */
function kafkaLineLevel(line: string): LineLevel {
  return /\] (ERROR|FATAL) /.test(line) ? "error" : "debug";
}
