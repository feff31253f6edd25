import { describe, expect, it } from "vitest";
import {
  cohortCode,
  cohortId,
  cohortOfCode,
  leagueOf,
  leagueRuleProblem,
  parseCohortId,
  parseGroupName,
  splitCohortPeriod,
  tierAfter,
  tierOfScore,
  tierScore,
  zoneOf,
  zonesOf,
} from "./leagues.js";

const league = leagueOf({ cohortSize: 10, tiers: 3, promote: 3, relegate: 2, brackets: 0 });

describe("leagues > rules", () => {
  it("names the field and its limit of a bad rule", () => {
    const ok = { cohortSize: 10, tiers: 3, promote: 3, relegate: 2, brackets: 0 };
    expect(leagueRuleProblem(ok)).toBeUndefined();
    expect(leagueRuleProblem({ ...ok, cohortSize: 1 })).toBe("league.cohort_size must be 2 to 1000, got 1");
    expect(leagueRuleProblem({ ...ok, tiers: 51 })).toBe("league.tiers must be 0 (one tier) to 50, got 51");
    expect(leagueRuleProblem({ ...ok, promote: 11 })).toBe("league.promote must be 0 to cohort_size (10), got 11");
    expect(leagueRuleProblem({ ...ok, relegate: 8 })).toBe("league.relegate must be 0 to cohort_size - promote (7), got 8");
    expect(leagueRuleProblem({ ...ok, brackets: 101 })).toBe("league.brackets must be 0 (none) to 100, got 101");
  });

  it("takes 0 tiers and brackets as 1", () => {
    expect(leagueOf({ cohortSize: 5, tiers: 0, promote: 0, relegate: 0, brackets: 0 })).toMatchObject({ tiers: 1, brackets: 1 });
  });
});

describe("leagues > cohorts", () => {
  it("names cohorts with their tier, bracket and index, and reads them back", () => {
    const bracketed = leagueOf({ cohortSize: 10, tiers: 3, promote: 3, relegate: 2, brackets: 4 });
    expect(cohortId(league, { tier: 2, bracket: 0, index: 17 })).toBe("t2c17");
    expect(cohortId(bracketed, { tier: 2, bracket: 3, index: 0 })).toBe("t2b3c0");
    expect(parseCohortId(league, "t2c17")).toEqual({ tier: 2, bracket: 0, index: 17 });
    expect(parseCohortId(bracketed, "t1b3c4")).toEqual({ tier: 1, bracket: 3, index: 4 });
    expect(parseCohortId(league, "t1b0c4")).toBe('cohort "t1b0c4" is not a cohort id of this league: "t<tier>c<index>"');
    expect(parseCohortId(bracketed, "t1c4")).toBe('cohort "t1c4" is not a cohort id of this league: "t<tier>b<bracket>c<index>"');
    expect(parseCohortId(league, "t3c0")).toBe(`cohort "t3c0": tier 3 is past the league's tiers (0 to 2)`);
    expect(parseCohortId(bracketed, "t0b4c0")).toBe(`cohort "t0b4c0": bracket 4 is past the league's brackets (0 to 3)`);
    expect(parseCohortId(league, "t01c0")).toMatch(/is not a cohort id/);
  });

  it("splits a cohort's period at its first slash", () => {
    expect(splitCohortPeriod("2026-W49/t0c3")).toEqual({ period: "2026-W49", cohort: "t0c3" });
    expect(splitCohortPeriod("2026-W49")).toEqual({ period: "2026-W49", cohort: "" });
    expect(splitCohortPeriod("/t0c3")).toEqual({ period: "", cohort: "t0c3" });
  });

  it("stores a cohort as an exact code, and a tier with the period that set it", () => {
    for (const c of [
      { tier: 0, bracket: 0, index: 0 },
      { tier: 49, bracket: 99, index: 2 ** 24 - 1 },
      { tier: 7, bracket: 3, index: 123_456 },
    ])
      expect(cohortOfCode(cohortCode(c))).toEqual(c);
    const start = Date.UTC(2026, 11, 7);
    expect(tierOfScore(tierScore(4, start))).toBe(4);
    expect(tierScore(0, start + 604_800_000)).toBeGreaterThan(tierScore(49, start));
    expect(parseGroupName("t3b12")).toEqual({ tier: 3, bracket: 12 });
    expect(parseGroupName("x")).toBeUndefined();
  });
});

describe("leagues > zones", () => {
  it("promotes the top, relegates the last, never the same rank twice, within the tiers", () => {
    expect(zonesOf(league, 1, 10)).toEqual({ promoteThrough: 3, relegateFrom: 9 });
    expect(zonesOf(league, 0, 10)).toEqual({ promoteThrough: 3, relegateFrom: 0 }); // nobody below tier 0
    expect(zonesOf(league, 2, 10)).toEqual({ promoteThrough: 0, relegateFrom: 9 }); // nobody above the top
    expect(zonesOf(league, 1, 4)).toEqual({ promoteThrough: 3, relegateFrom: 4 });
    expect(zonesOf(league, 1, 3)).toEqual({ promoteThrough: 3, relegateFrom: 0 });
    expect(zonesOf(league, 1, 0)).toEqual({ promoteThrough: 0, relegateFrom: 0 });
    const z = zonesOf(league, 1, 10);
    expect([1, 3, 4, 8, 9, 10].map((r) => zoneOf(z, r))).toEqual(["promotion", "promotion", "stay", "stay", "relegation", "relegation"]);
    expect([1, 4, 9].map((r) => tierAfter(league, 1, r, 10))).toEqual([2, 1, 0]);
    expect(tierAfter(league, 2, 1, 10)).toBe(2);
    expect(tierAfter(league, 0, 10, 10)).toBe(0);
  });
});
