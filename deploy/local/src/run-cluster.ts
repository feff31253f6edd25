// The launcher's foreground run, once main.ts has claimed the data dir: checks the fixed ports, starts
// the cluster (local-cluster.ts) under a supervisor that restarts what dies, keeps the launcher's state
// file for `npm run cli -- status`, prints the summary, and stops everything on SIGINT or SIGTERM.
import type { Config } from "@ladder/platform/config";
import { launcherStatePath } from "@ladder/platform/launcher-state";
import { rootLogger } from "@ladder/platform/logger";
import { clusterUnits } from "./cluster-units.js";
import { launcherPorts, portInUse } from "./launch-ports.js";
import type { StartArgs } from "./launcher-args.js";
import { LauncherOutput } from "./launcher-output.js";
import { levelNumber } from "./log-format.js";
import type { LocalConfig } from "./local-config.js";
import { clusterSummary, startLocalCluster, type LocalCluster } from "./local-cluster.js";
import { DEFAULT_RESTART_POLICY } from "./restart-policy.js";
import { StateFile } from "./state-file.js";
import { Supervisor } from "./supervisor.js";

export async function runCluster(local: LocalConfig, cluster: Config, args: StartArgs): Promise<void> {
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
}
