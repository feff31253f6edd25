/**
 * Runs one benchmark inside the run: times it, notes the load average before and after
 * (the machine is shared), prints its tables, and turns a failure into a recorded
 * outcome so the other benchmarks still run.
 */
import { loadavg } from "node:os";
import type { Benchmark, BenchContext, BenchOutcome } from "./context.js";
import { renderText } from "./output/table.js";

export interface BenchRecord extends Partial<BenchOutcome> {
  name: string;
  title: string;
  /** Its method's Markdown, under loadtest/src/bench/. */
  method: string;
  status: "ok" | "failed";
  error?: string;
  startedAt: string;
  seconds: number;
  /** 1-, 5- and 15-minute load averages. */
  loadavgStart: number[];
  loadavgEnd: number[];
}

export async function runBenchmark(ctx: BenchContext, bench: Benchmark): Promise<BenchRecord> {
  const startedAt = new Date();
  const loadavgStart = loadAverages();
  const t0 = performance.now();
  ctx.say(`\n=== ${bench.title} (${bench.name}) ===`);
  let outcome: BenchOutcome | undefined;
  let error: string | undefined;
  try {
    outcome = await bench.run(ctx);
  } catch (err) {
    error = (err as Error).stack ?? String(err);
    ctx.say(`FAILED: ${error}`);
  }
  const seconds = Math.round((performance.now() - t0) / 100) / 10;
  const record: BenchRecord = {
    name: bench.name,
    title: bench.title,
    method: bench.method,
    status: outcome ? "ok" : "failed",
    ...(error ? { error } : {}),
    startedAt: startedAt.toISOString(),
    seconds,
    loadavgStart,
    loadavgEnd: loadAverages(),
    ...outcome,
  };
  for (const t of outcome?.tables ?? []) ctx.say(`\n${renderText(t)}`);
  ctx.say(`\n${bench.name}: ${record.status} in ${seconds} s (load average ${record.loadavgStart[0]} -> ${record.loadavgEnd[0]})`);
  return record;
}

export function loadAverages(): number[] {
  return loadavg().map((x) => Math.round(x * 100) / 100);
}
