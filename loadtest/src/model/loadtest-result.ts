/**
 * The result document of a loadtest run, as saved to `<out>/<name>.json`: types only (and
 * the format number). run/results.ts builds it from the run's recorders. Latencies in ms; `histograms` holds each operation's HdrHistogram (values in µs)
 * in the standard compressed base64 form, which HdrHistogram's own tools and plotters read.
 */
import type { Operation } from "../workload/op-mix.js";

/**
 * 2: the figures are the calls SENT in the measured window (run/measured-window.ts) and
 * `elapsedMs` is the window's length; 1 counted the calls answered from the end of the
 * warm-up to the last answer, warm-up calls answered late included.
 */
export const RESULT_FORMAT = 2;

export interface LoadtestResult {
  tool: "ladder-loadtest";
  format: typeof RESULT_FORMAT;
  name: string;
  startedAt: string;
  /** Seconds of load before the measured window: calls sent in them are in the series only. */
  warmupSec: number;
  /** The measured window: from the end of the warm-up to the end of sending. Its calls (those sent in it, answered whenever) are the figures; rates are per second of it. */
  elapsedMs: number;
  options: Record<string, unknown>;
  environment: { node: string; platform: string; cpus: number; cpuModel: string };
  pacing: { kind: "open" | "closed"; sent: number; unsent: number; peakInFlight?: number };
  operations: Partial<Record<Operation, OperationResult>>;
  totals: {
    calls: number;
    callsPerSec: number;
    /** Score updates acknowledged per second (write calls x batch, failed calls excluded). */
    updatesPerSec: number;
    errors: number;
  };
  lag: { probes: ProbeStats; latencyMs: LatencySummary; percentiles: PercentilePoint[] };
  series: Array<{ t: number; ops: Record<Operation, IntervalPoint>; lag: IntervalPoint }>;
  histograms: Record<string, string>;
  client: { peakRssMb: number; cpuUserSec: number; cpuSystemSec: number };
  /** The loss audit (--audit-every; run/write-audit.ts), when asked for. */
  audit?: AuditResult;
}

/** One point of the latency spectrum (HdrHistogram's percentile plot). */
export interface PercentilePoint {
  percentile: number;
  ms: number;
}

export interface OperationResult extends OpSummary {
  percentiles: PercentilePoint[];
}

/** The figures of one operation: the calls sent in the measured window. */
export interface OpSummary {
  calls: number;
  /** Calls that failed with a code other than NOT_FOUND. */
  errors: number;
  notFound: number;
  errorsByCode: Record<string, number>;
  callsPerSec: number;
  latencyMs: LatencySummary;
}

export interface LatencySummary {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/** One operation over one interval of the time series. Latencies in ms. */
export interface IntervalPoint {
  count: number;
  /** Failures other than the expected codes (NOT_FOUND). */
  errors: number;
  notFound: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** What became of the freshness probes whose write was sent in the measured window (run/freshness-probe.ts). */
export interface ProbeStats {
  started: number;
  seen: number;
  timedOut: number;
  superseded: number;
  /** The probe's write failed: nothing to wait for. */
  writeFailed: number;
  polls: number;
  pollErrors: number;
}

/** The loss audit's verdict (run/write-audit.ts). */
export interface AuditResult {
  /** Audited players that received acknowledged increments. */
  players: number;
  /** Acknowledged increments to them. */
  updates: number;
  lost: number;
  doubled: number;
  /** Players of a failed call, or a probe's SET: not judged. */
  uncertain: number;
  excluded: number;
  /** Time from the end of the load until every audited player read as expected (or the audit gave up). */
  settledMs: number;
  /** A few of the players that did not match, for the report. */
  examples: string[];
}
