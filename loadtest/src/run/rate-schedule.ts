/**
 * The open-loop timetable: request i is due at start + i / rate, whatever happened to the
 * requests before it. Latency is measured from that intended time, not from when the
 * request actually left, so a stalled server (or a stalled client) is charged for every
 * request that should have been sent during the stall: this corrects "coordinated
 * omission" (Gil Tene), which a closed loop suffers because it stops sending while it waits.
 *
 * Times are ms from the start of the run (fractional).
 */

export interface Timetable {
  /** Requests in the whole run. */
  readonly total: number;
  /** When request i (0-based) is due. */
  dueAtMs(i: number): number;
  /** How many requests are due at `elapsedMs`: those with dueAtMs(i) <= elapsedMs. */
  dueBy(elapsedMs: number): number;
}

/** `ratePerSec` requests per second for `durationMs`. */
export function timetable(ratePerSec: number, durationMs: number): Timetable {
  if (!(ratePerSec > 0) || !Number.isFinite(ratePerSec)) throw new RangeError(`rate must be positive, got ${ratePerSec}`);
  if (!(durationMs > 0)) throw new RangeError(`duration must be positive, got ${durationMs}`);
  const intervalMs = 1000 / ratePerSec;
  const total = Math.max(1, Math.floor((durationMs * ratePerSec) / 1000));
  return {
    total,
    dueAtMs: (i) => i * intervalMs,
    dueBy: (elapsedMs) => (elapsedMs < 0 ? 0 : Math.min(total, Math.floor(elapsedMs / intervalMs) + 1)),
  };
}
