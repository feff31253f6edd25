import { describe, expect, it } from "vitest";
import { DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { slotOf } from "@ladder/model/placement";
import { DEFAULT_SCORE_SHAPE, scoreSource } from "../workload/score-distribution.js";
import { population, type SeededPlayer } from "./population.js";

const scores = scoreSource(makeBoardSpec(DEFAULT_BOARD).spec!, DEFAULT_SCORE_SHAPE, Date.UTC(2026, 10, 30));
const all = (first: number, count: number, seed = 1): SeededPlayer[] =>
  [...population({ first, count, seed, numSlots: 64, scores })].flat();

describe("loadtest > seed population", () => {
  it("yields every player of the range once, in order, in chunks of at most 1000", () => {
    const chunks = [...population({ first: 0, count: 2500, seed: 1, numSlots: 64, scores })];
    expect(chunks.map((c) => c.length)).toEqual([1000, 1000, 500]);
    const ids = chunks.flat().map((p) => p.playerId);
    expect(ids[0]).toBe("p:000000000000");
    expect(ids[2499]).toBe("p:000000002499");
    expect(new Set(ids).size).toBe(2500);
  });

  it("gives each player the slot placement gives it", () => {
    for (const p of all(0, 500)) expect(p.slot).toBe(slotOf(p.playerId, 64));
  });

  it("draws a player's score from (seed, index) alone, whatever the range", () => {
    const whole = all(0, 3000);
    const part = all(1234, 1500);
    expect(part[0]!.playerId).toBe("p:000000001234");
    part.forEach((p, i) => expect(p).toEqual(whole[1234 + i]));
  });

  it("draws other scores for another seed", () => {
    expect(all(0, 10, 1).map((p) => p.points)).not.toEqual(all(0, 10, 2).map((p) => p.points));
  });
});
