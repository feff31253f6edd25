/**
 * The board every benchmark uses: the default board spec (points 0..2^31-1, 1-minute
 * time resolution), 64 slots like the local cluster, and the seeder's synthetic players
 * (seed/population.ts: ids `p:` + 12 digits, log-normal points, reached-at times over the
 * 30 days before today 00:00 UTC). Player i has the same score in Redis and in Kafka, so
 * every store holds the same board.
 */
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec, type BoardSpec } from "@ladder/model/board-spec";
import { population, type SeededPlayer } from "../../seed/population.js";
import { DEFAULT_SCORE_SHAPE, scoreSource, todayUtcMs } from "../../workload/score-distribution.js";

export const BENCH_BOARD = "bench";
export const BENCH_KEY_PREFIX = "bench:";
export const BENCH_SLOTS = 64;
export const BENCH_SPEC: BoardSpec = makeBoardSpec(DEFAULT_BOARD).spec!;
export const BENCH_SPECS = new BoardSpecs([BENCH_SPEC]);

/** Players first .. first+count-1 of the bench's population, in chunks. */
export function benchPlayers(seed: number, first: number, count: number, untilMs = todayUtcMs()): Iterable<SeededPlayer[]> {
  const scores = scoreSource(BENCH_SPEC, DEFAULT_SCORE_SHAPE, untilMs);
  return population({ first, count, seed, numSlots: BENCH_SLOTS, scores });
}
