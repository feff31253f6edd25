// `npm start`: the whole cluster on this machine, on embedded defaults (local-cluster.ts): a
// single-node Kafka broker (KRaft), one redis-server per shard (or the replica layout with Redis
// Sentinel, LADDER_LOCAL_REPLICAS=n), the shard nodes, router and ingest, and the browser gateway
// with its dashboard (LADDER_GATEWAY_LISTEN, http://127.0.0.1:8080/); prints what runs where.
// Every one of those processes is supervised (supervisor.ts, cluster-units.ts): one that dies is
// started again on the same ports after a backoff pause (restart-policy.ts) while the others keep
// running; the launcher's view of them is kept in <data dir>/launcher-state.json for `npm run cli --
// status`. Ctrl-C (or SIGTERM) stops everything: services first, then Redis and Kafka. Data stays
// under .ladder/ between runs: Kafka's log (and, with LADDER_REDIS_PERSIST=1, Redis's AOF).
import { loadConfig } from "@ladder/platform/config";
import { launcherStatePath } from "@ladder/platform/launcher-state";
import { rootLogger } from "@ladder/platform/logger";
import { clusterUnits } from "./cluster-units.js";
import { loadLocalConfig } from "./local-config.js";
import { clusterSummary, startLocalCluster, type LocalCluster } from "./local-cluster.js";
import { DEFAULT_RESTART_POLICY } from "./restart-policy.js";
import { StateFile } from "./state-file.js";
import { Supervisor } from "./supervisor.js";

const local = loadLocalConfig(process.env, process.cwd());
const cluster = loadConfig(process.env); // validates the LADDER_* settings passed to the services
const log = rootLogger({ level: local.logLevel, name: "local-cluster" });
const startedAtMs = Date.now();

let started: LocalCluster;
try {
  started = await startLocalCluster(local, cluster, process.env, log);
} catch (err) {
  log.error({ err }, "the cluster did not start");
  process.exit(1);
}

const state = new StateFile(launcherStatePath(local.dataDir), {
  launcherPid: process.pid, startedAtMs, router: started.services.routerAddress, ingest: started.services.ingestAddress,
}, log);
const supervisor: Supervisor = new Supervisor({ policy: DEFAULT_RESTART_POLICY, log, onChange: () => state.write(supervisor.processes()) });
for (const { spec, running } of clusterUnits({ local, ...started, log })) supervisor.watch(spec, running);

let stopping: Promise<void> | undefined;
const stop = (signal: NodeJS.Signals) => (stopping ??= (async () => {
  log.info({ signal }, "stopping the cluster");
  await supervisor.stop();
  state.remove();
  log.info("stopped");
  process.exit(0);
})());
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));

console.log(clusterSummary(started, local, cluster));
