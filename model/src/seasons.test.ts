import { describe, expect, it } from "vitest";
import { keptPeriods, nextResetMs, periodAt, periodNamed, periodRuleProblem, type PeriodRule } from "./periods.js";
import { seasonNumberAt, seasonNumberOf } from "./seasons.js";

// The oracle: the calendar of proto's SeasonRule worked out with Intl and a minute-by-minute search
// of local midnight, independently of seasons.ts (luxon).
function localDate(ms: number, zone: string): { y: number; m: number; d: number; h: number; min: number } {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
  }).formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return { y: get("year"), m: get("month"), d: get("day"), h: get("hour"), min: get("minute") };
}
/** The first instant of local day `dayUtcMs` (a date as Date.UTC of its midnight) in `zone`. */
function oracleMidnight(dayUtcMs: number, zone: string): number {
  // every zone here is a whole quarter-hour off UTC
  for (let t = dayUtcMs - 15 * 3600_000; t < dayUtcMs + 15 * 3600_000; t += 15 * 60_000) {
    const l = localDate(t, zone);
    if (Date.UTC(l.y, l.m - 1, l.d) === dayUtcMs) return t;
  }
  throw new Error("no midnight found");
}
interface Cal {
  first: string;
  len: number;
  gap: number;
  zone: string;
}
const seasons = new Map<string, [number, number]>();
/** Season k's [start, end) by the oracle. */
function oracleSeason(c: Cal, k: number): [number, number] {
  const key = `${JSON.stringify(c)}#${k}`;
  const known = seasons.get(key);
  if (known) return known;
  const first = Date.parse(`${c.first}T00:00:00Z`);
  const startDay = first + (k - 1) * (c.len + c.gap) * 86_400_000;
  const season: [number, number] = [oracleMidnight(startDay, c.zone), oracleMidnight(startDay + c.len * 86_400_000, c.zone)];
  seasons.set(key, season);
  return season;
}
/** The season holding `ms`, 0 when none (a gap, or before season 1). */
function oracleSeasonAt(c: Cal, ms: number): number {
  for (let k = 1; k < 1000; k++) {
    const [s, e] = oracleSeason(c, k);
    if (ms < s) return 0;
    if (ms < e) return k;
  }
  throw new Error("too far");
}

const rule = (c: Cal, keep = 0): PeriodRule => ({
  kind: "season",
  zone: c.zone,
  cron: "",
  keep,
  season: { firstDay: c.first, lengthDays: c.len, gapDays: c.gap },
});

