/**
 * The bench's command line: `npm run bench -- [--quick] [--out dir] [name ...]`, names
 * from BENCH_NAMES selecting benchmarks (all when none is given), run in BENCH_NAMES order.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

export const BENCH_NAMES = ["grpc", "rank-index", "replicas", "ingest", "rebuild", "competitions", "columns"] as const;
export type BenchName = (typeof BENCH_NAMES)[number];

export const USAGE = `usage: npm run bench -- [--quick] [--out dir] [benchmark ...]
  benchmarks   ${BENCH_NAMES.join(", ")} (default: all, in that order)
  --quick      small sizes and short runs: a smoke test of the suite, not figures to quote
  --out dir    where bench[-<names>].json and .md go (default loadtest/results; with --quick
               the system's temporary directory, so a smoke run never lands in the tree)`;

/** The options, the selected benchmarks in run order. */
export function parseBenchOptions(argv: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options: { quick: { type: "boolean", default: false }, out: { type: "string" } },
  });
  const unknown = positionals.filter((p) => !(BENCH_NAMES as readonly string[]).includes(p));
  if (unknown.length)
    throw new Error(`unknown benchmark ${unknown.map((u) => `"${u}"`).join(", ")}; choose from ${BENCH_NAMES.join(", ")}\n${USAGE}`);
  const selected = positionals.length ? BENCH_NAMES.filter((n) => positionals.includes(n)) : [...BENCH_NAMES];
  const quick = values.quick === true;
  return { quick, selected, outDir: values.out ?? (quick ? join(tmpdir(), "ladder-bench") : "loadtest/results") };
}
