/**
 * Builds the result document of a run (model/loadtest-result.ts, saved as JSON) from the
 * run's recorders, options and probe counts.
 */
import * as hdr from "hdr-histogram-js";
import type { Histogram } from "hdr-histogram-js";
import { cpus } from "node:os";
import { RESULT_FORMAT, type LoadtestResult, type OperationResult, type ProbeStats } from "../model/loadtest-result.js";
import { OPERATIONS, type Operation } from "../workload/op-mix.js";
import type { LatencyRecorder } from "./latency-recorder.js";
import type { LoadtestOptions } from "./options.js";
import { latencySummary, opSummary, percentileUs, perSec } from "./summary.js";

/** Percentiles of the latency spectrum, as HdrHistogram plots them. */
export const SPECTRUM = [0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100] as const;

export interface ResultInputs {
  options: LoadtestOptions;
  startedAt: Date;
  elapsedMs: number;
  pacing: LoadtestResult["pacing"];
  ops: LatencyRecorder<Operation>;
  lag: LatencyRecorder<"lag">;
  probes: ProbeStats;
  client: LoadtestResult["client"];
}

export function buildResult(r: ResultInputs): LoadtestResult {
  const active = OPERATIONS.filter((op) => r.options.mix[op] > 0);
  const operations: Partial<Record<Operation, OperationResult>> = {};
  for (const op of active)
    operations[op] = { ...opSummary(r.ops.total(op), r.elapsedMs), percentiles: spectrum(r.ops.total(op).histogram) };
  const all = Object.values(operations) as OperationResult[];
  const calls = all.reduce((s, o) => s + o.calls, 0);
  const writes = operations.write;
  const lagHistogram = r.lag.total("lag").histogram;
  return {
    tool: "ladder-loadtest",
    format: RESULT_FORMAT,
    name: r.options.name,
    startedAt: r.startedAt.toISOString(),
    warmupSec: r.options.warmupMs / 1000,
    elapsedMs: Math.round(r.elapsedMs),
    options: publicOptions(r.options),
    environment: {
      node: process.version,
      platform: `${process.platform}/${process.arch}`,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? "",
    },
    pacing: r.pacing,
    operations,
    totals: {
      calls,
      callsPerSec: perSec(calls, r.elapsedMs),
      updatesPerSec: writes ? perSec((writes.calls - writes.errors) * r.options.batch, r.elapsedMs) : 0,
      errors: all.reduce((s, o) => s + o.errors, 0),
    },
    lag: { probes: r.probes, latencyMs: latencySummary(lagHistogram), percentiles: spectrum(lagHistogram) },
    series: r.ops.series.map((p, i) => ({ t: p.t, ops: p.ops, lag: r.lag.series[i]!.ops.lag })),
    histograms: Object.fromEntries([
      ...active.map((op) => [op, hdr.encodeIntoCompressedBase64(r.ops.total(op).histogram)]),
      ["lag", hdr.encodeIntoCompressedBase64(lagHistogram)],
    ]),
    client: r.client,
  };
}

/** The options as recorded: the token is never written out. */
export function publicOptions(o: LoadtestOptions): Record<string, unknown> {
  const { token, tokenSource, mix, mixText, ...rest } = o;
  return { ...rest, mix: mixText, token: token === undefined ? "none" : `(from ${tokenSource})` };
}

function spectrum(h: Histogram) {
  if (h.totalCount === 0) return [];
  return SPECTRUM.map((p) => ({ percentile: p, ms: percentileUs(h, p) / 1000 }));
}
