// `npm run cluster -- <start|stop|status|reset|logs|profile>` (and the shortcuts `npm run stop`, `npm
// run logs`): controls the local cluster of this checkout's data dir (LADDER_DATA_DIR, default .ladder)
// from outside the launcher. The launcher is found by its pid file (pid-file.ts); `stop` sends it
// SIGTERM, which stops everything as Ctrl-C does, and waits until it has exited. Exit codes: 0 done
// (status: running), 1 failed, 2 usage, 3 status: not running.
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { launcherStatePath, processAlive, readLauncherState } from "@ladder/platform/launcher-state";
import { startInBackground } from "./background.js";
import { profileProcess, summary } from "./cpu-profile.js";
import { followLogs } from "./follow-logs.js";
import { parseControlArgs, UsageError, type ControlArgs } from "./launcher-args.js";
import { logsDir } from "./log-files.js";
import { loadLocalConfig, type LocalConfig } from "./local-config.js";
import { pidFilePath, runningLauncher } from "./pid-file.js";
import { resetDataDir } from "./reset.js";

const STOP_TIMEOUT_MS = 120_000;
/** The kinds of process that run Node, which `profile` samples through their inspector. */
const NODE_KINDS = new Set(["shard-node", "router", "ingest", "gateway"]);

let args: ControlArgs;
try {
  args = parseControlArgs(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  console.error(err.message);
  process.exit(2);
}
const local = loadLocalConfig(process.env, process.cwd());
const running = runningLauncher(pidFilePath(local.dataDir));

process.exit(await run(args));

async function run(a: ControlArgs): Promise<number> {
  switch (a.command) {
    case "start":
      return startInBackground(local, []);
    case "stop":
      return stop(local, running);
    case "status":
      return status(local, running);
    case "reset":
      return reset(local, running);
    case "profile":
      return profile(local, running, a.name, a.seconds, a.out);
    case "logs":
      try {
        await followLogs({
          dataDir: local.dataDir,
          names: a.names,
          follow: a.follow,
          lines: a.lines,
          json: a.json,
          write: (t) => void process.stdout.write(t),
        });
        return 0;
      } catch (err) {
        console.error((err as Error).message);
        return 1;
      }
  }
}

async function profile(l: LocalConfig, pid: number | undefined, name: string, seconds: number, out: string | undefined): Promise<number> {
  const state = pid === undefined ? undefined : readLauncherState(launcherStatePath(l.dataDir));
  if (state === undefined || state.launcherPid !== pid) {
    console.error(`ladder is not running (data dir ${l.dataDir}): npm start first`);
    return 1;
  }
  const services = state.processes.filter((p) => NODE_KINDS.has(p.kind));
  const target = state.processes.find((p) => p.name === name);
  if (!target || !NODE_KINDS.has(target.kind)) {
    const what = target ? `${name} is not a Node process (it runs ${target.kind})` : `no process ${name}`;
    console.error(`${what}; the services: ${services.map((p) => p.name).join(", ")}`);
    return 1;
  }
  if (target.pid === null) {
    console.error(`${name} is ${target.state}: nothing to profile now`);
    return 1;
  }
  const file = out ? resolve(out) : join(l.dataDir, "profiles", `${name}-${new Date().toISOString().replace(/[:.]/g, "-")}.cpuprofile`);
  mkdirSync(dirname(file), { recursive: true });
  console.log(`profiling ${name} (pid ${target.pid}) for ${seconds} s …`);
  try {
    const { samples, busyPercent, top } = summary(await profileProcess(target.pid, seconds, file), 10);
    console.log(
      [
        `saved ${file} (open it in Chrome DevTools' Performance panel, or speedscope)`,
        `${samples} samples, ${busyPercent}% of them busy; the functions with the most samples of their own (share of the busy ones):`,
        ...top.map((t) => `  ${(100 * t.share).toFixed(1).padStart(5)}%  ${t.name}  ${t.where}`),
      ].join("\n"),
    );
    return 0;
  } catch (err) {
    console.error(`could not profile ${name}: ${(err as Error).message}`);
    return 1;
  }
}

function reset(l: LocalConfig, pid: number | undefined): number {
  if (pid !== undefined) {
    console.error(`ladder is running (pid ${pid}, data dir ${l.dataDir}); stop it first: npm run stop`);
    return 1;
  }
  const removed = resetDataDir(l.dataDir);
  console.log(
    removed.length === 0
      ? `nothing to remove in ${l.dataDir}`
      : [`removed from ${l.dataDir}:`, ...removed.map((r) => `  ${r.name.padEnd(20)} ${r.what}`), "the next start is a first one"].join(
          "\n",
        ),
  );
  return 0;
}

async function stop(l: LocalConfig, pid: number | undefined): Promise<number> {
  if (pid === undefined) {
    console.log(`ladder is not running (data dir ${l.dataDir})`);
    return 0;
  }
  const started = Date.now();
  console.log(`stopping ladder (pid ${pid}): services, then Redis, then Kafka`);
  process.kill(pid, "SIGTERM");
  while (processAlive(pid)) {
    if (Date.now() - started > STOP_TIMEOUT_MS) {
      console.error(
        `ladder (pid ${pid}) still runs ${STOP_TIMEOUT_MS / 1000} s after SIGTERM; its log: ${logsDir(l.dataDir)}/launcher.log`,
      );
      return 1;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(`stopped in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

function status(l: LocalConfig, pid: number | undefined): number {
  if (pid === undefined) {
    console.log(`ladder is not running (data dir ${l.dataDir})`);
    return 3;
  }
  const state = readLauncherState(launcherStatePath(l.dataDir));
  if (state === undefined || state.launcherPid !== pid) {
    console.log(`ladder is starting (pid ${pid}, data dir ${l.dataDir}); follow it: npm run logs -- launcher`);
    return 0;
  }
  const width = Math.max(...state.processes.map((p) => p.name.length));
  console.log(
    [
      `ladder is running (pid ${pid}, up ${Math.round((Date.now() - state.startedAtMs) / 1000)} s, data dir ${l.dataDir}; logs in ${logsDir(l.dataDir)})`,
      ...state.processes.map(
        (p) =>
          `  ${p.name.padEnd(width)}  ${p.state.padEnd(10)} pid ${String(p.pid ?? "-").padEnd(7)} ${p.address}${p.restarts ? `  restarts ${p.restarts}, last: ${p.lastExit}` : ""}`,
      ),
      "the cluster's own view (shards, lag, Kafka): npm run cli -- status",
    ].join("\n"),
  );
  return 0;
}
