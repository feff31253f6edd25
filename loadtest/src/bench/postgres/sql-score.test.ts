import { describe, expect, it } from "vitest";
import { BENCH_SPEC } from "../infra/bench-board.js";
import { sqlScore } from "./sql-score.js";

const t = Date.UTC(2026, 10, 1);

describe("bench > sql score", () => {
  it("ranks more points higher, then the earlier time", () => {
    expect(sqlScore(BENCH_SPEC, 101, t)).toBeGreaterThan(sqlScore(BENCH_SPEC, 100, t - 86_400_000));
    expect(sqlScore(BENCH_SPEC, 100, t)).toBeGreaterThan(sqlScore(BENCH_SPEC, 100, t + 60_000));
    expect(sqlScore(BENCH_SPEC, 100, t)).toBe(sqlScore(BENCH_SPEC, 100, t + 59_999));
  });

  it("stays within a bigint a double holds exactly", () => {
    expect(sqlScore(BENCH_SPEC, BENCH_SPEC.maxPoints, BENCH_SPEC.epochMs)).toBe(2 ** 53 - 1);
    expect(sqlScore(BENCH_SPEC, 0, BENCH_SPEC.horizonMs - 1)).toBe(0);
  });
});
