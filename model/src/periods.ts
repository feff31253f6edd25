/**
 * Periods of a board: which period an event belongs to, what the period is called, when it
 * starts and ends, and until when it is kept.
 *
 * THE EVENT'S TIME DECIDES. The period of an event is found from its `timestamp_ms` in the
 * board's IANA time zone, never from the wall clock: a replay of the log puts every event in
 * the same period, and a late event lands in the period it belongs to. Ingest computes the
 * period (its id and until when it is kept) once and writes both into the record; shards only
 * use what the record says, so a replay cannot disagree with the first application even if
 * the time-zone database changed in between.
 *
 * NAMES. daily "2026-11-30", weekly (ISO 8601 weeks, Monday to Sunday, the ISO week-year)
 * "2026-W49", monthly "2026-11", cron: the start instant in the zone, ISO 8601 with its offset
 * ("2026-11-30T18:00:00.000+01:00"). A period starts at its first instant (midnight in the zone
 * for daily/weekly/monthly, a fire time of the cron expression) and ends where the next one
 * starts: a day has 23 or 25 hours across a daylight-saving change.
 *
 * SEASONS (seasons.ts) are numbered periods with gaps between them: the period "at" an instant in
 * a gap is the season before it (ends before the instant), and before season 1 it is season 1
 * (starts after it). Those who place an event check that it lies within the period found.
 *
 * A TOURNAMENT (tournaments.ts) has one period, "T", from its start to its end: the period "at"
 * any instant is that one, and those who place an event check that it lies within it. Its keys
 * expire TOURNAMENT_KEPT_MS after its close.
 *
 * RETENTION. A board keeps its current period and `keep` periods before it: a period's keys
 * expire when the period `keep + 1` after it starts (Redis PEXPIREAT). An event whose period
 * is no longer kept is refused.
 *
 * Date arithmetic is luxon's (time zones from the runtime's ICU data) and cron-parser's (cron
 * expressions with a time zone); nothing here adds hours by hand.
 */
import { CronExpressionParser } from "cron-parser";
import { DateTime } from "luxon";
import { seasonEndMs, seasonName, seasonNumberAt, seasonNumberOf, seasonProblem, seasonStartMs, type SeasonCalendar } from "./seasons.js";

export type PeriodKind = "none" | "daily" | "weekly" | "monthly" | "cron" | "season" | "tournament";

export interface PeriodRule {
  kind: PeriodKind;
  /** IANA time zone ("Europe/Paris"); "UTC" by default. */
  zone: string;
  /** A cron expression (5 fields, or 6 with seconds), for kind "cron". */
  cron: string;
  /** Past periods kept besides the current one. */
  keep: number;
  /** The calendar, for kind "season" (seasons.ts). */
  season?: SeasonCalendar;
  /** The one period, for kind "tournament" (tournaments.ts): named "T", from startMs to endMs. */
  tournament?: { startMs: number; endMs: number };
  /** When set, periods close this long after their end (BoardRules.close: closes.ts). */
  closeGraceMs?: number;
}

export interface Period {
  /** Its name (see above). */
  id: string;
  startMs: number;
  /** Exclusive: where the next period starts. */
  endMs: number;
  /** When its keys expire: the start of the period `keep + 1` after it. */
  expireAtMs: number;
}

/** The one period of a tournament's board (tournaments.ts). */
export const TOURNAMENT_PERIOD = "T";

/** How long a tournament's keys are kept after it closes: 30 days. */
export const TOURNAMENT_KEPT_MS = 30 * 86_400_000;

/** The longest grace a board's periods may close after their end: 30 days. */
export const MAX_CLOSE_GRACE_MS = 30 * 86_400_000;

/** Past periods a board may keep at most (besides the current one). */
export const MAX_KEPT_PERIODS = 1000;

