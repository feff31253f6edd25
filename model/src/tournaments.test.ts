import { create } from "@bufbuild/protobuf";
import { BoardDefinitionSchema } from "@ladder/proto/leaderboard/v1/admin_pb";
import { PeriodKind } from "@ladder/proto/leaderboard/v1/common_pb";
import { describe, expect, it } from "vitest";
import { normalizeDefinition, specOfDefinition } from "./board-definitions.js";
import { keptPeriods, nextResetMs, periodAt, periodNamed } from "./periods.js";
import { slotOf } from "./placement.js";
import {
  decodePageToken,
  joinPartitionOf,
  resolveTournament,
  TOURNAMENT_KEPT_MS,
  tournamentPage,
  tournamentState,
  tournamentTimeProblem,
  type Listed,
} from "./tournaments.js";

const START = Date.UTC(2026, 11, 10, 12, 0, 0);
const rule = (o: Partial<Parameters<typeof resolveTournament>[0]> = {}) => ({
  category: "weekend",
  startMs: BigInt(START),
  endMs: 0n,
  durationMs: 3_600_000n,
  joinRequired: true,
  maxSize: 40,
  maxAttempts: 3,
  ...o,
});

describe("tournaments > rules", () => {
  it("resolves the end from a duration or takes end_ms", () => {
    expect(resolveTournament(rule()).tournament).toEqual({
      category: "weekend",
      startMs: START,
      endMs: START + 3_600_000,
      joinRequired: true,
      maxSize: 40,
      maxAttempts: 3,
    });
    expect(resolveTournament(rule({ endMs: BigInt(START + 5), durationMs: 0n })).tournament?.endMs).toBe(START + 5);
  });

  it("refuses bad rules naming the field and the limit", () => {
    expect(resolveTournament(rule({ category: "" })).problem).toMatch(/^tournament\.category is empty/);
    expect(resolveTournament(rule({ category: "a b" })).problem).toMatch(/^tournament\.category may contain only/);
    expect(resolveTournament(rule({ startMs: 0n })).problem).toMatch(/start_ms must be a time/);
    expect(resolveTournament(rule({ endMs: BigInt(START) })).problem).toMatch(/not both/);
    expect(resolveTournament(rule({ endMs: BigInt(START), durationMs: 0n })).problem).toMatch(/end_ms must be after start_ms/);
    expect(resolveTournament(rule({ durationMs: 0n })).problem).toMatch(/duration_ms must be above 0/);
    expect(resolveTournament(rule({ durationMs: BigInt(400 * 86_400_000) })).problem).toMatch(/at most 31622400000 ms/);
    expect(resolveTournament(rule({ maxSize: 1_000_001 })).problem).toMatch(/max_size must be 0 \(no limit\) to 1000000, got 1000001/);
    expect(resolveTournament(rule({ joinRequired: false })).problem).toMatch(/max_size needs join_required/);
    expect(resolveTournament(rule({ maxAttempts: 2_000_000 })).problem).toMatch(/max_attempts must be 0 \(no limit\) to 1000000/);
    expect(resolveTournament(rule({ joinRequired: false, maxSize: 0 })).problem).toBeUndefined();
  });

  it("names the start and the end of a write outside it", () => {
    const t = { startMs: START, endMs: START + 1000 };
    expect(tournamentTimeProblem("cup", t, START - 1)).toMatch(/before tournament "cup" starts \(2026-12-10T12:00:00.000Z\)/);
    expect(tournamentTimeProblem("cup", t, START)).toBeUndefined();
    expect(tournamentTimeProblem("cup", t, START + 999)).toBeUndefined();
    expect(tournamentTimeProblem("cup", t, START + 1000)).toMatch(/at or after tournament "cup" ended \(2026-12-10T12:00:01.000Z\)/);
    expect(tournamentState(t, START - 1)).toBe("upcoming");
    expect(tournamentState(t, START)).toBe("active");
    expect(tournamentState(t, START + 1000)).toBe("ended");
  });

  it("puts every join of a tournament in the partition of its name", () => {
    for (const b of ["cup", "weekend:1", "x"]) expect(joinPartitionOf(b, 64)).toBe(slotOf(b, 64));
  });
});

