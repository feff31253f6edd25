import { describe, expect, it } from "vitest";
import { makeBoardSpec, DEFAULT_BOARD } from "@ladder/model/board-spec";
import { rngFor } from "./rng.js";
import { DEFAULT_SCORE_SHAPE, scoreSource } from "./score-distribution.js";

const spec = makeBoardSpec(DEFAULT_BOARD).spec!;
const now = Date.UTC(2026, 10, 30);

describe("loadtest > score distribution", () => {
  it("draws integer points around the median, with many ties", () => {
    const source = scoreSource(spec, DEFAULT_SCORE_SHAPE, now);
    const rng = rngFor(1);
    const points = Array.from({ length: 100_000 }, () => source.points(rng));
    expect(points.every((p) => Number.isInteger(p) && p >= spec.minPoints && p <= spec.maxPoints)).toBe(true);
    const sorted = [...points].sort((a, b) => a - b);
    const median = sorted[50_000]!;
    expect(median).toBeGreaterThan(900);
    expect(median).toBeLessThan(1100);
    expect(new Set(points).size).toBeLessThan(30_000); // ties: far fewer values than players
  });

  it("clamps points to a narrow board's range", () => {
    const narrow = makeBoardSpec({ ...DEFAULT_BOARD, prefix: "n:", minPoints: 10, maxPoints: 500 }).spec!;
    const source = scoreSource(narrow, DEFAULT_SCORE_SHAPE, now);
    const rng = rngFor(2);
    for (let i = 0; i < 10_000; i++) {
      const p = source.points(rng);
      expect(p >= 10 && p <= 500).toBe(true);
    }
  });

  it("puts reached-at times in the window that ends now, inside the board's range", () => {
    const source = scoreSource(spec, { ...DEFAULT_SCORE_SHAPE, windowMs: 3600_000 }, now);
    const rng = rngFor(3);
    for (let i = 0; i < 10_000; i++) {
      const { reachedAtMs } = source.draw(rng);
      expect(reachedAtMs >= now - 3600_000 && reachedAtMs <= now).toBe(true);
    }
    const early = scoreSource(spec, DEFAULT_SCORE_SHAPE, spec.epochMs + 1000);
    for (let i = 0; i < 1000; i++) expect(early.draw(rng).reachedAtMs >= spec.epochMs).toBe(true);
  });

  it("refuses a board whose range starts after now", () => {
    expect(() => scoreSource(spec, DEFAULT_SCORE_SHAPE, spec.epochMs - 1)).toThrow(RangeError);
  });

  it("is deterministic for a seed", () => {
    const source = scoreSource(spec, DEFAULT_SCORE_SHAPE, now);
    const a = rngFor(7, 3);
    const b = rngFor(7, 3);
    for (let i = 0; i < 100; i++) expect(source.draw(a)).toEqual(source.draw(b));
  });
});
