/**
 * The run's two files: every figure as JSON (`bench.json`), and a Markdown summary
 * (`bench.md`): what ran where and when, then per benchmark its tables (each under its title)
 * and a link to its method (static Markdown beside the benchmark). Each run replaces the files
 * of the same selection (git keeps the earlier ones): a run of some of the benchmarks writes
 * `bench-<names>.*` (e.g. `bench-grpc.md`), never the whole suite's, and a `--quick` run
 * `bench-quick-*` (options.ts sends those out of the tree by default). Nothing else is written:
 * docs quote these files, the files never edit the docs.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { machineInfo } from "../infra/machine-info.js";
import type { BenchRecord } from "../run-benchmark.js";
import { BENCH_NAMES } from "../options.js";
import { renderMarkdown } from "./table.js";

export interface BenchReport {
  tool: "ladder-bench";
  format: 1;
  quick: boolean;
  startedAt: string;
  finishedAt: string;
  wallSeconds: number;
  selected: string[];
  machine: ReturnType<typeof machineInfo>;
  loadavgStart: number[];
  loadavgEnd: number[];
  benchmarks: BenchRecord[];
}

export function markdownSummary(r: BenchReport, jsonName: string): string {
  const m = r.machine;
  const head = [
    `## Benchmarks: \`npm run bench${commandArgs(r)}\`, ${r.startedAt.slice(0, 10)}`,
    "",
    ...(r.quick ? ["**Quick run (smoke test): small sizes and short runs; these figures are not for quoting.**", ""] : []),
    `Measured in one run of ${formatMinutes(r.wallSeconds)} on one machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}, ${m.redisServer}, Kafka ${m.kafka} (single broker, KRaft). ` +
      `Load average (1 min) ${r.loadavgStart[0]} at the start, ${r.loadavgEnd[0]} at the end. Kafka, Redis, the services and the bench client all share the ${m.cpus} cores, ` +
      "and the machine may have been running other work too: read the ratios next to the absolute figures. Every figure below was measured in this run; " +
      `all of them, with more percentiles and CPU readings, are in \`${jsonName}\` beside this file.`,
  ];
  const sections = r.benchmarks.map((b) =>
    [
      `### ${b.title}`,
      "",
      b.status === "failed"
        ? `**Failed** after ${b.seconds} s: \`${(b.error ?? "").split("\n")[0]}\``
        : (b.tables ?? []).map((t) => `**${t.title}**\n\n${renderMarkdown(t)}`).join("\n\n"),
      "",
      `How it is measured: [loadtest/src/bench/${b.method}](${METHOD_LINK_BASE}${b.method}).`,
      "",
      `_Ran ${b.seconds} s; load average ${b.loadavgStart[0]} → ${b.loadavgEnd[0]}._`,
    ].join("\n"),
  );
  return [...head, "", ...sections.flatMap((s) => [s, ""])].join("\n");
}

/** The bench folder as seen from loadtest/results, where the summaries are kept. */
const METHOD_LINK_BASE = "../src/bench/";

/** Whether the run measured only some of the benchmarks. */
const partial = (r: BenchReport): boolean => BENCH_NAMES.some((n) => !r.selected.includes(n));

/** bench, bench-quick, bench-grpc, bench-quick-grpc-ingest, ...: the files' names without .json / .md. */
export function filePrefix(r: BenchReport): string {
  return ["bench", ...(r.quick ? ["quick"] : []), ...(partial(r) ? r.selected : [])].join("-");
}

/** The arguments of `npm run bench` that make this run ("" for the whole suite). */
function commandArgs(r: BenchReport): string {
  const args = [...(r.quick ? ["--quick"] : []), ...(partial(r) ? r.selected : [])];
  return args.length ? ` -- ${args.join(" ")}` : "";
}

export function writeReport(r: BenchReport, outDir: string): { json: string; markdown: string } {
  const dir = resolve(outDir);
  mkdirSync(dir, { recursive: true });
  const prefix = filePrefix(r);
  const jsonName = `${prefix}.json`;
  const json = join(dir, jsonName);
  const markdown = join(dir, `${prefix}.md`);
  writeFileSync(json, `${JSON.stringify(r, null, 2)}\n`);
  writeFileSync(markdown, markdownSummary(r, jsonName));
  return { json, markdown };
}

export function formatMinutes(seconds: number): string {
  const m = Math.floor(seconds / 60);
  return m ? `${m} min ${Math.round(seconds % 60)} s` : `${Math.round(seconds)} s`;
}
