/**
 * Windows: a board's scores of several consecutive periods combined ("the last 7 days"), read
 * with top, rank and around like a period, exact.
 *
 * MAINTAINED ON APPLY. A window of n periods ending in period P is a sorted set of its own on
 * each shard (stored name "<board>#<generation>~<window>@<P>"), holding each player's combined
 * entry of P and the n - 1 periods before it. A write that changes a player's score in period P0
 * recomputes, in the same apply script, the player's entries of the windows ending in P0 .. P(n-1)
 * (the windows that include P0) from the player's scores in P(-(n-1)) .. P(n-1): 2n - 1 ZSCOREs and
 * at most n ZADDs per window, O(n log N) per write. A read of a window is then a read of one
 * sorted set per shard: the same O(log N) as any board, no union at read time. A player's keys all
 * live on one shard, so each shard combines only what it holds. What a write needs to know about
 * periods (their names, starts, expiries: the time zone's business) ingest writes into the record,
 * so a replay recomputes every window exactly as the first application did.
 *
 * WHY NOT ZUNIONSTORE. A stored score carries the time bits (score-encoding.ts): summing two
 * encoded scores adds their times too. And a union at read time costs O(total members) per read.
 *
 * COMBINES.
 *   BEST  the player's best period entry by the board's own order (points, then its tie rule):
 *         its points and its time. Stored with the board's own encoding: the smallest of the
 *         parts' sort keys.
 *   SUM   the sum of the player's points in the periods it has a score in; the sum was reached
 *         when the last of its parts was (the latest reached_at of the parts), and equal sums are
 *         ordered by the board's tie rule on that time, then player id. Stored with an encoding
 *         of its own: points min(min, n·min) .. max(max, n·max) (any sum of 1 to n parts fits),
 *         so log2(n) more bits of points and as many fewer of time; the time is counted from the
 *         start of the window's first period (not the board's epoch), so only the window's own
 *         span must fit in those bits. Creation refuses a window whose span (n periods at their
 *         longest) does not fit; for cron periods, whose lengths vary, the longest of the next
 *         100 periods is taken, and a time beyond the bits (a longer period later) is clamped
 *         to the last unit: such sums then tie on time and fall to player id.
 *
 * RETENTION. A window ending in P expires with P (the board's keep_periods). A period's own key
 * is kept n - 1 periods longer (n: the board's longest window), since the windows ending in the
 * n - 1 periods after it include it; reads of the period itself are refused at its normal
 * retention all the same. So a window still kept always finds every part it includes, on first
 * application and on replay alike.
 *
 * COSTS, per board with windows of n1..nk periods (N the longest): each write that changes a score
 * makes 2N - 1 ZSCOREs and up to n1 + .. + nk ZADDs; memory grows by one entry per window a
 * player's active periods fall in (a player active every day of a 7-day SUM window is held in 7
 * window keys besides its 1 daily key per day). Measured in loadtest/results/bench-boards.md.
 */
import { makeBoardSpec, type BoardSpec, type WindowCombine, type WindowSpec } from "./board-spec.js";
import { cronFireTimes, periodAt, type Period, type PeriodRule } from "./periods.js";

// A window's type is part of its board's spec (board-spec.ts), which this file builds on.
export type { WindowCombine, WindowSpec } from "./board-spec.js";

/** Windows a board may have at most. */
export const MAX_WINDOWS = 4;
/** Periods a window spans at most (and at least 2). */
export const MAX_WINDOW_PERIODS = 31;
const WINDOW_NAME = /^[a-z0-9_-]{1,32}$/;

/** The longest a period of each calendar kind lasts, ms (a daylight-saving change adds an hour). */
const HOUR = 3_600_000;
const LONGEST: Record<"daily" | "weekly" | "monthly", number> = {
  daily: 25 * HOUR,
  weekly: (7 * 24 + 1) * HOUR,
  monthly: (31 * 24 + 1) * HOUR,
};
/** Cron periods sampled for the longest (cron-parser takes about 1 ms a fire time here). */
const CRON_SAMPLE = 100;

export interface WindowInput {
  name: string;
  periods: number;
  combine: WindowCombine;
}

