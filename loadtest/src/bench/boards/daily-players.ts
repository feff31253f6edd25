/**
 * The boards benchmark's players: player i has a score on each written day, drawn like the
 * bench's other boards (log-normal points, median 1,000; workload/score-distribution.ts) at a
 * time uniform within that day. Player i's scores depend only on (seed, i): the generator of
 * day d for the block of BLOCK players holding i is rngFor(seed, block * MAX_DAYS + d).
 */
import type { BoardSpec } from "@ladder/model/board-spec";
import type { Period } from "@ladder/model/periods";
import { rngFor } from "../../workload/rng.js";
import { DEFAULT_SCORE_SHAPE, scoreSource, type ScoreSource } from "../../workload/score-distribution.js";
import type { DayScore } from "./board-state.js";

/** Players per generator block. */
export const BLOCK = 1000;
/** Days written at most (the streams of one block). */
export const MAX_DAYS = 32;

/** Draws of a day: points and a time within it. */
export function dayScoreSource(spec: BoardSpec, day: Period): ScoreSource {
  return scoreSource(spec, { ...DEFAULT_SCORE_SHAPE, windowMs: day.endMs - 1 - day.startMs }, day.endMs - 1);
}

/**
 * The scores of players block·BLOCK .. block·BLOCK + count - 1 (count <= BLOCK) on each of
 * `days`, as [player][day].
 */
export function blockScores(seed: number, block: number, count: number, spec: BoardSpec, days: readonly Period[]): DayScore[][] {
  if (days.length > MAX_DAYS) throw new RangeError(`at most ${MAX_DAYS} days`);
  if (count > BLOCK) throw new RangeError(`at most ${BLOCK} players per block`);
  const out: DayScore[][] = Array.from({ length: count }, () => []);
  days.forEach((day, d) => {
    const rng = rngFor(seed, block * MAX_DAYS + d);
    const source = dayScoreSource(spec, day);
    for (let i = 0; i < count; i++) out[i]!.push(source.draw(rng));
  });
  return out;
}

/** Blocks of the players first .. first+count-1 (first a multiple of BLOCK), each with its first player's index. */
export function* playerBlocks(
  seed: number,
  first: number,
  count: number,
  spec: BoardSpec,
  days: readonly Period[],
): Generator<{ first: number; scores: DayScore[][] }> {
  if (first % BLOCK !== 0) throw new RangeError(`first must be a multiple of ${BLOCK}`);
  for (let start = first; start < first + count; start += BLOCK) {
    yield { first: start, scores: blockScores(seed, start / BLOCK, Math.min(BLOCK, first + count - start), spec, days) };
  }
}