describe("tournaments > definition", () => {
  const requested = (over: Record<string, unknown> = {}) =>
    create(BoardDefinitionSchema, {
      name: "cup",
      rules: { period: PeriodKind.TOURNAMENT, tournament: rule(), ...over },
    });

  it("is a board of one period T that closes, by default at its end", () => {
    const { definition, problems } = normalizeDefinition(requested(), START - 10);
    expect(problems).toEqual([]);
    expect(definition!.rules!.tournament!.endMs).toBe(BigInt(START + 3_600_000));
    expect(definition!.rules!.tournament!.durationMs).toBe(0n);
    expect(definition!.rules!.close!.graceMs).toBe(0n);
    const spec = specOfDefinition(definition!);
    const T = { id: "T", startMs: START, endMs: START + 3_600_000, expireAtMs: START + 3_600_000 + TOURNAMENT_KEPT_MS };
    expect(periodAt(spec.period, START - 5)).toEqual(T);
    expect(periodAt(spec.period, START + 7_200_000)).toEqual(T);
    expect(periodNamed(spec.period, "T")).toEqual(T);
    expect(periodNamed(spec.period, "S1")).toBeUndefined();
    expect(keptPeriods(spec.period, START)).toEqual([T]);
    expect(nextResetMs(spec.period, START - 1)).toBe(START);
    expect(nextResetMs(spec.period, START)).toBe(0);
  });

  it("refuses windows, keep_periods and a tournament on another period kind", () => {
    expect(normalizeDefinition(requested({ keepPeriods: 2 }), START).problems.join()).toMatch(/keep_periods must be 0 for a tournament/);
    expect(normalizeDefinition(requested({ windows: [{ name: "w", periods: 2 }] }), START).problems.join()).toMatch(/no windows/);
    expect(normalizeDefinition(requested({ period: PeriodKind.DAILY }), START).problems.join()).toMatch(/only for a tournament period/);
    expect(normalizeDefinition(requested({ tournament: undefined }), START).problems.join()).toMatch(/needs its tournament/);
  });
});

describe("tournaments > listing", () => {
  const t = (name: string, category: string, startMs: number, endMs: number): Listed => ({
    name,
    tournament: { category, startMs, endMs, joinRequired: true, maxSize: 0, maxAttempts: 0 },
  });
  const all = [
    t("a", "x", 30, 100),
    t("b", "x", 10, 100),
    t("c", "y", 10, 100),
    t("d", "x", 10, 50), // ended at 50
    t("e", "x", 30, 100),
    t("f", "x", 20, 100),
  ];

  it("pages the open tournaments of a category by start then name, each once", () => {
    const seen: string[] = [];
    let after: { startMs: number; name: string } | undefined;
    for (let i = 0; i < 10; i++) {
      const { page, next } = tournamentPage(all, { category: "x", nowMs: 60, size: 2, ...(after ? { after } : {}) });
      seen.push(...page.map((l) => l.name));
      if (!next) break;
      after = decodePageToken(next);
    }
    expect(seen).toEqual(["b", "f", "a", "e"]);
    expect(tournamentPage(all, { category: "", nowMs: 0, size: 100 }).page.map((l) => l.name)).toEqual(["b", "c", "d", "f", "a", "e"]);
    expect(tournamentPage(all, { category: "x", nowMs: 60, size: 4 }).next).toBe("");
  });

  it("refuses a page token that is not one", () => {
    expect(decodePageToken("!!")).toBeUndefined();
    expect(decodePageToken(Buffer.from("12\n").toString("base64url"))).toBeUndefined();
  });
});
