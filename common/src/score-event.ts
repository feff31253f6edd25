/**
 * The score log's record format: key = player id (UTF-8), value = a binary ScoreEvent.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ScoreEventSchema, type ScoreEvent } from "@ladder/proto/leaderboard/v1/events_pb";
import type { BoardRules } from "@ladder/proto/leaderboard/v1/common_pb";
import type { UpdateFields } from "./validate.js";

export type { ScoreEvent };

/** For a defined board (board-definitions.ts): its rules and, on a board with periods, the event's period (periods.ts). */
export interface DefinedBoardFields {
  rules: BoardRules;
  period?: { id: string; expireAtMs: number };
}

export function encodeScoreEvent(fields: UpdateFields, ingestedAtMs: number, defined?: DefinedBoardFields): Buffer {
  const extra = defined ? { rules: defined.rules, ...(defined.period ? { period: defined.period.id, periodExpireAtMs: BigInt(defined.period.expireAtMs) } : {}) } : {};
  return Buffer.from(toBinary(ScoreEventSchema, create(ScoreEventSchema, { ...fields, ingestedAtMs: BigInt(ingestedAtMs), ...extra })));
}

/** Decodes a record value; throws on bytes that are not a ScoreEvent. */
export function decodeScoreEvent(value: Uint8Array): ScoreEvent {
  return fromBinary(ScoreEventSchema, value);
}