/** Validates a board's windows and derives their encodings; `nowMs` starts the sample of cron periods. */
export function makeWindows(
  board: BoardSpec,
  inputs: readonly WindowInput[],
  nowMs: number,
): { windows?: readonly WindowSpec[]; problems: string[] } {
  if (inputs.length === 0) return { windows: NO_WINDOWS, problems: [] };
  const where = `board "${board.prefix}"`;
  const problems: string[] = [];
  if (board.period.kind === "none") return { problems: [`${where}: windows need a board with periods`] };
  if (inputs.length > MAX_WINDOWS) return { problems: [`${where}: ${inputs.length} windows, more than ${MAX_WINDOWS} (MAX_WINDOWS)`] };
  const names = new Set<string>();
  const windows: WindowSpec[] = [];
  for (const w of inputs) {
    if (!WINDOW_NAME.test(w.name)) problems.push(`${where}: window name "${w.name}" must be 1 to 32 of a-z 0-9 _ -`);
    if (names.has(w.name)) problems.push(`${where}: window "${w.name}" is defined twice`);
    names.add(w.name);
    if (!Number.isInteger(w.periods) || w.periods < 2 || w.periods > MAX_WINDOW_PERIODS) {
      problems.push(`${where}: window "${w.name}" spans ${w.periods} periods; 2 to ${MAX_WINDOW_PERIODS} (MAX_WINDOW_PERIODS)`);
      continue;
    }
    if (w.combine === "best") {
      windows.push(Object.freeze({ ...w, encoding: board }));
      continue;
    }
    const n = w.periods;
    const made = makeBoardSpec({
      prefix: board.prefix,
      minPoints: Math.min(board.minPoints, n * board.minPoints),
      maxPoints: Math.max(board.maxPoints, n * board.maxPoints),
      resolutionMs: board.resolutionMs,
      epochMs: 0,
      lowerIsBetter: board.lowerIsBetter,
      tie: board.tie,
      generation: board.generation,
    });
    if (!made.spec || !Number.isSafeInteger(n * board.maxPoints) || !Number.isSafeInteger(n * board.minPoints)) {
      problems.push(
        `${where}: window "${w.name}": the sum of ${n} periods' points leaves no bits for time (53-bit budget): narrow the points range`,
      );
      continue;
    }
    const spanUnits = Math.ceil((n * longestPeriodMs(board.period, nowMs)) / board.resolutionMs) + 1;
    if (board.tie !== "id" && spanUnits > made.spec.timeUnits)
      problems.push(
        `${where}: window "${w.name}": ${n} periods at ${board.resolutionMs} ms resolution take ${spanUnits} time units, and the sums' ${Math.log2(made.spec.timeUnits)} bits of time hold ${made.spec.timeUnits}: narrow the points range, coarsen the resolution or shorten the window`,
      );
    windows.push(Object.freeze({ ...w, encoding: made.spec }));
  }
  return problems.length ? { problems } : { windows: Object.freeze(windows), problems };
}

export const NO_WINDOWS: readonly WindowSpec[] = Object.freeze([]);

/** The longest a period of this rule lasts, ms (cron: the longest of the next 100 from nowMs). */
export function longestPeriodMs(r: PeriodRule, nowMs: number): number {
  if (r.kind === "none") return 0;
  if (r.kind === "season") return r.season!.lengthDays * 25 * 3_600_000; // days of 25 hours at most
  if (r.kind === "tournament") return r.tournament!.endMs - r.tournament!.startMs;
  if (r.kind !== "cron") return LONGEST[r.kind];
  const fires = cronFireTimes(r, periodAt(r, nowMs).startMs, CRON_SAMPLE + 1);
  return fires.reduce((longest, t, i) => (i === 0 ? longest : Math.max(longest, t - fires[i - 1]!)), 0);
}

/** The period before `p`. */
export const previousPeriod = (r: PeriodRule, p: Period): Period => periodAt(r, p.startMs - 1);
/** The period after `p`. */
export const nextPeriod = (r: PeriodRule, p: Period): Period => periodAt(r, p.endMs);

/**
 * What a write into period P0 of a board with windows needs (the record carries it): the periods
 * P(-(N-1)) .. P(N-1) (N = the longest window), each with its start, and the expiries of the
 * windows ending in P0 .. P(N-1). P0's own key is kept until the last of them expires.
 */
export interface WindowPlan {
  periods: readonly string[];
  startsMs: readonly number[];
  windowExpireAtMs: readonly number[];
  /** When P0's own key expires: kept n - 1 periods longer than the period's retention. */
  periodExpireAtMs: number;
}

const plans = new Map<string, WindowPlan>();

/** The plan of a write into `p0` (memoized: the writes of one period share it). */
export function windowPlan(spec: BoardSpec, p0: Period): WindowPlan {
  const id = `${spec.prefix}#${spec.generation}@${p0.id}`;
  let plan = plans.get(id);
  if (plan === undefined) {
    const n = longestWindow(spec);
    const before: Period[] = [];
    const after: Period[] = [];
    for (let p = p0, i = 1; i < n; i++) before.unshift((p = previousPeriod(spec.period, p)));
    for (let p = p0, i = 1; i < n; i++) after.push((p = nextPeriod(spec.period, p)));
    const all = [...before, p0, ...after];
    const ending = [p0, ...after];
    plan = Object.freeze({
      periods: all.map((p) => p.id),
      startsMs: all.map((p) => p.startMs),
      windowExpireAtMs: ending.map((p) => p.expireAtMs),
      periodExpireAtMs: ending[ending.length - 1]!.expireAtMs,
    });
    if (plans.size >= 10_000) plans.clear();
    plans.set(id, plan);
  }
  return plan;
}

/** The number of periods of the board's longest window (0 without windows). */
export function longestWindow(spec: Pick<BoardSpec, "windows">): number {
  return spec.windows.reduce((n, w) => Math.max(n, w.periods), 0);
}

/**
 * The first time unit of a SUM window whose first period starts at `firstStartMs`: its entries'
 * times are stored as units after it.
 */
export function windowBaseUnits(board: Pick<BoardSpec, "epochMs" | "resolutionMs">, firstStartMs: number): number {
  return Math.floor((firstStartMs - board.epochMs) / board.resolutionMs);
}

/** The spec that decodes the entries of window `w` ending in period `last` (SUM: its encoding, with the epoch of its first period). */
export function windowReadSpec(board: BoardSpec, w: WindowSpec, last: Period): BoardSpec {
  if (w.combine === "best") return board;
  let first = last;
  for (let i = 1; i < w.periods; i++) first = previousPeriod(board.period, first);
  return Object.freeze({ ...w.encoding, epochMs: board.epochMs + windowBaseUnits(board, first.startMs) * board.resolutionMs });
}
