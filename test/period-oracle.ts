// Which period an instant falls in, written from the definitions (proto/leaderboard/v1/common.proto,
// "PeriodKind") with the runtime's Intl time-zone data and plain arithmetic, independently of
// model/src/periods.ts (luxon, cron-parser): a bug there must not agree with itself here.

/** The wall-clock fields of `ms` in `zone`. */
export function localParts(
  ms: number,
  zone: string,
): { year: number; month: number; day: number; hour: number; minute: number; weekday: number } {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    weekday: "short",
  }).formatToParts(new Date(ms));
  const get = (t: string) => parts.find((p) => p.type === t)!.value;
  const weekday = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].indexOf(get("weekday")) + 1; // ISO: Monday 1 .. Sunday 7
  return {
    year: Number(get("year")),
    month: Number(get("month")),
    day: Number(get("day")),
    hour: Number(get("hour")),
    minute: Number(get("minute")),
    weekday,
  };
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** "2026-11-30": the local date. */
export function dailyId(ms: number, zone: string): string {
  const p = localParts(ms, zone);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
}

/** "2026-11": the local month. */
export function monthlyId(ms: number, zone: string): string {
  const p = localParts(ms, zone);
  return `${p.year}-${pad(p.month)}`;
}

/** "2026-W49": the ISO week of the local date (its Thursday decides the week-year). */
export function weeklyId(ms: number, zone: string): string {
  const p = localParts(ms, zone);
  const date = Date.UTC(p.year, p.month - 1, p.day); // the local date, as a UTC day for arithmetic
  const thursday = date + (4 - p.weekday) * 86_400_000;
  const weekYear = new Date(thursday).getUTCFullYear();
  const week = 1 + Math.floor((thursday - Date.UTC(weekYear, 0, 1)) / (7 * 86_400_000));
  return `${weekYear}-W${pad(week)}`;
}

/**
 * The start (Unix ms) of the weekly period beginning on `weekday` (ISO, 1 = Monday) at `hour`:00 local
 * time that holds `ms` (cron "0 <hour> * * <weekday % 7>"): the latest such instant at or before `ms`.
 */
export function weeklyAtStart(ms: number, zone: string, weekday: number, hour: number): number {
  const p = localParts(ms, zone);
  let daysBack = (p.weekday - weekday + 7) % 7;
  if (daysBack === 0 && p.hour < hour) daysBack = 7;
  const day = new Date(Date.UTC(p.year, p.month - 1, p.day) - daysBack * 86_400_000);
  // the instant whose local wall clock reads that day at hour:00: try each UTC offset of the day
  for (let offsetMin = -14 * 60; offsetMin <= 14 * 60; offsetMin += 15) {
    const candidate = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), hour) - offsetMin * 60_000;
    const l = localParts(candidate, zone);
    if (
      l.year === day.getUTCFullYear() &&
      l.month === day.getUTCMonth() + 1 &&
      l.day === day.getUTCDate() &&
      l.hour === hour &&
      l.minute === 0
    )
      return candidate;
  }
  throw new Error(`no local ${hour}:00 on that day in ${zone}`);
}
