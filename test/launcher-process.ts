// The local cluster launcher (deploy/local/src/main.ts, `npm start`) run as a child process for tests:
// on free ports, with its own data dir, topic and key prefix, its output kept for failure messages,
// and its state file (platform/src/launcher-state.ts) read to find the processes it supervises.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import {
  launcherStatePath,
  processAlive,
  readLauncherState,
  type LauncherProcess,
  type LauncherState,
} from "@ladder/platform/launcher-state";
import { nodeCommand } from "@ladder/deploy/built-entry";
import { freePort, portIsFree } from "@ladder/deploy/free-port";

const REPO = join(import.meta.dirname, "..");

export interface LauncherRun {
  child: ChildProcess;
  env: Record<string, string>;
  dataDir: string;
  kafkaPort: number;
  redisPorts: number[];
  /** Everything the launcher printed so far (its own pino lines and the summary). */
  output(): string;
  /** Its state file now (undefined before it is written or after it is removed). */
  state(): LauncherState | undefined;
  process(name: string): LauncherProcess;
  /** Resolves with the launcher's exit code (null: killed by a signal). */
  exited: Promise<number | null>;
}

/** `count` consecutive free ports on 127.0.0.1, none of them Redis's default 6379. */
export async function freePortRange(count: number): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    if (base <= 6379 && base + count > 6379) continue;
    const free = await Promise.all(Array.from({ length: count }, (_, i) => portIsFree(base + i)));
    if (free.every(Boolean)) return base;
  }
}

/** A launcher's environment: its data dir, free Kafka and Redis ports, any-port listen addresses, then `settings`. */
export async function launcherEnv(
  dataDir: string,
  settings: Record<string, string>,
): Promise<{ env: Record<string, string>; kafkaPort: number; redisBase: number }> {
  const kafkaPort = await freePort();
  const redisBase = await freePortRange(3);
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => !e[0].startsWith("LADDER_") && e[1] !== undefined),
  );
  const env: Record<string, string> = {
    ...inherited,
    LADDER_DATA_DIR: dataDir,
    LADDER_KAFKA_PORT: String(kafkaPort),
    LADDER_REDIS_BASE_PORT: String(redisBase),
    LADDER_LOCAL_SHARDS: "3",
    LADDER_ROUTER_LISTEN: "127.0.0.1:0",
    LADDER_INGEST_LISTEN: "127.0.0.1:0",
    LADDER_GATEWAY_LISTEN: "127.0.0.1:0",
    LADDER_ROUTER_METRICS_LISTEN: "127.0.0.1:0",
    LADDER_INGEST_METRICS_LISTEN: "127.0.0.1:0",
    LADDER_SHARD_METRICS_LISTEN: "127.0.0.1:0",
    ...settings,
  };
  return { env, kafkaPort, redisBase };
}

export async function startLauncher(dataDir: string, settings: Record<string, string>): Promise<LauncherRun> {
  const { env, kafkaPort, redisBase } = await launcherEnv(dataDir, settings);
  const launcher = nodeCommand("deploy/local/src/main.ts"); // its build, as `npm start` runs it
  const child = spawn(launcher.command, launcher.args, { cwd: REPO, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (b: Buffer) => void (out += b.toString("utf8")));
  child.stderr!.on("data", (b: Buffer) => void (out += b.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const statePath = launcherStatePath(dataDir);
  const run: LauncherRun = {
    child,
    env,
    dataDir,
    kafkaPort,
    redisPorts: [0, 1, 2].map((i) => redisBase + i),
    exited,
    output: () => out,
    state: () => readLauncherState(statePath),
    process(name) {
      const p = run.state()?.processes.find((x) => x.name === name);
      if (!p) throw new Error(`the launcher's state names no process "${name}"`);
      return p;
    },
  };
  return run;
}

/** Polls `check` every `everyMs` until it returns a value other than undefined; throws after `timeoutMs` with `what`. */
export async function until<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined> | T | undefined,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** What a second start prints, in one line, while a launcher runs on `dataDir`. */
export const ALREADY_RUNNING = (pid: number, dataDir: string) =>
  `ladder is already running (pid ${pid}, data dir ${dataDir}); stop it with: npm run stop\n`;
/** A refusal that needs no cluster (a second start, a reset while one runs) comes within this on a loaded machine. */
export const QUICKLY_MS = 12_000;

/** Those of `pids` that still run. */
export function alivePids(pids: Iterable<number>): number[] {
  return [...pids].filter(processAlive);
}

/** `npm run cli -- <args>` as a user runs it (its build): exit code and output. */
export function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return runScript("cli/src/main.ts", args, env);
}

/**
 * The launcher's commands as a user runs them: `npm start -- <args>` (main) or `npm run cluster --
 * <args>` (control): exit code, output and how long it took. A launcher started in the background
 * keeps running after this resolves.
 */
export async function runLauncherCommand(
  script: "main" | "control",
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; ms: number }> {
  const started = Date.now();
  const result = await runScript(`deploy/local/src/${script}.ts`, args, env);
  return { ...result, ms: Date.now() - started };
}

function runScript(file: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const cmd = nodeCommand(file, args);
    const child = spawn(cmd.command, cmd.args, { cwd: REPO, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (b: Buffer) => void (out += b.toString("utf8")));
    child.stderr.on("data", (b: Buffer) => void (out += b.toString("utf8")));
    child.once("exit", (code) => resolve({ code, out }));
  });
}
