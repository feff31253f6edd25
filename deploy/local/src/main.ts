// `npm start`: the whole cluster on this machine, on embedded defaults (local-cluster.ts): a
// single-node Kafka broker (KRaft), one redis-server per shard (or the replica layout with Redis
// Sentinel, LADDER_LOCAL_REPLICAS=n), the shard nodes, router and ingest, and the browser gateway
// with its dashboard (LADDER_GATEWAY_LISTEN, http://127.0.0.1:8080/); prints what runs where.
// Every one of those processes is supervised (supervisor.ts, cluster-units.ts): one that dies is
// started again on the same ports after a backoff pause (restart-policy.ts) while the others keep
// running; the launcher's view of them is kept in <data dir>/launcher-state.json for `npm run cli --
// status`. Ctrl-C (or SIGTERM, `npm run stop`) stops everything: services first, then Redis and
// Kafka. Data stays under .ladder/ between runs: Kafka's log (and, with LADDER_REDIS_PERSIST=1,
// Redis's AOF); `npm run cluster -- reset` removes it.
//
// One launcher per data dir (pid-file.ts): a second one says so in one line and exits 1, as it does
// when a fixed port is taken (launch-ports.ts). Each process's output goes to its own file under
// <data dir>/logs/ (launcher-output.ts; `npm run logs`); the terminal gets the launcher's own lines
// and the processes' warnings and errors, readable on a terminal (--pretty) or JSON (--json).
// `--background` starts the launcher detached and returns once the cluster runs (background.ts).
import { loadConfig } from "@ladder/platform/config";
import { launcherStatePath } from "@ladder/platform/launcher-state";
import { rootLogger } from "@ladder/platform/logger";
import { startInBackground } from "./background.js";
import { clusterUnits } from "./cluster-units.js";
import { launcherPorts, portInUse } from "./launch-ports.js";
import { parseStartArgs, UsageError, type StartArgs } from "./launcher-args.js";
import { LauncherOutput } from "./launcher-output.js";
import { levelNumber } from "./log-format.js";
import { loadLocalConfig } from "./local-config.js";
import { clusterSummary, startLocalCluster, type LocalCluster } from "./local-cluster.js";
import { alreadyRunning, claimPidFile, pidFilePath } from "./pid-file.js";
import { makeDataDirPrivate } from "./private-data-dir.js";
import { DEFAULT_RESTART_POLICY } from "./restart-policy.js";
import { StateFile } from "./state-file.js";
import { Supervisor } from "./supervisor.js";

let args: StartArgs;
try {
  args = parseStartArgs(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  console.error(err.message);
  process.exit(2);
}
const local = loadLocalConfig(process.env, process.cwd());
const cluster = loadConfig(process.env); // validates the LADDER_* settings passed to the services
makeDataDirPrivate(local.dataDir); // 0700, its files 0600, and the umask that keeps it so
if (args.background && !args.detached) process.exit(await startInBackground(local, args.format ? [`--${args.format}`] : []));

const claim = claimPidFile(pidFilePath(local.dataDir));
if (!claim.claimed) {
  console.error(alreadyRunning(claim.pid, local.dataDir));
  process.exit(1);
}
process.on("exit", () => claim.release());
const taken = await portInUse(launcherPorts(local, cluster));
if (taken !== undefined) {
  console.error(taken);
  process.exit(1);
}

const pretty = args.format !== undefined ? args.format === "pretty" : process.stdout.isTTY === true;
const output = new LauncherOutput({
  dataDir: local.dataDir,
  terminal: args.detached ? undefined : process.stdout,
  terminalLevel: levelNumber(local.logLevel),
  pretty,
  color: pretty && process.stdout.isTTY === true,
});
// debug at least: the children's routine lines reach their log files at debug
const log = rootLogger({ level: local.logLevel === "trace" ? "trace" : "debug", name: "local-cluster", destination: output });
const startedAtMs = Date.now();

// kafkajs's notice that its default partitioner changed in 2.0: every record names its partition
const serviceEnv = { ...process.env, KAFKAJS_NO_PARTITIONER_WARNING: "1" };
let started: LocalCluster;
try {
  started = await startLocalCluster(local, cluster, serviceEnv, log);
} catch (err) {
  log.error({ err }, "the cluster did not start");
  process.exit(1);
}

const state = new StateFile(
  launcherStatePath(local.dataDir),
  {
    launcherPid: process.pid,
    startedAtMs,
    router: started.services.routerAddress,
    ingest: started.services.ingestAddress,
  },
  log,
);
// written once every process is watched, then on every change: a background start waits for it whole
let watching = false;
const supervisor: Supervisor = new Supervisor({
  policy: DEFAULT_RESTART_POLICY,
  log,
  onChange: () => watching && state.write(supervisor.processes()),
});
for (const { spec, running } of clusterUnits({ local, ...started, log })) supervisor.watch(spec, running);
watching = true;
state.write(supervisor.processes());

let stopping: Promise<void> | undefined;
const stop = (signal: NodeJS.Signals) =>
  (stopping ??= (async () => {
    log.info({ signal }, "stopping the cluster");
    await supervisor.stop();
    state.remove();
    log.info("stopped");
    process.exit(0);
  })());
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));

console.log(clusterSummary(started, local, cluster));
