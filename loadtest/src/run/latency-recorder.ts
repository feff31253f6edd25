/**
 * Latency and outcome bookkeeping for named operations, with HdrHistogram (values in
 * microseconds, 3 significant digits, auto-resizing). Each operation has a histogram for
 * the whole run and one for the current interval; `tick` closes the interval, keeping its
 * count and percentiles as one point of the time series, and starts the next.
 *
 * Which calls count: a call is in the run's totals when it was SENT in the measured window
 * (`counts(sentMs)`, see measured-window.ts), however late it is answered; every call
 * goes into the time series, by the interval it was answered in, warm-up included.
 *
 * Every completed call is recorded, failed ones included (a timeout costs its full
 * deadline; leaving failures out would flatter a struggling server); failures are also
 * counted by gRPC code name. NOT_FOUND is kept apart from errors: a rank or around read of
 * a player who has no score yet is a correct answer, not a failure.
 */
import * as hdr from "hdr-histogram-js";
import type { Histogram } from "hdr-histogram-js";
import type { IntervalPoint } from "../model/loadtest-result.js";

/** Codes that are answers, not failures. */
export const EXPECTED_CODES: ReadonlySet<string> = new Set(["NOT_FOUND"]);

/** One interval of the run: `t` is its end, in seconds since the start. */
export interface SeriesPoint<K extends string> {
  t: number;
  ops: Record<K, IntervalPoint>;
}

export interface OpTotals {
  readonly histogram: Histogram;
  count: number;
  errorsByCode: Record<string, number>;
}

/** A histogram of microsecond values up to 10 min, growing past that if needed. */
export function newHistogram(): Histogram {
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: 3, autoResize: true });
}

/** One answered (or failed) call: when it was sent, how long it took, how it failed. */
export interface CallRecord {
  /** Its send time (clock ms): what decides whether it counts. */
  sentMs: number;
  latencyMs: number;
  /** The failure's code name, when it failed. */
  errorCode?: string;
}

export class LatencyRecorder<K extends string> {
  readonly series: Array<SeriesPoint<K>> = [];
  private readonly totals = new Map<K, OpTotals>();
  private readonly interval = new Map<K, { histogram: Histogram; errors: number; notFound: number }>();

  /** `counts(sentMs)`: whether a call sent then belongs to the run's totals (all, by default: no warm-up). */
  constructor(
    readonly names: readonly K[],
    private readonly counts: (sentMs: number) => boolean = () => true,
  ) {
    for (const name of names) {
      this.totals.set(name, { histogram: newHistogram(), count: 0, errorsByCode: {} });
      this.interval.set(name, { histogram: newHistogram(), errors: 0, notFound: 0 });
    }
  }

  /** A call of `name`, just answered: in the current interval, and in the totals if it was sent in the measured window. */
  record(name: K, { sentMs, latencyMs, errorCode }: CallRecord): void {
    const total = this.totals.get(name)!;
    const current = this.interval.get(name)!;
    const us = Math.max(1, Math.round(latencyMs * 1000));
    current.histogram.recordValue(us);
    if (this.counts(sentMs)) {
      total.histogram.recordValue(us);
      total.count++;
      if (errorCode !== undefined) total.errorsByCode[errorCode] = (total.errorsByCode[errorCode] ?? 0) + 1;
    }
    if (errorCode !== undefined) {
      if (EXPECTED_CODES.has(errorCode)) current.notFound++;
      else current.errors++;
    }
  }

  /** Closes the current interval at `t` seconds since the start; returns its point. */
  tick(t: number): SeriesPoint<K> {
    const ops = {} as Record<K, IntervalPoint>;
    for (const name of this.names) {
      const current = this.interval.get(name)!;
      ops[name] = intervalPoint(current.histogram, current.errors, current.notFound);
      current.histogram.reset();
      current.errors = 0;
      current.notFound = 0;
    }
    const point = { t, ops };
    this.series.push(point);
    return point;
  }

  /** Every call of `name` sent in the measured window. */
  total(name: K): Readonly<OpTotals> {
    return this.totals.get(name)!;
  }
}

function intervalPoint(h: Histogram, errors: number, notFound: number): IntervalPoint {
  const ms = (p: number) => (h.totalCount ? Math.min(h.getValueAtPercentile(p), h.maxValue) / 1000 : 0);
  return {
    count: h.totalCount,
    errors,
    notFound,
    p50Ms: ms(50),
    p90Ms: ms(90),
    p99Ms: ms(99),
    maxMs: h.totalCount ? h.maxValue / 1000 : 0,
  };
}
