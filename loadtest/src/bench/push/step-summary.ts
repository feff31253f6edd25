/**
 * One write step of the push bench, summed up: latency percentiles, and whether the cluster
 * sustained the step, with the reasons when it did not: every batch sent on time and acknowledged
 * (MIN_ACKED), applied within MAX_DRAIN_S, and with watchers no feed reset, resync or ended
 * stream, every probe seen and push latency p99 within MAX_P99_MS (push.md, "Sustained").
 */
import { round1 } from "../output/format.js";

export const MIN_ACKED = 0.95;
export const MAX_DRAIN_S = 2;
export const MAX_P99_MS = 1_000;

export interface Pcts {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of `values` (NaN for an empty sample). */
export function pcts(values: readonly number[]): Pcts {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]! : NaN);
  return { n: sorted.length, p50: round1(at(0.5)), p90: round1(at(0.9)), p99: round1(at(0.99)), max: round1(sorted.at(-1) ?? NaN) };
}

export interface StepFacts {
  /** Any stream held (its feeds must not reset), and WatchPlayer streams probed (their latency counts). */
  watchers: boolean;
  probed: boolean;
  /** Updates sent in the window's batches, and those acknowledged. */
  sentInWindow: number;
  ackedInWindow: number;
  failedBatches: number;
  unsentBatches: number;
  /** Seconds from the window's end until every acknowledged update was applied (Infinity: never). */
  drainS: number;
  feedResets: number;
  resynced: number;
  streamsEnded: number;
  expiredProbes: number;
  own?: Pcts;
  overtake?: Pcts;
}

/** Why a step was not sustained; empty when it was. */
export function shortfalls(f: StepFacts): string[] {
  const out: string[] = [];
  if (f.ackedInWindow < MIN_ACKED * f.sentInWindow)
    out.push(`acknowledged ${f.ackedInWindow} of the ${f.sentInWindow} updates sent in the window`);
  if (f.failedBatches > 0) out.push(`${f.failedBatches} failed batches`);
  if (f.unsentBatches > 0) out.push(`${f.unsentBatches} batches never sent (the client could not keep the rate)`);
  if (!(f.drainS <= MAX_DRAIN_S))
    out.push(`applied ${Number.isFinite(f.drainS) ? `${f.drainS.toFixed(1)} s` : "never"} after the window (limit ${MAX_DRAIN_S} s)`);
  if (!f.watchers) return out;
  if (f.feedResets > 0) out.push(`${f.feedResets} change feed resets`);
  if (f.resynced > 0) out.push(`${f.resynced} resynced messages`);
  if (f.streamsEnded > 0) out.push(`${f.streamsEnded} streams ended`);
  if (f.expiredProbes > 0) out.push(`${f.expiredProbes} writes never seen on their watcher's stream`);
  if (!f.probed) return out;
  for (const [what, p] of [
    ["own-score", f.own],
    ["overtake", f.overtake],
  ] as const) {
    if (!p || p.n === 0) out.push(`no ${what} latency sample`);
    else if (p.p99 > MAX_P99_MS)
      out.push(`${what} push latency p99 ${Math.round(p.p99)} ms from the acknowledgement (limit ${MAX_P99_MS} ms)`);
  }
  return out;
}

/** The highest rate of the steps that were sustained, every lower step sustained too (0 when the first was not). */
export function highestSustained(steps: ReadonlyArray<{ rate: number; shortfalls: readonly string[] }>): number {
  let best = 0;
  for (const s of [...steps].sort((a, b) => a.rate - b.rate)) {
    if (s.shortfalls.length > 0) break;
    best = s.rate;
  }
  return best;
}

/** Per second of `seconds`: the difference of two counter readings. */
export function perSecond(before: number, after: number, seconds: number): number {
  return seconds > 0 ? (after - before) / seconds : NaN;
}
