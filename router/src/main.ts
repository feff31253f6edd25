/**
 * Router: LeaderboardService over all shards. Wiring only: one router process, or several
 * sharing the listen address under a supervising process (LADDER_ROUTER_PROCESSES). Without
 * LADDER_STREAM_SECRET, the secret that resume tokens are signed with is made here, once, and
 * shared by the processes forked.
 */
import cluster from "node:cluster";
import { loadConfig } from "@ladder/platform/config";
import { rootLogger } from "@ladder/platform/logger";
import { superviseRouters } from "./control/processes.js";
import { randomSecret } from "./push/resume-token.js";
import { runRouter } from "./router.js";

const config = loadConfig(process.env);
const log = rootLogger({ level: config.logLevel, name: "router" });
const streamSecret = config.streamSecret ?? randomSecret();
if (config.streamSecret === undefined && cluster.isPrimary)
  log.warn("no LADDER_STREAM_SECRET: watch streams resume only on this router, and not after it restarts");
if (config.routerProcesses > 1 && cluster.isPrimary) await superviseRouters(config, log, { LADDER_STREAM_SECRET: streamSecret });
else await runRouter(config, log, { clusterWorker: cluster.isWorker, streamSecret });
