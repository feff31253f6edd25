import { describe, expect, it } from "vitest";
import { decodeSortKey, encodeSortKey } from "@ladder/model/score-encoding";
import { benchBoards, benchDays, DAYS } from "./bench-boards.js";
import { daysOfWindow, entryOf, stateKeys, windowEntry, type DayScore } from "./board-state.js";
import { blockScores } from "./daily-players.js";

const NOW = Date.UTC(2026, 11, 2, 5, 0);
const { windowed, plain } = benchBoards(NOW);
const spec = windowed.spec;
const days = benchDays(spec, NOW, 6);
const [sum7, best7] = spec.windows;
const at = (day: number, minutes: number, points: number): DayScore => ({ points, reachedAtMs: days[day]!.startMs + minutes * 60_000 });

describe("bench > boards > board state", () => {
  it("writes 7 days ending yesterday and lists 7 period keys and 13 keys per window, expiring as the apply path makes them", () => {
    expect(days.map((d) => d.id)).toEqual([
      "2026-11-25",
      "2026-11-26",
      "2026-11-27",
      "2026-11-28",
      "2026-11-29",
      "2026-11-30",
      "2026-12-01",
      "2026-12-02",
      "2026-12-03",
      "2026-12-04",
      "2026-12-05",
      "2026-12-06",
      "2026-12-07",
    ]);
    const keys = stateKeys(spec, days, DAYS);
    expect(keys.filter((k) => !k.window)).toHaveLength(7);
    expect(keys.filter((k) => k.window === sum7).map((k) => k.period.id)).toEqual(days.map((d) => d.id));
    expect(keys.filter((k) => k.window === best7)).toHaveLength(13);
    const d7 = keys.find((k) => !k.window && k.day === 6)!;
    expect(d7.expireAtMs).toBe(days[6]!.startMs + (8 + 1 + 6) * 86_400_000); // 8 kept, +6 for the windows after it
    expect(keys.find((k) => k.window === sum7 && k.day === 6)!.expireAtMs).toBe(days[6]!.expireAtMs);
    expect(stateKeys(plain.spec, days, DAYS).map((k) => k.expireAtMs)).toEqual(days.slice(0, 7).map((d) => d.expireAtMs));
    expect(() => stateKeys(spec, days.slice(0, 12), DAYS)).toThrow(/need 13 periods/);
  });

  it("includes in the window ending in a day the written days of the 7 ending there", () => {
    expect(daysOfWindow(0, 7, 7)).toEqual([0]);
    expect(daysOfWindow(6, 7, 7)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(daysOfWindow(9, 7, 7)).toEqual([3, 4, 5, 6]);
    expect(daysOfWindow(12, 7, 7)).toEqual([6]);
  });

  it("takes the best part for BEST: more points, then the earlier time", () => {
    const k = (s: DayScore) => encodeSortKey(spec, s.points, s.reachedAtMs);
    expect(windowEntry(spec, best7!, spec, [at(0, 10, 50), at(1, 5, 90), at(2, 1, 70)])).toBe(k(at(1, 5, 90)));
    expect(windowEntry(spec, best7!, spec, [at(3, 10, 90), at(1, 5, 90)])).toBe(k(at(1, 5, 90)));
    expect(windowEntry(spec, best7!, spec, [])).toBeUndefined();
  });

  it("adds the points for SUM, at the latest part's time, decoded by the window key's read spec", () => {
    const key = stateKeys(spec, days, DAYS).find((x) => x.window === sum7 && x.day === 8)!; // ending in D9: days D3 .. D7 written
    const scores = [at(0, 1, 1), at(1, 1, 2), at(2, 30, 4), at(3, 2, 8), at(4, 7, 16), at(5, 3, 32), at(6, 1, 64)];
    const entry = entryOf(spec, key, scores)!;
    expect(decodeSortKey(key.readSpec, entry)).toEqual({ points: 4 + 8 + 16 + 32 + 64, reachedAtMs: at(6, 1, 0).reachedAtMs });
    // the later part decides the time, whatever its points; equal sums then rank the earlier one first
    const earlier = entryOf(spec, key, [...scores.slice(0, 6), at(6, 0, 64)])!;
    expect(earlier).toBeLessThan(entry);
    // a period key holds the day's own score
    const d3 = stateKeys(spec, days, DAYS).find((x) => !x.window && x.day === 2)!;
    expect(entryOf(spec, d3, scores)).toBe(encodeSortKey(spec, 4, at(2, 30, 0).reachedAtMs));
  });

  it("clamps a SUM time outside the window key's units to its ends", () => {
    const key = stateKeys(spec, days, DAYS).find((x) => x.window === sum7 && x.day === 6)!;
    const before = windowEntry(spec, sum7!, key.readSpec, [{ points: 5, reachedAtMs: key.readSpec.epochMs - 3 * 86_400_000 }])!;
    expect(decodeSortKey(key.readSpec, before)).toEqual({ points: 5, reachedAtMs: key.readSpec.epochMs });
  });

  it("draws each player's day scores within the day, the same whatever block size is asked", () => {
    const a = blockScores(7, 3, 1000, spec, days.slice(0, 7));
    const b = blockScores(7, 3, 10, spec, days.slice(0, 7));
    expect(b).toEqual(a.slice(0, 10));
    for (const player of a)
      player.forEach((s, d) => {
        expect(s.reachedAtMs).toBeGreaterThanOrEqual(days[d]!.startMs);
        expect(s.reachedAtMs).toBeLessThan(days[d]!.endMs);
        expect(s.points).toBeGreaterThanOrEqual(0);
      });
    expect(blockScores(8, 3, 10, spec, days.slice(0, 7))).not.toEqual(b);
  });
});
