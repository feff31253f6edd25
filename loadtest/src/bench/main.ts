/**
 * `npm run bench -- [--quick] [--out dir] [benchmark ...]` (options.ts): the benchmark
 * suite. Starts and stops everything it measures on its own ports and in a temporary
 * directory, runs the selected benchmarks one after another, prints a table per
 * benchmark, and saves the JSON and the Markdown summary (output/report.ts). Wiring only.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rootLogger } from "@ladder/platform/logger";
import type { KafkaBroker } from "@ladder/deploy/kafka-broker";
import { exitOnHelp, parseOrExit } from "../cli-values.js";
import type { Benchmark, BenchContext } from "./context.js";
import { CleanupStack } from "./infra/cleanup.js";
import { startBenchKafka } from "./infra/infra-fixtures.js";
import { machineInfo } from "./infra/machine-info.js";
import { parseBenchOptions, USAGE, type BenchName } from "./options.js";
import { formatMinutes, writeReport, type BenchReport } from "./output/report.js";
import { benchPlan } from "./plan.js";
import { grpcBenchmark } from "./grpc/grpc-bench.js";
import { rankIndexBenchmark } from "./grpc/rank-index-bench.js";
import { replicasBenchmark } from "./grpc/replicas-bench.js";
import { loadAverages, runBenchmark, type BenchRecord } from "./run-benchmark.js";
import { ingestBenchmark } from "./writes/ingest-bench.js";
import { competitionsBenchmark } from "./writes/competitions-bench.js";
import { columnsBenchmark } from "./writes/columns-bench.js";
import { rebuildBenchmark } from "./writes/rebuild-bench.js";

const BENCHMARKS: Record<BenchName, Benchmark> = {
  grpc: grpcBenchmark,
  "rank-index": rankIndexBenchmark,
  replicas: replicasBenchmark,
  ingest: ingestBenchmark,
  competitions: competitionsBenchmark,
  columns: columnsBenchmark,
  rebuild: rebuildBenchmark,
};

exitOnHelp(USAGE);
const options = parseOrExit(parseBenchOptions);

const say = (line: string) => console.log(line);
const startedAt = new Date();
const loadavgStart = loadAverages();
const plan = benchPlan(options.quick);
const dataDir = await mkdtemp(join(tmpdir(), "ladder-bench-"));
const log = rootLogger({ level: (process.env.LADDER_BENCH_LOG_LEVEL ?? "error") as "error", name: "bench" });
const cleanup = new CleanupStack((name, err) => console.error(`clean-up of ${name} failed: ${(err as Error).message ?? err}`));
cleanup.push(`data dir ${dataDir}`, () => rm(dataDir, { recursive: true, force: true }));
const ports = new Set<number>();
let broker: Promise<KafkaBroker> | undefined;
const ctx: BenchContext = {
  plan,
  dataDir,
  ports,
  cleanup,
  log,
  say,
  kafka: () => (broker ??= startBenchKafka({ dataDir, ports, cleanup, log })),
};
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping everything the bench started`);
    void cleanup.releaseAll().finally(() => process.exit(130));
  });
}

say(
  `ladder bench${options.quick ? " (quick: smoke-test sizes)" : ""}: ${options.selected.join(", ")}; load average ${loadavgStart.join(" ")}; data in ${dataDir}`,
);
const records: BenchRecord[] = [];
try {
  for (const name of options.selected) records.push(await runBenchmark(ctx, BENCHMARKS[name]));
} finally {
  await cleanup.releaseAll();
}
const finishedAt = new Date();
const report: BenchReport = {
  tool: "ladder-bench",
  format: 1,
  quick: options.quick,
  startedAt: startedAt.toISOString(),
  finishedAt: finishedAt.toISOString(),
  wallSeconds: Math.round((finishedAt.getTime() - startedAt.getTime()) / 100) / 10,
  selected: options.selected,
  machine: machineInfo(),
  loadavgStart,
  loadavgEnd: loadAverages(),
  benchmarks: records,
};
const files = writeReport(report, options.outDir);
say(
  `\nall done in ${formatMinutes(report.wallSeconds)}; load average ${report.loadavgEnd.join(" ")}\nsaved ${files.json}\nsaved ${files.markdown}`,
);
if (records.some((r) => r.status === "failed")) process.exitCode = 1;
