import { describe, expect, it } from "vitest";
import { closedProblem, closeTimeOf } from "./closes.js";
import { periodRuleProblem, type PeriodRule } from "./periods.js";

const weekly: PeriodRule = { kind: "weekly", zone: "Europe/Paris", cron: "", keep: 2, closeGraceMs: 600_000 };
// week 49 of 2026: Monday 2026-11-30 00:00 CET (23:00Z the day before) to Monday 2026-12-07 00:00 CET
const w49 = { id: "2026-W49", startMs: Date.parse("2026-11-29T23:00:00Z"), endMs: Date.parse("2026-12-06T23:00:00Z") };

describe("model > closes", () => {
  it("closes a period at its end plus the grace, and never without a close rule", () => {
    expect(closeTimeOf(weekly, w49)).toBe(Date.parse("2026-12-06T23:10:00Z"));
    expect(closeTimeOf({ ...weekly, closeGraceMs: 0 }, w49)).toBe(w49.endMs);
    const { closeGraceMs: _, ...open } = weekly;
    expect(closeTimeOf(open, w49)).toBeUndefined();
    expect(closedProblem("cup", open, w49, w49.endMs + 10 * 86_400_000)).toBeUndefined();
  });

  it("refuses writes from the close time on, naming the period and its close time", () => {
    const closeAt = Date.parse("2026-12-06T23:10:00Z");
    expect(closedProblem("cup", weekly, w49, closeAt - 1)).toBeUndefined(); // a late event within the grace
    expect(closedProblem("cup", weekly, w49, closeAt)).toBe(
      'period 2026-W49 of board "cup" closed at 2026-12-06T23:10:00.000Z (its end plus a grace of 600000 ms): its standings are final',
    );
  });

  it("takes a grace of 0 to 30 days on a board with periods only", () => {
    expect(periodRuleProblem(weekly)).toBeUndefined();
    expect(periodRuleProblem({ ...weekly, closeGraceMs: 30 * 86_400_000 })).toBeUndefined();
    expect(periodRuleProblem({ ...weekly, closeGraceMs: 30 * 86_400_000 + 1 })).toBe(
      "close.grace_ms must be 0 to 2592000000 (30 days), got 2592000001",
    );
    expect(periodRuleProblem({ ...weekly, closeGraceMs: -1 })).toMatch(/close.grace_ms must be 0 to/);
    expect(periodRuleProblem({ kind: "none", zone: "UTC", cron: "", keep: 0, closeGraceMs: 0 })).toBe(
      "close is only for a board with periods",
    );
  });
});
