/**
 * The score updates of the ingest benchmark, the same for all three paths measured:
 * SETs of players drawn uniformly from a space of `players` ids, points from the
 * synthetic distribution, each with an event id as a game server would send
 * (`<run>:<n>`). Deterministic for a seed.
 */
import { slotOf } from "@ladder/model/placement";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { playerId } from "../../workload/player-ids.js";
import { rngFor } from "../../workload/rng.js";
import { DEFAULT_SCORE_SHAPE, scoreSource } from "../../workload/score-distribution.js";
import { BENCH_BOARD, BENCH_SLOTS, BENCH_SPEC } from "../infra/bench-board.js";

/** A batch of `size` updates at each call. */
export function updateBatches(seed: number, players: number, runId: string, nowMs = Date.now()) {
  const rng = rngFor(seed, 7);
  const scores = scoreSource(BENCH_SPEC, DEFAULT_SCORE_SHAPE, nowMs);
  let n = 0;
  return (size: number) =>
    Array.from({ length: size }, () => {
      const id = playerId(rng.nextInt(players));
      return { playerId: id, slot: slotOf(id, BENCH_SLOTS), points: scores.points(rng), eventId: `${runId}:${n++}` };
    });
}

export type BenchUpdate = ReturnType<ReturnType<typeof updateBatches>>[number];

/** The update as a SET on BENCH_BOARD at `timestampMs` (0: ingest stamps it), as SubmitScores and a ScoreEvent take it. */
export function asSet(u: BenchUpdate, timestampMs: number) {
  const { playerId, eventId } = u;
  return { board: BENCH_BOARD, playerId, op: Operation.SET, value: BigInt(u.points), timestampMs: BigInt(timestampMs), eventId };
}
