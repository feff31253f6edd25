/**
 * Router: LeaderboardService over all shards. Wiring only: one router process, or several
 * sharing the listen address under a supervising process (LADDER_ROUTER_PROCESSES).
 */
import cluster from "node:cluster";
import { loadConfig } from "@ladder/platform/config";
import { rootLogger } from "@ladder/platform/logger";
import { superviseRouters } from "./control/processes.js";
import { runRouter } from "./router.js";

const config = loadConfig(process.env);
const log = rootLogger({ level: config.logLevel, name: "router" });
if (config.routerProcesses > 1 && cluster.isPrimary) await superviseRouters(config, log);
else await runRouter(config, log, { clusterWorker: cluster.isWorker });
