/**
 * The score log's record format: key = player id (UTF-8), value = a binary ScoreEvent.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ScoreEventSchema, type ScoreEvent } from "@ladder/proto/leaderboard/v1/events_pb";
import type { BoardRules } from "@ladder/proto/leaderboard/v1/common_pb";
import type { UpdateFields } from "./validate.js";

export type { ScoreEvent };

/** `rules`: the board's definition's rules (board-definitions.ts), for a defined board. */
export function encodeScoreEvent(fields: UpdateFields, ingestedAtMs: number, rules?: BoardRules): Buffer {
  return Buffer.from(toBinary(ScoreEventSchema, create(ScoreEventSchema, { ...fields, ingestedAtMs: BigInt(ingestedAtMs), ...(rules ? { rules } : {}) })));
}

/** Decodes a record value; throws on bytes that are not a ScoreEvent. */
export function decodeScoreEvent(value: Uint8Array): ScoreEvent {
  return fromBinary(ScoreEventSchema, value);
}
