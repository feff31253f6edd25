/**
 * What a shard holds of a daily board with windows once its players wrote a score on each of
 * `days` consecutive days, worked out from model/src/windows.ts's definitions (not from the apply
 * script), so the bench can pre-fill millions of players with ZADD and then check a sample of
 * them against the apply path (prefill.int.test.ts).
 *
 * THE KEYS. Days D1 .. Dd are the periods written (index 0 .. d-1), D(d+1) .. the periods after
 * them. A write into Di recomputes the windows ending in Di .. D(i+n-1) (windows.ts), so after d
 * days a window of n periods has a key ending in each of D1 .. D(d+n-1), and each player has an
 * entry in all of them: the window ending in Dj combines the player's scores of the days
 * D(j-n+1) .. Dj that were written. Each period key holds every player's score of its day.
 *
 * THE ENTRIES, by the essay of windows.ts: BEST is the smallest of the parts' sort keys (the
 * board's own encoding); SUM adds the parts' points, is reached when the last part was, and is
 * encoded with the window's encoding, its time counted from the window's first period
 * (windowReadSpec, what the router decodes with), clamped to that encoding's units.
 */
import type { BoardSpec } from "@ladder/model/board-spec";
import type { Period } from "@ladder/model/periods";
import { encodeSortKey } from "@ladder/model/score-encoding";
import { windowPlan, windowReadSpec, type WindowSpec } from "@ladder/model/windows";

/** A player's score of one day. */
export interface DayScore {
  points: number;
  reachedAtMs: number;
}

/** One sorted set of the board: a period key (no window) or a window's key ending in period `day`. */
export interface StateKey {
  /** Index of its period among the periods (0 = D1). */
  day: number;
  period: Period;
  window?: WindowSpec;
  /** The spec its entries decode with (the board's, or a SUM window's, windowReadSpec). */
  readSpec: BoardSpec;
  /** When the apply path makes it expire (Unix ms): a period key lives n - 1 periods longer than its retention. */
  expireAtMs: number;
}

/**
 * The keys after writes on `written` consecutive days: `periods` lists D1 onwards, at least
 * written + n - 1 of them (n: the longest window). Period keys first, then each window's keys
 * in day order.
 */
export function stateKeys(spec: BoardSpec, periods: readonly Period[], written: number): StateKey[] {
  const longest = spec.windows.reduce((n, w) => Math.max(n, w.periods), 0);
  if (periods.length < written + Math.max(0, longest - 1))
    throw new RangeError(
      `${written} days written with windows of ${longest} periods need ${written + longest - 1} periods, got ${periods.length}`,
    );
  const keys: StateKey[] = [];
  for (let day = 0; day < written; day++) {
    const period = periods[day]!;
    const expireAtMs = spec.windows.length ? windowPlan(spec, period).periodExpireAtMs : period.expireAtMs;
    keys.push({ day, period, readSpec: spec, expireAtMs });
  }
  for (const window of spec.windows) {
    for (let day = 0; day < written + window.periods - 1; day++) {
      const period = periods[day]!;
      keys.push({ day, period, window, readSpec: windowReadSpec(spec, window, period), expireAtMs: period.expireAtMs });
    }
  }
  return keys;
}

/** Indexes of the written days (0 .. written-1) a window of `n` periods ending in day `end` includes. */
export function daysOfWindow(end: number, n: number, written: number): number[] {
  const days: number[] = [];
  for (let d = Math.max(0, end - n + 1); d <= Math.min(end, written - 1); d++) days.push(d);
  return days;
}

/** A player's sort key in `key`, from its scores of the written days (one per day, in day order); undefined when it has none. */
export function entryOf(spec: BoardSpec, key: StateKey, scores: readonly DayScore[]): number | undefined {
  if (!key.window) {
    const s = scores[key.day];
    return s === undefined ? undefined : encodeSortKey(spec, s.points, s.reachedAtMs);
  }
  const parts = daysOfWindow(key.day, key.window.periods, scores.length).map((d) => scores[d]!);
  return windowEntry(spec, key.window, key.readSpec, parts);
}

/**
 * A window entry from its parts: BEST the smallest part sort key; SUM the points added, at the
 * latest part's time, encoded with `readSpec` (windowReadSpec of the window's key) with the
 * time clamped to its units. Undefined without parts.
 */
export function windowEntry(spec: BoardSpec, w: WindowSpec, readSpec: BoardSpec, parts: readonly DayScore[]): number | undefined {
  if (parts.length === 0) return undefined;
  if (w.combine === "best") return Math.min(...parts.map((p) => encodeSortKey(spec, p.points, p.reachedAtMs)));
  const points = parts.reduce((sum, p) => sum + p.points, 0);
  const latest = Math.max(...parts.map((p) => p.reachedAtMs));
  const units = Math.min(readSpec.timeUnits - 1, Math.max(0, Math.floor((latest - readSpec.epochMs) / readSpec.resolutionMs)));
  return encodeSortKey(readSpec, points, readSpec.epochMs + units * readSpec.resolutionMs);
}
