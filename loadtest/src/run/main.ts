/**
 * `npm run loadtest -- [options]` (options: run/options.ts, or --help). Drives the cluster
 * over gRPC, prints progress every second, and saves <out>/<name>.json.
 * Exits 1 when the run measured refusals rather than the cluster (verdict.ts). Wiring only. Ctrl-C stops sending; the run still reports.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadConfig } from "@ladder/platform/config";
import { rootLogger, standardError } from "@ladder/platform/logger";
import { exitOnHelp, parseOrExit } from "../cli-values.js";
import { clusterClients } from "./cluster-clients.js";
import { runLoadtest } from "./loadtest.js";
import { parseLoadtestOptions, USAGE } from "./options.js";
import { summaryText } from "./summary-text.js";
import { verdict, verdictText } from "./verdict.js";

exitOnHelp(USAGE);
const config = loadConfig(process.env);
const log = rootLogger({ level: config.logLevel, name: "loadtest", destination: standardError() }); // stdout is the report
const options = parseOrExit((argv) => parseLoadtestOptions(argv, config));
const clients = clusterClients(options);
const stop = new AbortController();
process.on("SIGINT", () => {
  if (stop.signal.aborted) process.exit(130);
  log.warn("stopping early: finishing the requests in flight, then reporting (Ctrl-C again to quit now)");
  stop.abort();
});

log.info(
  {
    router: options.router,
    ingest: options.ingest,
    board: options.board,
    players: options.players,
    mix: options.mixText,
    pacing: options.pacing,
    durationMs: options.durationMs,
    token: options.tokenSource,
  },
  "loadtest starting",
);
const result = await runLoadtest({
  options,
  spec: config.boards.forBoard(options.board),
  clients,
  print: (line) => console.log(line),
  signal: stop.signal,
});
clients.close();

const outDir = resolve(options.outDir);
mkdirSync(outDir, { recursive: true });
const jsonPath = join(outDir, `${options.name}.json`);
writeFileSync(jsonPath, JSON.stringify(result, null, 2) + "\n");
const judged = verdict(result);
console.log(summaryText(result));
console.log(`results: ${jsonPath}`);
console.log(verdictText(judged));
process.exitCode = judged.exitCode;
