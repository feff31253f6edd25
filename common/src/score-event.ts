/**
 * The score log's record format: key = player id (UTF-8), value = a binary ScoreEvent.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ScoreEventSchema, type ScoreEvent } from "@ladder/proto/leaderboard/v1/events_pb";
import type { BoardRules, Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import type { UpdateFields } from "./validate.js";

export type { ScoreEvent };

/** What ingest resolved for one board of an update: its rules (a defined board) and its period (a board with periods). */
export interface ResolvedBoard {
  board: string;
  op: Operation;
  rules?: BoardRules;
  period?: { id: string; expireAtMs: number };
}

/**
 * A record's value. `main` is the update's board (its fields' `board` and `op`); `also` the more boards
 * it applies to and `leave` the board it removes the player from, each as ingest resolved it.
 */
export function encodeScoreEvent(fields: UpdateFields, ingestedAtMs: number, main?: Omit<ResolvedBoard, "board" | "op">, more: { also?: ResolvedBoard[]; leave?: ResolvedBoard } = {}): Buffer {
  const part = (b: ResolvedBoard) => ({ board: b.board, op: b.op, ...(b.rules ? { rules: b.rules } : {}), ...(b.period ? { period: b.period.id, periodExpireAtMs: BigInt(b.period.expireAtMs) } : {}) });
  return Buffer.from(toBinary(ScoreEventSchema, create(ScoreEventSchema, {
    ...fields,
    ingestedAtMs: BigInt(ingestedAtMs),
    ...(main?.rules ? { rules: main.rules } : {}),
    ...(main?.period ? { period: main.period.id, periodExpireAtMs: BigInt(main.period.expireAtMs) } : {}),
    ...(more.also?.length ? { also: more.also.map(part) } : {}),
    ...(more.leave ? { leave: part(more.leave) } : {}),
  })));
}

/** A tombstone's value (IngestService.DeletePlayer): erase `playerId` from `boards`, every board when empty. */
export function encodeTombstone(playerId: string, boards: string[], ingestedAtMs: number): Buffer {
  return Buffer.from(toBinary(ScoreEventSchema, create(ScoreEventSchema, { playerId, erase: true, eraseBoards: boards, ingestedAtMs: BigInt(ingestedAtMs) })));
}

/** Decodes a record value; throws on bytes that are not a ScoreEvent. */
export function decodeScoreEvent(value: Uint8Array): ScoreEvent {
  return fromBinary(ScoreEventSchema, value);
}
