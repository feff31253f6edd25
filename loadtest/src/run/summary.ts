/**
 * The figures of a finished run, per operation: calls, throughput, latency percentiles
 * (ms) and failures by gRPC code, NOT_FOUND apart (see latency-recorder.ts).
 */
import type { Histogram } from "hdr-histogram-js";
import type { LatencySummary, OpSummary } from "../model/loadtest-result.js";
import { EXPECTED_CODES, type OpTotals } from "./latency-recorder.js";

/** Percentiles of a histogram of microseconds, in ms (3 decimals). */
export function latencySummary(h: Histogram): LatencySummary {
  const ms = (us: number) => Math.round(us) / 1000;
  if (h.totalCount === 0) return { mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
  const at = (p: number) => ms(percentileUs(h, p));
  return { mean: ms(h.mean), p50: at(50), p90: at(90), p99: at(99), p999: at(99.9), max: ms(h.maxValue) };
}

/** The summary of one operation over `elapsedMs`. */
export function opSummary(totals: Readonly<OpTotals>, elapsedMs: number): OpSummary {
  let errors = 0;
  let notFound = 0;
  for (const [code, n] of Object.entries(totals.errorsByCode)) {
    if (EXPECTED_CODES.has(code)) notFound += n;
    else errors += n;
  }
  return {
    calls: totals.count,
    errors,
    notFound,
    errorsByCode: { ...totals.errorsByCode },
    callsPerSec: perSec(totals.count, elapsedMs),
    latencyMs: latencySummary(totals.histogram),
  };
}

/** `n` per second of `ms`, to 0.1 (0 over no time). */
export function perSec(n: number, ms: number): number {
  return ms > 0 ? Math.round((n / ms) * 1000 * 10) / 10 : 0;
}

/**
 * The value at percentile p, µs. HdrHistogram answers with the highest value equivalent
 * to the bucket, which can exceed the largest value recorded; clamp it to that.
 */
export function percentileUs(h: Histogram, p: number): number {
  return Math.min(h.getValueAtPercentile(p), h.maxValue);
}
