import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { BoardRulesSchema, PeriodKind, WindowCombine } from "@ladder/proto/leaderboard/v1/common_pb";
import { specOfRules } from "./board-definitions.js";
import { decodeSortKey } from "./score-encoding.js";
import { periodNamed } from "./periods.js";
import { MAX_WINDOW_PERIODS, longestPeriodMs, windowBaseUnits, windowPlan, windowReadSpec } from "./windows.js";

const GEN = Date.UTC(2026, 10, 1);
type RulesInit = Omit<NonNullable<Parameters<typeof create<typeof BoardRulesSchema>>[1]>, "$typeName">;
const rules = (o: RulesInit = {}) =>
  create(BoardRulesSchema, {
    minPoints: 0n,
    maxPoints: 1000n,
    resolutionMs: 1000,
    epochMs: BigInt(Date.UTC(2026, 0, 1)),
    generation: BigInt(GEN),
    period: PeriodKind.DAILY,
    timeZone: "Europe/Paris",
    keepPeriods: 10,
    ...o,
  });
const win = (name: string, periods: number, combine = WindowCombine.SUM) => ({ name, periods, combine });

describe("windows > definitions", () => {
  it("derive a SUM encoding wide enough for n periods and keep the board's own for BEST", () => {
    const { spec } = specOfRules("d", rules({ windows: [win("3d", 3), win("best", 4, WindowCombine.BEST)] }));
    const [sum, best] = spec!.windows;
    expect(sum!.encoding.maxPoints).toBe(3000);
    expect(sum!.encoding.minPoints).toBe(0);
    expect(sum!.encoding.timeUnits).toBe(2 ** (53 - 12)); // 3000 takes 12 bits
    const encoding = (x: typeof spec) => ({
      min: x!.minPoints,
      max: x!.maxPoints,
      units: x!.timeUnits,
      epoch: x!.epochMs,
      lower: x!.lowerIsBetter,
      tie: x!.tie,
    });
    expect(encoding(best!.encoding)).toEqual(encoding(spec));
    // a board whose points may be negative: sums of 1..n parts reach n·min and n·max
    const neg = specOfRules("n", rules({ minPoints: -5n, maxPoints: 10n, windows: [win("w", 4)] })).spec!;
    expect([neg.windows[0]!.encoding.minPoints, neg.windows[0]!.encoding.maxPoints]).toEqual([-20, 40]);
    // a positive minimum: one part alone is below n·min, so the range starts at min
    const pos = specOfRules("p", rules({ minPoints: 10n, maxPoints: 20n, windows: [win("w", 4)] })).spec!;
    expect([pos.windows[0]!.encoding.minPoints, pos.windows[0]!.encoding.maxPoints]).toEqual([10, 80]);
  });

  it("refuse what cannot be stored or read", () => {
    const problems = (o: Parameters<typeof rules>[0]) => specOfRules("x", rules(o)).problems.join("; ");
    expect(problems({ period: PeriodKind.UNSPECIFIED, timeZone: "", windows: [win("w", 2)] })).toMatch(/need a board with periods/);
    expect(problems({ windows: [win("w", 1)] })).toMatch(/2 to 31/);
    expect(problems({ windows: [win("w", MAX_WINDOW_PERIODS + 1)] })).toMatch(/2 to 31/);
    expect(problems({ windows: [win("w", 2), win("w", 3)] })).toMatch(/defined twice/);
    expect(problems({ windows: [win("W!", 2)] })).toMatch(/a-z 0-9/);
    expect(problems({ windows: [win("a", 2), win("b", 2), win("c", 2), win("d", 2), win("e", 2)] })).toMatch(/MAX_WINDOWS/);
    // 1 ms resolution over 3 days needs 29 bits of time; a 2^40 range summed 4 times leaves 11
    expect(problems({ maxPoints: 2n ** 40n, resolutionMs: 1, windows: [win("w", 3)] })).toMatch(/time units/);
    // the same window with ties by player id needs no time at all
    expect(problems({ maxPoints: 2n ** 40n, resolutionMs: 1, tie: 3, windows: [win("w", 3)] })).toBe("");
    expect(problems({ maxPoints: 2n ** 51n, windows: [win("w", 8)] })).toMatch(/no bits for time/);
  });

  it("take the longest period of a cron rule from its next 100 periods", () => {
    // Fridays 18:00 in Berlin: a week, plus the hour of the October change back to winter time
    const r = { kind: "cron" as const, zone: "Europe/Berlin", cron: "0 18 * * 5", keep: 0 };
    expect(longestPeriodMs(r, GEN)).toBe(7 * 86_400_000 + 3_600_000);
  });
});

describe("windows > plans", () => {
  it("list the periods around a write's period, across a 25-hour day, with the expiries of the windows that include it", () => {
    const { spec } = specOfRules("d", rules({ keepPeriods: 2, windows: [win("3d", 3), win("b", 2, WindowCombine.BEST)] }));
    const p0 = periodNamed(spec!.period, "2026-10-25")!;
    const plan = windowPlan(spec!, p0);
    expect(plan.periods).toEqual(["2026-10-23", "2026-10-24", "2026-10-25", "2026-10-26", "2026-10-27"]);
    expect(plan.startsMs[2]! - plan.startsMs[1]!).toBe(24 * 3_600_000);
    expect(plan.startsMs[3]! - plan.startsMs[2]!).toBe(25 * 3_600_000); // Paris leaves summer time that day
    // the window ending in a period expires with it: keep 2, so 3 periods after its start
    expect(plan.windowExpireAtMs).toEqual(
      ["2026-10-25", "2026-10-26", "2026-10-27"].map((id) => periodNamed(spec!.period, id)!.expireAtMs),
    );
    // the period's own key lives until the last window including it expires
    expect(plan.periodExpireAtMs).toBe(plan.windowExpireAtMs[2]);
    expect(plan.periodExpireAtMs).toBeGreaterThan(p0.expireAtMs);
  });

  it("decode a SUM window's times from the start of its first period", () => {
    const { spec } = specOfRules("d", rules({ resolutionMs: 60_000, windows: [win("3d", 3)] }));
    const w = spec!.windows[0]!;
    const last = periodNamed(spec!.period, "2026-11-30")!;
    const read = windowReadSpec(spec!, w, last);
    const first = periodNamed(spec!.period, "2026-11-28")!;
    expect(read.epochMs).toBe(spec!.epochMs + windowBaseUnits(spec!, first.startMs) * 60_000);
    // 120 points reached 90 minutes into the window's first day
    const key = (w.encoding.maxPoints - 120) * w.encoding.timeUnits + 90;
    expect(decodeSortKey(read, key)).toEqual({ points: 120, reachedAtMs: first.startMs + 90 * 60_000 });
  });
});