/** What is wrong with a period rule, or undefined. */
export function periodRuleProblem(r: PeriodRule): string | undefined {
  if (r.kind === "none") return r.closeGraceMs === undefined ? undefined : "close is only for a board with periods";
  if (!DateTime.now().setZone(r.zone).isValid) return `time_zone "${r.zone}" is not an IANA time zone known here`;
  if (!Number.isInteger(r.keep) || r.keep < 0 || r.keep > MAX_KEPT_PERIODS)
    return `keep_periods must be 0 to ${MAX_KEPT_PERIODS}, got ${r.keep}`;
  if ((r.kind === "season") !== (r.season !== undefined))
    return r.kind === "season" ? "a season period needs its calendar (season)" : "a season calendar is only for a season period";
  if ((r.kind === "tournament") !== (r.tournament !== undefined))
    return r.kind === "tournament" ? "a tournament period needs its tournament" : "a tournament is only for a tournament period";
  if (r.kind === "tournament" && r.keep !== 0) return `keep_periods must be 0 for a tournament (it has one period), got ${r.keep}`;
  if (r.season) {
    const problem = seasonProblem(r.season, r.zone);
    if (problem) return problem;
  }
  if (r.closeGraceMs !== undefined && (!Number.isSafeInteger(r.closeGraceMs) || r.closeGraceMs < 0 || r.closeGraceMs > MAX_CLOSE_GRACE_MS))
    return `close.grace_ms must be 0 to ${MAX_CLOSE_GRACE_MS} (30 days), got ${r.closeGraceMs}`;
  if (r.kind === "cron") {
    if (r.cron.trim() === "") return "a cron period needs a cron expression";
    try {
      const it = CronExpressionParser.parse(r.cron, { tz: r.zone, currentDate: new Date(Date.UTC(2026, 0, 1)) });
      it.next();
    } catch (err) {
      return `cron expression "${r.cron}": ${(err as Error).message}`;
    }
  } else if (r.cron !== "") return `a cron expression is only for a cron period`;
  return undefined;
}

const UNIT = { daily: "day", weekly: "week", monthly: "month" } as const;
const FORMAT = { daily: "yyyy-MM-dd", weekly: "kkkk-'W'WW", monthly: "yyyy-MM" } as const;

/**
 * Periods found, per rule, sorted by start: most writes and reads fall in a few recent periods,
 * and finding one costs luxon 0.2 ms, cron-parser about 20 ms (a parse and a fire time per period
 * kept). At most CACHED_PERIODS per rule (the oldest-found go first), CACHED_RULES rules.
 */
const found = new Map<string, Period[]>();
const CACHED_PERIODS = 256;
const CACHED_RULES = 10_000;

/** The period holding instant `ms`. */
export function periodAt(r: PeriodRule, ms: number): Period {
  if (r.kind === "none") throw new Error("a board without periods has no period");
  if (r.kind === "tournament") return tournamentPeriod(r);
  const rule = `${r.kind}|${r.zone}|${r.keep}|${r.cron}|${r.season ? `${r.season.firstDay}/${r.season.lengthDays}/${r.season.gapDays}` : ""}`;
  let list = found.get(rule);
  if (list === undefined) {
    if (found.size >= CACHED_RULES) found.clear();
    found.set(rule, (list = []));
  }
  // the last period starting at or before ms
  let lo = 0;
  for (let hi = list.length; lo < hi; ) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.startMs <= ms) lo = mid + 1;
    else hi = mid;
  }
  const hit = list[lo - 1];
  if (hit && ms < hit.endMs) return hit;
  const p = Object.freeze(findPeriod(r, ms));
  if (list.some((x) => x.startMs === p.startMs)) return p; // an instant in a season's gap
  if (list.length >= CACHED_PERIODS) list.splice(0, list.length);
  const at = list.findIndex((x) => x.startMs > p.startMs);
  list.splice(at < 0 ? list.length : at, 0, p);
  return p;
}

function findPeriod(r: PeriodRule, ms: number): Period {
  if (r.kind === "season") return seasonPeriod(r, Math.max(1, seasonNumberAt(r.season!, r.zone, ms)));
  if (r.kind === "cron") {
    // the latest fire time at or before ms, and the next fire time after it
    const start = CronExpressionParser.parse(r.cron, { tz: r.zone, currentDate: new Date(ms + 1) })
      .prev()
      .getTime();
    return cronPeriod(r, start);
  }
  const start = DateTime.fromMillis(ms, { zone: r.zone }).startOf(UNIT[r.kind as keyof typeof UNIT]);
  return calendarPeriod(r, start);
}

