// `npm start -- --background` (and `npm run cluster -- start`): starts the launcher (main.ts) as a
// detached process that outlives this one, its terminal output and anything it prints going to
// <data dir>/logs/launcher.log; waits until its state file names it (the whole cluster is up) and
// prints what runs where, or, when it exits first, why (the end of its log). `npm run stop` ends it.
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, statSync } from "node:fs";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { launcherStatePath, readLauncherState, type LauncherState } from "@ladder/platform/launcher-state";
import { LAUNCHER_SOURCE, logFilePath, logsDir } from "./log-files.js";
import type { LocalConfig } from "./local-config.js";
import { alreadyRunning, pidFilePath, runningLauncher } from "./pid-file.js";

const MAIN = fileURLToPath(new URL(`./main${extname(fileURLToPath(import.meta.url))}`, import.meta.url));
const START_TIMEOUT_MS = 10 * 60_000; // a first start fetches Kafka's jars
const POLL_MS = 250;

/** Starts the launcher in the background; resolves with this command's exit code once it runs or has failed. */
export async function startInBackground(local: LocalConfig, args: readonly string[]): Promise<number> {
  const running = runningLauncher(pidFilePath(local.dataDir));
  if (running !== undefined) {
    console.error(alreadyRunning(running, local.dataDir));
    return 1;
  }
  mkdirSync(logsDir(local.dataDir), { recursive: true });
  const logPath = logFilePath(local.dataDir, LAUNCHER_SOURCE);
  const logStart = fileSize(logPath);
  const out = openSync(logPath, "a");
  const child = spawn(process.execPath, [...process.execArgv, MAIN, "--detached", ...args], {
    detached: true,
    stdio: ["ignore", out, out],
    env: process.env,
  });
  closeSync(out);
  let exit: number | null | undefined;
  child.once("exit", (code, signal) => void (exit = code ?? (signal ? 128 : 1)));
  child.unref();
  console.log(`starting ladder in the background (pid ${child.pid}); its log: ${logPath}`);
  const statePath = launcherStatePath(local.dataDir);
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const state = readLauncherState(statePath);
    if (state !== undefined && state.launcherPid === child.pid) {
      console.log(backgroundSummary(state, local.dataDir));
      return 0;
    }
    if (exit !== undefined || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  if (exit === undefined) process.kill(child.pid!, "SIGTERM");
  const tail = readFileSync(logPath).subarray(logStart).toString("utf8").trimEnd().split("\n").slice(-30).join("\n");
  console.error(
    `${tail}\nladder did not start (${exit === undefined ? `not running after ${START_TIMEOUT_MS / 1000} s` : `the launcher exited with code ${exit}`}); the whole log: ${logPath}`,
  );
  return 1;
}

/** What runs where, from a background launcher's state. */
export function backgroundSummary(state: LauncherState, dataDir: string): string {
  const gateway = state.processes.find((p) => p.name === "gateway");
  const width = Math.max(...state.processes.map((p) => p.name.length));
  return [
    `ladder is running in the background (pid ${state.launcherPid}):`,
    ...(gateway ? [`  dashboard  http://${gateway.address}/`] : []),
    `  router     ${state.router}`,
    `  ingest     ${state.ingest}`,
    `  data       ${dataDir}`,
    `  logs       ${logsDir(dataDir)}   (npm run logs [-- <name>...])`,
    "processes:",
    ...state.processes.map((p) => `  ${p.name.padEnd(width)}  pid ${String(p.pid ?? "-").padEnd(7)} ${p.address}`),
    "status: npm run cluster -- status     stop: npm run stop",
  ].join("\n");
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
