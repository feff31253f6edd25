import { describe, expect, it } from "vitest";
import { keptPeriods, periodAt, periodNamed, periodRuleProblem, type PeriodRule } from "./periods.js";

const rule = (r: Partial<PeriodRule>): PeriodRule => ({ kind: "daily", zone: "UTC", cron: "", keep: 0, ...r });
const utc = (s: string) => Date.parse(s);

describe("model > periods", () => {
  it("names a day by its date in the board's zone, across a daylight-saving change (a 25-hour day)", () => {
    const paris = rule({ zone: "Europe/Paris", keep: 2 });
    // 2026-10-25: clocks go back at 03:00 CEST to 02:00 CET; the local day lasts 25 hours
    const p = periodAt(paris, utc("2026-10-25T12:00:00Z"));
    expect(p.id).toBe("2026-10-25");
    expect(p.startMs).toBe(utc("2026-10-24T22:00:00Z")); // midnight CEST
    expect(p.endMs).toBe(utc("2026-10-25T23:00:00Z")); // midnight CET
    expect(p.endMs - p.startMs).toBe(25 * 3600_000);
    expect(p.expireAtMs).toBe(utc("2026-10-27T23:00:00Z")); // the start of the third day after it
    // the last instant before midnight, and midnight itself
    expect(periodAt(paris, utc("2026-10-25T22:59:59.999Z")).id).toBe("2026-10-25");
    expect(periodAt(paris, utc("2026-10-25T23:00:00Z")).id).toBe("2026-10-26");
    // the same instant is another day in UTC
    expect(periodAt(rule({}), utc("2026-10-24T22:30:00Z")).id).toBe("2026-10-24");
    expect(periodAt(paris, utc("2026-10-24T22:30:00Z")).id).toBe("2026-10-25");
  });

  it("names ISO weeks, with the ISO week-year at the turn of a year", () => {
    const ny = rule({ kind: "weekly", zone: "America/New_York" });
    expect(periodAt(ny, utc("2026-12-01T12:00:00Z")).id).toBe("2026-W49");
    // Monday 2026-11-30 00:00 EST = 05:00Z starts week 49
    expect(periodAt(ny, utc("2026-11-30T04:59:59Z")).id).toBe("2026-W48");
    expect(periodAt(ny, utc("2026-11-30T05:00:00Z")).startMs).toBe(utc("2026-11-30T05:00:00Z"));
    // 2027-01-01 is a Friday: it belongs to 2026-W53
    expect(periodAt(rule({ kind: "weekly" }), utc("2027-01-01T12:00:00Z")).id).toBe("2026-W53");
    // the week across New York's change (2026-11-01) lasts 7 days and 1 hour
    const w = periodAt(ny, utc("2026-11-01T12:00:00Z"));
    expect(w.id).toBe("2026-W44");
    expect(w.endMs - w.startMs).toBe(7 * 86_400_000 + 3600_000);
  });

  it("names months, and keeps as many as asked", () => {
    const tokyo = rule({ kind: "monthly", zone: "Asia/Tokyo", keep: 1 });
    expect(periodAt(tokyo, utc("2026-11-30T15:00:00Z")).id).toBe("2026-12"); // already December in Tokyo
    const nov = periodAt(tokyo, utc("2026-11-15T00:00:00Z"));
    expect(nov).toEqual({
      id: "2026-11",
      startMs: utc("2026-10-31T15:00:00Z"),
      endMs: utc("2026-11-30T15:00:00Z"),
      expireAtMs: utc("2026-12-31T15:00:00Z"),
    });
    expect(keptPeriods(tokyo, utc("2026-12-10T00:00:00Z")).map((p) => p.id)).toEqual(["2026-12", "2026-11"]);
  });

  it("takes cron periods in a zone: each starts at a fire time and ends at the next", () => {
    const fridays = rule({ kind: "cron", cron: "0 18 * * 5", zone: "Europe/Berlin", keep: 1 });
    const p = periodAt(fridays, utc("2026-11-30T12:00:00Z")); // a Monday
    expect(p.startMs).toBe(utc("2026-11-27T17:00:00Z")); // Friday 18:00 CET
    expect(p.endMs).toBe(utc("2026-12-04T17:00:00Z"));
    expect(p.expireAtMs).toBe(utc("2026-12-11T17:00:00Z"));
    expect(periodAt(fridays, utc("2026-11-27T17:00:00Z")).startMs).toBe(p.startMs); // a fire time starts its own period
    expect(periodAt(fridays, utc("2026-11-27T16:59:59.999Z")).startMs).toBe(utc("2026-11-20T17:00:00Z"));
    // across Berlin's change (2026-10-25), a week of 7 days and 1 hour
    const dst = periodAt(fridays, utc("2026-10-26T12:00:00Z"));
    expect(dst.startMs).toBe(utc("2026-10-23T16:00:00Z")); // 18:00 CEST
    expect(dst.endMs).toBe(utc("2026-10-30T17:00:00Z")); // 18:00 CET
    expect(periodNamed(fridays, p.id)).toEqual(p);
    expect(periodNamed(fridays, new Date(p.startMs).toISOString())).toEqual(p); // any spelling of the instant
    expect(periodNamed(fridays, "2026-11-28T18:00:00+01:00")).toBeUndefined(); // not a fire time
  });

  it("reads period names back, and refuses names that are not periods", () => {
    expect(periodNamed(rule({ zone: "Europe/Paris" }), "2026-10-25")?.endMs).toBe(utc("2026-10-25T23:00:00Z"));
    expect(periodNamed(rule({ kind: "weekly" }), "2026-W49")?.startMs).toBe(utc("2026-11-30T00:00:00Z"));
    expect(periodNamed(rule({ kind: "monthly" }), "2026-11")?.id).toBe("2026-11");
    for (const [kind, id] of [
      ["daily", "2026-02-30"],
      ["daily", "2026-11"],
      ["weekly", "2026-W54"],
      ["weekly", "2026-49"],
      ["monthly", "2026-13"],
      ["monthly", "yesterday"],
    ] as const) {
      expect(periodNamed(rule({ kind }), id), `${kind} ${id}`).toBeUndefined();
    }
  });

  it("says what is wrong with a period rule", () => {
    expect(periodRuleProblem(rule({ zone: "Mars/Olympus" }))).toMatch(/not an IANA time zone/);
    expect(periodRuleProblem(rule({ kind: "cron", cron: "61 * * * *" }))).toMatch(/cron expression/);
    expect(periodRuleProblem(rule({ kind: "cron" }))).toMatch(/needs a cron expression/);
    expect(periodRuleProblem(rule({ cron: "0 0 * * *" }))).toMatch(/only for a cron period/);
    expect(periodRuleProblem(rule({ keep: 1001 }))).toMatch(/keep_periods/);
    expect(periodRuleProblem(rule({ zone: "Europe/Paris", keep: 30 }))).toBeUndefined();
  });
});