function calendarPeriod(r: PeriodRule, start: DateTime): Period {
  const kind = r.kind as keyof typeof UNIT;
  const units = `${UNIT[kind]}s`;
  return {
    id: start.toFormat(FORMAT[kind]),
    startMs: start.toMillis(),
    endMs: start.plus({ [units]: 1 }).toMillis(),
    expireAtMs: start.plus({ [units]: r.keep + 1 }).toMillis(),
  };
}

function cronPeriod(r: PeriodRule, startMs: number): Period {
  const it = CronExpressionParser.parse(r.cron, { tz: r.zone, currentDate: new Date(startMs) });
  const end = it.next().getTime();
  let expireAt = end;
  for (let i = 0; i < r.keep; i++) expireAt = it.next().getTime();
  return { id: DateTime.fromMillis(startMs, { zone: r.zone }).toISO()!, startMs, endMs: end, expireAtMs: expireAt };
}

function tournamentPeriod(r: PeriodRule): Period {
  const { startMs, endMs } = r.tournament!;
  return { id: TOURNAMENT_PERIOD, startMs, endMs, expireAtMs: endMs + (r.closeGraceMs ?? 0) + TOURNAMENT_KEPT_MS };
}

function seasonPeriod(r: PeriodRule, k: number): Period {
  const s = r.season!;
  return {
    id: seasonName(k),
    startMs: seasonStartMs(s, r.zone, k),
    endMs: seasonEndMs(s, r.zone, k),
    expireAtMs: seasonStartMs(s, r.zone, k + r.keep + 1),
  };
}

/** The period named `id` (as periodAt names them), or undefined when `id` names none of this rule's periods. */
export function periodNamed(r: PeriodRule, id: string): Period | undefined {
  if (r.kind === "none") return undefined;
  if (r.kind === "tournament") return id === TOURNAMENT_PERIOD ? tournamentPeriod(r) : undefined;
  if (r.kind === "season") {
    const k = seasonNumberOf(id);
    const start = k === undefined ? Number.NaN : seasonStartMs(r.season!, r.zone, k);
    return Number.isFinite(start) ? periodAt(r, start) : undefined;
  }
  if (r.kind === "cron") {
    const at = DateTime.fromISO(id, { zone: r.zone });
    if (!at.isValid) return undefined;
    const p = periodAt(r, at.toMillis());
    return p.startMs === at.toMillis() ? p : undefined;
  }
  const start = DateTime.fromFormat(id, FORMAT[r.kind], { zone: r.zone });
  if (!start.isValid) return undefined;
  const p = periodAt(r, start.toMillis());
  return p.id === id ? p : undefined;
}

/** The periods a board keeps at `nowMs`, the current one first, then `keep` before it. */
export function keptPeriods(r: PeriodRule, nowMs: number): Period[] {
  if (r.kind === "none") return [];
  if (r.kind === "tournament") return [tournamentPeriod(r)];
  const out = [periodAt(r, nowMs)];
  while (out.length <= r.keep) {
    const before = periodAt(r, out[out.length - 1]!.startMs - 1);
    if (before.startMs === out[out.length - 1]!.startMs) break; // season 1 has none before it
    out.push(before);
  }
  return out;
}

/**
 * When the board next starts over after `nowMs` (Unix ms): where the period after the current one
 * starts (with seasons: the next season, also from within a gap or before season 1; a tournament:
 * its start, before it starts); 0 for an all-time board and a tournament that started.
 */
export function nextResetMs(r: PeriodRule, nowMs: number): number {
  if (r.kind === "none") return 0;
  if (r.kind === "tournament") return nowMs < r.tournament!.startMs ? r.tournament!.startMs : 0;
  if (r.kind === "season") return seasonStartMs(r.season!, r.zone, seasonNumberAt(r.season!, r.zone, nowMs) + 1);
  return periodAt(r, nowMs).endMs;
}

/** The first `count` fire times of a cron rule after `fromMs` (Unix ms), from one parse of the expression. */
export function cronFireTimes(r: PeriodRule, fromMs: number, count: number): number[] {
  const it = CronExpressionParser.parse(r.cron, { tz: r.zone, currentDate: new Date(fromMs) });
  return Array.from({ length: count }, () => it.next().getTime());
}
