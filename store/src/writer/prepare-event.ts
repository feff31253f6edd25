/**
 * Turns a record of the score log into an input of the apply script: decode, re-check
 * with ingest's rules, quantize the time to the board's resolution. A record that fails
 * becomes a no-op (op 0) that only advances the partition's offset, and is reported.
 */
import type { BoardSpecs } from "@ladder/common/board-spec";
import { decodeScoreEvent } from "@ladder/common/score-event";
import type { PreparedEvent } from "./shard-writer.js";
import { updateProblem } from "@ladder/common/validate";

export interface Prepared {
  event: PreparedEvent;
  /** Why the record could not be applied; the event is then a no-op. */
  problem?: string;
}

/** A record that only advances its partition's offset. */
export function noopEvent(offset: bigint): PreparedEvent {
  return { offset, board: "", playerId: "", op: 0, value: 0, timeIdx: 0, maxPoints: 0, minPoints: 0, timeUnits: 1, ttlSeconds: 0, eventId: "", ingestedAtMs: 0 };
}

const noop = (offset: bigint, problem: string): Prepared => ({ problem, event: noopEvent(offset) });

export function prepareEvent(value: Buffer | null, offset: bigint, boards: BoardSpecs): Prepared {
  try {
    return prepare(value, offset, boards);
  } catch (err) {
    return noop(offset, `record could not be prepared: ${(err as Error).message}`);
  }
}

function prepare(value: Buffer | null, offset: bigint, boards: BoardSpecs): Prepared {
  if (!value) return noop(offset, "record has no value");
  let e;
  try {
    e = decodeScoreEvent(value);
  } catch (err) {
    return noop(offset, `record is not a ScoreEvent: ${(err as Error).message}`);
  }
  // Time in the past is always fine here: the skew bound applies at ingest, not on replay.
  const problem = updateProblem(e, boards, Number.MAX_SAFE_INTEGER, 0);
  if (problem) return noop(offset, problem);
  const spec = boards.forBoard(e.board);
  return {
    event: {
      offset,
      board: e.board,
      playerId: e.playerId,
      op: e.op,
      value: Number(e.value),
      timeIdx: Math.floor((Number(e.timestampMs) - spec.epochMs) / spec.resolutionMs),
      maxPoints: spec.maxPoints,
      minPoints: spec.minPoints,
      timeUnits: spec.timeUnits,
      ttlSeconds: spec.ttlSeconds,
      eventId: e.eventId,
      ingestedAtMs: Number(e.ingestedAtMs),
    },
  };
}
