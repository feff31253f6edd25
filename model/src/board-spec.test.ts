import { describe, expect, it } from "vitest";
import { bitLength, makeBoardSpec, DEFAULT_BOARD } from "./board-spec.js";
import { decodeSortKey, encodeSortKey } from "./score-encoding.js";

describe("model > board spec", () => {
  it("counts bits with integer arithmetic", () => {
    expect([0n, 1n, 2n, 3n, 4n, 255n, 256n].map(bitLength)).toEqual([0, 1, 2, 2, 3, 8, 9]);
    expect(bitLength(2n ** 48n - 1n)).toBe(48);
    expect(bitLength(2n ** 48n)).toBe(49);
    expect(bitLength(2n ** 49n)).toBe(50);
    expect(bitLength(2n ** 52n + 1n)).toBe(53);
  });

  // Ranges just above a power of two past 2^48: Math.log2 in floating point rounds log2(2^49 + 1)
  // down to exactly 49, one bit short, and then two (points, time) pairs share a key.
  const spans = [
    ["2^48 values", 2 ** 48 - 1],
    ["2^48 + 1 values", 2 ** 48],
    ["2^49 + 1 values", 2 ** 49],
    ["2^50 + 2 values", 2 ** 50 + 1],
    ["2^51 + 4 values", 2 ** 51 + 3],
    ["2^31 values", 2 ** 31 - 1],
    ["one value", 0],
  ] as const;
  for (const [label, span] of spans) {
    it(`gives every (points, time) of a range of ${label} its own key within 53 bits`, () => {
      const { spec, problems } = makeBoardSpec({ ...DEFAULT_BOARD, minPoints: 0, maxPoints: span, resolutionMs: 1, epochMs: 0 });
      expect(problems).toEqual([]);
      // the largest pointsIdx times the time field, plus the largest timeIdx, stays exact and below 2^53
      const worst = BigInt(span) * BigInt(spec!.timeUnits) + BigInt(spec!.timeUnits - 1);
      expect(worst < 2n ** 53n).toBe(true);
      // both ends decode to what was encoded, and one point more always sorts ahead
      const lastTime = spec!.timeUnits - 1;
      const a = encodeSortKey(spec!, 0, lastTime); // worst points, latest time
      const b = encodeSortKey(spec!, span, 0); // best points, earliest time
      expect(decodeSortKey(spec!, a)).toEqual({ points: 0, reachedAtMs: lastTime });
      expect(decodeSortKey(spec!, b)).toEqual({ points: span, reachedAtMs: 0 });
      if (span > 0) {
        const c = encodeSortKey(spec!, 1, 0); // one point better than a, earliest time
        expect(c).toBeLessThan(a);
        expect(decodeSortKey(spec!, c)).toEqual({ points: 1, reachedAtMs: 0 });
      }
    });
  }

  it("refuses a range that leaves no bits for time", () => {
    expect(makeBoardSpec({ ...DEFAULT_BOARD, minPoints: 0, maxPoints: 2 ** 53 - 1 }).problems).toEqual([
      'board spec "": points range leaves no bits for time (53-bit budget)',
    ]);
    expect(makeBoardSpec({ ...DEFAULT_BOARD, minPoints: -(2 ** 52), maxPoints: 2 ** 52 }).problems.length).toBe(1);
  });
});
