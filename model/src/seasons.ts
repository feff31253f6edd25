/**
 * Seasons: a board's calendar of numbered periods with gaps between them (PERIOD_KIND_SEASON).
 *
 * CALENDAR. In the board's IANA time zone, season k (k = 1, 2, ...) starts at midnight of
 * `firstDay + (k - 1) x (lengthDays + gapDays)` days and ends `lengthDays` days later, at a
 * midnight too; the `gapDays` days after it belong to no season. Days are calendar days of the
 * zone (23 or 25 hours across a daylight-saving change): the arithmetic is luxon's, never hours
 * added by hand. Names are "S1", "S2", ...
 *
 * WHICH SEASON. An instant's season is the last one starting at or before it: found from the
 * instant's local date alone (whole days since firstDay), so O(1) whatever the season's number.
 * An instant in a gap, or before season 1, is in no season; `seasonAt` then still names the
 * season before it (season 1 before the first), and callers that place events check the bounds.
 */
import { DateTime } from "luxon";

export interface SeasonCalendar {
  /** The day season 1 starts, "YYYY-MM-DD" in the board's zone. */
  firstDay: string;
  /** Days a season lasts. */
  lengthDays: number;
  /** Days between a season's end and the next one's start. */
  gapDays: number;
}

/** The most days a season, or a gap, may last (ten years). */
export const MAX_SEASON_DAYS = 3660;

const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** What is wrong with a season calendar, or undefined. */
export function seasonProblem(s: SeasonCalendar, zone: string): string | undefined {
  if (!DAY.test(s.firstDay) || !DateTime.fromISO(s.firstDay, { zone }).isValid)
    return `season.first_day must be a day "YYYY-MM-DD", got "${s.firstDay}"`;
  if (!Number.isInteger(s.lengthDays) || s.lengthDays < 1 || s.lengthDays > MAX_SEASON_DAYS)
    return `season.length_days must be 1 to ${MAX_SEASON_DAYS}, got ${s.lengthDays}`;
  if (!Number.isInteger(s.gapDays) || s.gapDays < 0 || s.gapDays > MAX_SEASON_DAYS)
    return `season.gap_days must be 0 to ${MAX_SEASON_DAYS}, got ${s.gapDays}`;
  return undefined;
}

/** Where season k (1-based) starts, Unix ms. */
export function seasonStartMs(s: SeasonCalendar, zone: string, k: number): number {
  return DateTime.fromISO(s.firstDay, { zone })
    .plus({ days: (k - 1) * (s.lengthDays + s.gapDays) })
    .toMillis();
}

/** Where season k ends (exclusive), Unix ms. */
export function seasonEndMs(s: SeasonCalendar, zone: string, k: number): number {
  return DateTime.fromISO(s.firstDay, { zone })
    .plus({ days: (k - 1) * (s.lengthDays + s.gapDays) + s.lengthDays })
    .toMillis();
}

/** The number of the last season starting at or before `ms`; 0 before season 1. */
export function seasonNumberAt(s: SeasonCalendar, zone: string, ms: number): number {
  const local = DateTime.fromMillis(ms, { zone });
  const first = DateTime.fromISO(s.firstDay, { zone: "UTC" });
  const days = Math.round((Date.UTC(local.year, local.month - 1, local.day) - first.toMillis()) / DAY_MS);
  return days < 0 ? 0 : Math.floor(days / (s.lengthDays + s.gapDays)) + 1;
}

/** A season's name: "S<k>". */
export const seasonName = (k: number): string => `S${k}`;

/** The number a season name stands for, or undefined when it is no season's name. */
export function seasonNumberOf(id: string): number | undefined {
  const m = /^S([1-9]\d{0,8})$/.exec(id);
  return m ? Number(m[1]) : undefined;
}

/**
 * Why an event at `ms` takes no season: `season` is the one periodAt found (the last starting at
 * or before `ms`, or season 1 before it).
 */
export function seasonGapMessage(board: string, ms: number, season: { id: string; startMs: number; endMs: number }): string {
  const iso = (t: number) => new Date(t).toISOString();
  return ms < season.startMs
    ? `timestamp_ms ${ms} is before season ${season.id} of board "${board}", its first (it starts at ${iso(season.startMs)})`
    : `timestamp_ms ${ms} falls between seasons of board "${board}": season ${season.id} ended at ${iso(season.endMs)}, the next starts later (ListPeriods, GetBoard's next_reset_ms)`;
}
