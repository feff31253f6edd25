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
// This file checks the arguments and settings and claims the data dir; the cluster's code
// (run-cluster.ts) is loaded only after that, so a refused start answers at once.
import { loadConfig } from "@ladder/platform/config";
import { startInBackground } from "./background.js";
import { parseStartArgs, UsageError, type StartArgs } from "./launcher-args.js";
import { loadLocalConfig } from "./local-config.js";
import { alreadyRunning, claimPidFile, pidFilePath } from "./pid-file.js";
import { makeDataDirPrivate } from "./private-data-dir.js";

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
// the cluster's code (its Kafka, Redis and service starters, the supervisor) is loaded only now: a
// refused start (usage, settings, a launcher already running) answers without paying for it
const { runCluster } = await import("./run-cluster.js");
await runCluster(local, cluster, args);
