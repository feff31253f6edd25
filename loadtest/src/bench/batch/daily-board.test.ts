import { describe, expect, it } from "vitest";
import { Operation, PeriodKind, WindowCombine } from "@ladder/proto/leaderboard/v1/common_pb";
import { BENCH_SPEC } from "../infra/bench-board.js";
import { behind, maxOffsets } from "../../seed/apply-watch.js";
import { dailyBatches, dailyDefinition, dailyPlayerIndexes, dailyScores, daysWritten } from "./daily-board.js";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 11, 2);
const periods = [
  { id: "2026-12-02", startMs: BigInt(T0), endMs: BigInt(T0 + DAY) },
  { id: "2026-12-01", startMs: BigInt(T0 - DAY), endMs: BigInt(T0) },
  { id: "2026-11-30", startMs: BigInt(T0 - 2 * DAY), endMs: BigInt(T0 - DAY) },
];

describe("bench > batch > daily board", () => {
  it("defines a UTC daily board keeping 7 days, with a 7-day SUM and a 7-day BEST window", () => {
    expect(dailyDefinition("d")).toEqual({
      name: "d",
      defaultOp: Operation.SET,
      allowOpOverride: false,
      rules: {
        period: PeriodKind.DAILY,
        keepPeriods: 7,
        windows: [
          { name: "sum7", periods: 7, combine: WindowCombine.SUM },
          { name: "best7", periods: 7, combine: WindowCombine.BEST },
        ],
      },
    });
  });

  it("writes yesterday whole and today up to a second before now", () => {
    const now = T0 + 3_600_000;
    expect(daysWritten(periods, now)).toEqual([
      { id: "2026-12-01", fromMs: T0 - DAY, toMs: T0 - 1 },
      { id: "2026-12-02", fromMs: T0, toMs: now - 1001 },
    ]);
    expect(daysWritten(periods, T0 + 10)[1]).toEqual({ id: "2026-12-02", fromMs: T0, toMs: T0 }); // just after midnight: today's start
    expect(() => daysWritten(periods.slice(0, 1), now)).toThrow(/2 periods|1 periods/);
  });

  it("draws each player's scores within each day, the same for the same seed and player", () => {
    const days = daysWritten(periods, T0 + 3_600_000);
    const a = dailyScores(1, 42, days, BENCH_SPEC);
    expect(dailyScores(1, 42, days, BENCH_SPEC)).toEqual(a);
    expect(dailyScores(1, 43, days, BENCH_SPEC)).not.toEqual(a);
    a.forEach((s, d) => {
      expect(s.reachedAtMs).toBeGreaterThanOrEqual(days[d]!.fromMs);
      expect(s.reachedAtMs).toBeLessThanOrEqual(days[d]!.toMs);
      expect(Number.isInteger(s.points) && s.points >= 0).toBe(true);
    });
  });

  it("spreads the daily players over the seeded ones and batches two SETs per player", () => {
    expect(dailyPlayerIndexes(4, 10)).toEqual([0, 10, 20, 30]);
    const days = daysWritten(periods, T0 + 3_600_000);
    const batches = [...dailyBatches("d", 1, [0, 10, 20], days, BENCH_SPEC, 4)];
    expect(batches.map((b) => b.length)).toEqual([4, 2]);
    const all = batches.flat();
    expect(all.map((u) => u.playerId)).toEqual([
      "p:000000000000",
      "p:000000000000",
      "p:000000000010",
      "p:000000000010",
      "p:000000000020",
      "p:000000000020",
    ]);
    expect(all.every((u) => u.board === "d" && u.op === Operation.SET)).toBe(true);
    const s = dailyScores(1, 10, days, BENCH_SPEC);
    expect(all.slice(2, 4).map((u) => [u.value, u.timestampMs])).toEqual(s.map((x) => [BigInt(x.points), BigInt(x.reachedAtMs)]));
  });

  it("keeps the highest offset acknowledged per partition and says which are not applied yet", () => {
    const target = maxOffsets(new Map(), [
      { partition: 1, offset: 5n },
      { partition: 2, offset: 3n },
    ]);
    maxOffsets(target, [
      { partition: 1, offset: 4n },
      { partition: 3, offset: 0n },
    ]);
    expect([...target]).toEqual([
      [1, 5n],
      [2, 3n],
      [3, 0n],
    ]);
    expect(
      behind(
        target,
        new Map([
          [1, 5n],
          [2, 2n],
        ]),
      ),
    ).toEqual([2, 3]);
    expect(
      behind(
        target,
        new Map([
          [1, 6n],
          [2, 3n],
          [3, 0n],
        ]),
      ),
    ).toEqual([]);
  });
});
