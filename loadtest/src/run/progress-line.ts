/**
 * The one-line progress report printed every second while the loadtest runs: total
 * requests/s, then per operation requests/s and p99 of that second, the freshness lag
 * seen that second, errors (by operation, NOT_FOUND apart) and requests in flight.
 *
 *   [  12s]  1,204 req/s | write 601/s p99 14.2ms | rank 361/s p99 5.1ms | lag p99 62ms (10) | errors 0 | in flight 4
 */
import type { IntervalPoint } from "../model/loadtest-result.js";
import type { SeriesPoint } from "./latency-recorder.js";

const int = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** A latency in ms, with 3 significant digits for small values. */
export function formatMs(ms: number): string {
  if (ms >= 100) return `${int.format(ms)}ms`;
  return `${Number(ms.toPrecision(3))}ms`;
}

export interface ProgressInput<K extends string> {
  point: SeriesPoint<K>;
  /** Length of the interval the point covers, s. */
  intervalSec: number;
  /** The freshness lag measured in the interval, if probes run. */
  lag: IntervalPoint | undefined;
  inFlight: number;
}

export function formatProgress<K extends string>({ point, intervalSec, lag, inFlight }: ProgressInput<K>): string {
  const entries = Object.entries(point.ops) as Array<[string, IntervalPoint]>;
  const perSec = (n: number) => int.format(n / intervalSec);
  const total = entries.reduce((sum, [, p]) => sum + p.count, 0);
  const ops = entries.filter(([, p]) => p.count > 0).map(([name, p]) => `${name} ${perSec(p.count)}/s p99 ${formatMs(p.p99Ms)}`);
  const errors = entries.filter(([, p]) => p.errors > 0).map(([name, p]) => `${name} ${int.format(p.errors)}`);
  const notFound = entries.reduce((sum, [, p]) => sum + p.notFound, 0);
  const parts = [
    `[${String(Math.round(point.t)).padStart(4)}s] ${perSec(total).padStart(7)} req/s`,
    ...ops,
    lag && lag.count > 0 ? `lag p99 ${formatMs(lag.p99Ms)} (${lag.count})` : "lag -",
    errors.length ? `errors ${errors.join(" ")}` : "errors 0",
    ...(notFound ? [`not found ${int.format(notFound)}`] : []),
    `in flight ${inFlight}`,
  ];
  return parts.join(" | ");
}
