/**
 * Closing periods (BoardRules.close): when a period of a board closes, and what is said to a
 * write that comes after.
 *
 * A period closes at its end plus the board's grace (late events land in it until then). From
 * its close time on, ingest refuses writes into it by its own clock; a router's closer
 * (router/src/control/closer.ts) then, CLOSE_SETTLE_MS later by its clock, writes a close marker
 * into every partition of the score log, and each shard ignores the partition's records of the
 * period after its marker. The marker, not a clock, decides what the final standings hold: every
 * shard, and every replay, freezes the period at the same positions of the log. The settle time
 * covers what ingest accepted just before the close time and the clocks' disagreement; ingest
 * answers a batch whose acknowledgment came later than half of it after the close time with
 * ABORTED (its records may be behind a marker: not applied), never as written.
 */
import type { Period, PeriodRule } from "./periods.js";

/** How long after a period's close time its close markers are written: clock skew and writes in flight. */
export const CLOSE_SETTLE_MS = 10_000; // 10 s

/** When `period` of a board under `rule` closes (Unix ms), or undefined when its periods never close. */
export function closeTimeOf(rule: PeriodRule, period: Pick<Period, "endMs">): number | undefined {
  return rule.closeGraceMs === undefined ? undefined : period.endMs + rule.closeGraceMs;
}

/** Why a write into `period` of `board` at `nowMs` is refused, or undefined while the period is open. */
export function closedProblem(board: string, rule: PeriodRule, period: Pick<Period, "id" | "endMs">, nowMs: number): string | undefined {
  const closeAt = closeTimeOf(rule, period);
  if (closeAt === undefined || nowMs < closeAt) return undefined;
  return `period ${period.id} of board "${board}" closed at ${new Date(closeAt).toISOString()} (its end plus a grace of ${rule.closeGraceMs} ms): its standings are final`;
}