describe("model > seasons", () => {
  const calendars: Cal[] = [
    { first: "2026-10-05", len: 14, gap: 3, zone: "Europe/Paris" }, // across 2026-10-25 (25-hour day)
    { first: "2026-10-20", len: 7, gap: 0, zone: "America/New_York" }, // weeks from a Tuesday, across 2026-11-01
    { first: "2026-12-30", len: 1, gap: 1, zone: "Asia/Tokyo" }, // every other day
    { first: "2027-03-01", len: 28, gap: 7, zone: "Australia/Sydney" }, // across 2027-04-04 (southern autumn)
  ];
  for (const c of calendars) {
    it(`places instants in seasons as the oracle does: ${c.len}-day seasons, ${c.gap}-day gaps, ${c.zone}`, () => {
      const r = rule(c);
      const from = Date.parse(`${c.first}T00:00:00Z`) - 3 * 86_400_000;
      for (let ms = from; ms < from + 80 * 86_400_000; ms += 97 * 60_000) {
        const k = oracleSeasonAt(c, ms);
        const p = periodAt(r, ms);
        const inside = ms >= p.startMs && ms < p.endMs;
        expect(inside ? seasonNumberOf(p.id) : 0, new Date(ms).toISOString()).toBe(k);
        if (k > 0) expect([p.startMs, p.endMs]).toEqual(oracleSeason(c, k));
      }
    });
  }

  it("starts and ends seasons at local midnight, exactly", () => {
    const c = calendars[0]!;
    const r = rule(c, 2);
    const [s2, e2] = oracleSeason(c, 2);
    expect(periodAt(r, s2 - 1).id).toBe("S1"); // in the gap: the season before
    expect(periodAt(r, s2).id).toBe("S2");
    expect(periodAt(r, e2 - 1).id).toBe("S2");
    expect(periodAt(r, e2).endMs).toBe(e2); // the gap after S2 is still S2's, ended
    expect(periodAt(r, e2).expireAtMs).toBe(oracleSeason(c, 5)[0]); // kept until season 2 + keep + 1 starts
    expect(seasonNumberAt(r.season!, c.zone, s2 - 1)).toBe(1);
    expect(seasonNumberAt(r.season!, c.zone, Date.parse("2026-10-04T21:59:59Z"))).toBe(0); // before midnight CEST of the 5th
    expect(periodAt(r, Date.parse("2026-10-01T00:00:00Z")).id).toBe("S1"); // before season 1: season 1, not begun
  });

  it("names seasons S1, S2, ... and finds them by name", () => {
    const r = rule(calendars[1]!);
    expect(periodNamed(r, "S3")?.startMs).toBe(oracleSeason(calendars[1]!, 3)[0]);
    for (const bad of ["S0", "s3", "S03", "3", "S", "S-1", "2026-10-20", "S1000000000"]) expect(periodNamed(r, bad), bad).toBeUndefined();
  });

  it("keeps the current season and as many before it as there are, down to season 1", () => {
    const c = calendars[0]!;
    const at = oracleSeason(c, 4)[0] + 3600_000;
    expect(keptPeriods(rule(c, 2), at).map((p) => p.id)).toEqual(["S4", "S3", "S2"]);
    expect(keptPeriods(rule(c, 10), at).map((p) => p.id)).toEqual(["S4", "S3", "S2", "S1"]);
  });

  it("gives the next reset: the next season's start, from within a season, a gap or before season 1", () => {
    const c = calendars[0]!;
    const r = rule(c);
    const [s1, e1] = oracleSeason(c, 1);
    const [s2] = oracleSeason(c, 2);
    expect(nextResetMs(r, s1 - 1)).toBe(s1);
    expect(nextResetMs(r, s1)).toBe(s2);
    expect(nextResetMs(r, e1)).toBe(s2);
    expect(nextResetMs(r, s2 - 1)).toBe(s2);
    expect(nextResetMs(r, s2)).toBe(oracleSeason(c, 3)[0]);
    expect(nextResetMs({ kind: "daily", zone: "UTC", cron: "", keep: 0 }, Date.parse("2026-12-04T10:00:00Z"))).toBe(
      Date.parse("2026-12-05T00:00:00Z"),
    );
    expect(nextResetMs({ kind: "none", zone: "UTC", cron: "", keep: 0 }, 0)).toBe(0);
  });

  it("refuses a bad calendar, naming the field and the limit", () => {
    const c = calendars[0]!;
    expect(periodRuleProblem({ ...rule(c), season: { firstDay: "2026-13-01", lengthDays: 7, gapDays: 0 } })).toMatch(/season.first_day/);
    expect(periodRuleProblem({ ...rule(c), season: { firstDay: "2026-12-01", lengthDays: 0, gapDays: 0 } })).toMatch(
      /season.length_days must be 1 to 3660, got 0/,
    );
    expect(periodRuleProblem({ ...rule(c), season: { firstDay: "2026-12-01", lengthDays: 7, gapDays: 4000 } })).toMatch(
      /season.gap_days must be 0 to 3660, got 4000/,
    );
    expect(periodRuleProblem({ kind: "season", zone: "UTC", cron: "", keep: 0 })).toMatch(/needs its calendar/);
    expect(periodRuleProblem({ ...rule(c), kind: "daily" })).toMatch(/only for a season period/);
    expect(periodRuleProblem(rule(c))).toBeUndefined();
  });
});
