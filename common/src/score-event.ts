/**
 * The score log's record format: key = player id (UTF-8), value = a binary ScoreEvent.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ScoreEventSchema, type ScoreEvent } from "@ladder/proto/leaderboard/v1/events_pb";
import type { BoardRules, Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import type { UpdateFields } from "./validate.js";
import type { WindowPlan } from "./windows.js";

export type { ScoreEvent };

/**
 * What ingest resolved for one board of an update: its rules (a defined board), its period (a board
 * with periods: when its key expires) and on a board with windows the periods around it (windows.ts).
 */
export interface ResolvedBoard {
  board: string;
  op: Operation;
  rules?: BoardRules;
  period?: { id: string; expireAtMs: number };
  windows?: WindowPlan;
}

/** The record fields of a resolved board's period and windows. */
function periodFields(b: Omit<ResolvedBoard, "board" | "op">) {
  if (!b.period) return {};
  const w = b.windows;
  return {
    period: b.period.id, periodExpireAtMs: BigInt(b.period.expireAtMs),
    ...(w ? { windowPeriods: [...w.periods], windowPeriodStartsMs: w.startsMs.map(BigInt), windowExpireAtMs: w.windowExpireAtMs.map(BigInt) } : {}),
  };
}

/**
 * A record's value. `main` is the update's board (its fields' `board` and `op`); `also` the more boards
 * it applies to and `leave` the board it removes the player from, each as ingest resolved it.
 */
export function encodeScoreEvent(fields: UpdateFields & { metadata?: string; reportId?: string }, ingestedAtMs: number, main?: Omit<ResolvedBoard, "board" | "op">, more: { also?: ResolvedBoard[]; leave?: ResolvedBoard } = {}): Buffer {
  const part = (b: ResolvedBoard) => ({ board: b.board, op: b.op, ...(b.rules ? { rules: b.rules } : {}), ...periodFields(b) });
  return Buffer.from(toBinary(ScoreEventSchema, create(ScoreEventSchema, {
    ...fields,
    ingestedAtMs: BigInt(ingestedAtMs),
    ...(main?.rules ? { rules: main.rules } : {}),
    ...(main ? periodFields(main) : {}),
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

/**
 * A board deletion marker's value (AdminService.DeleteBoard), one written to every partition: the
 * generation of `rules` of `board` is deleted.
 */
export function encodeBoardDeletion(board: string, rules: BoardRules, ingestedAtMs: number): Buffer {
  return Buffer.from(toBinary(ScoreEventSchema, create(ScoreEventSchema, { board, rules, deleteBoard: true, ingestedAtMs: BigInt(ingestedAtMs) })));
}
