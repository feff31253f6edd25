/**
 * The score log's record format: key = player id (UTF-8), value = a binary ScoreEvent.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ScoreEventSchema, type BoardPart, type ScoreEvent } from "@ladder/proto/leaderboard/v1/events_pb";
import { BoardRulesSchema, type BoardRules, type Operation } from "@ladder/proto/leaderboard/v1/common_pb";
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

/** The record fields of a resolved board's period and windows (their defaults without a period). */
function periodFields(b: Omit<ResolvedBoard, "board" | "op"> | undefined) {
  const w = b?.period ? b.windows : undefined;
  return {
    period: b?.period?.id ?? "",
    periodExpireAtMs: b?.period ? BigInt(b.period.expireAtMs) : 0n,
    windowPeriods: w ? [...w.periods] : [],
    windowPeriodStartsMs: w ? w.startsMs.map(BigInt) : [],
    windowExpireAtMs: w ? w.windowExpireAtMs.map(BigInt) : [],
  };
}

function partOf(b: ResolvedBoard): BoardPart {
  const p = periodFields(b);
  return {
    $typeName: "leaderboard.v1.BoardPart",
    board: b.board,
    op: b.op,
    rules: b.rules,
    period: p.period,
    periodExpireAtMs: p.periodExpireAtMs,
    windowPeriods: p.windowPeriods,
    windowExpireAtMs: p.windowExpireAtMs,
    windowPeriodStartsMs: p.windowPeriodStartsMs,
  };
}

/**
 * A record's value. `main` is the update's board (its fields' `board` and `op`); `also` the more boards
 * it applies to and `leave` the board it removes the player from, each as ingest resolved it.
 *
 * The message is written as one literal with every field, not through protobuf-es's create(): create
 * adds the fields one by one, which leaves a 20-field message in V8's dictionary mode and cost the
 * seeder ~20% of its CPU (profile of 2026-12-03); score-event.test.ts checks both give the same bytes.
 */
export function encodeScoreEvent(
  fields: UpdateFields & { metadata?: string; reportId?: string },
  ingestedAtMs: number,
  main?: Omit<ResolvedBoard, "board" | "op">,
  more: { also?: ResolvedBoard[]; leave?: ResolvedBoard } = {},
): Buffer {
  const p = periodFields(main);
  const event: ScoreEvent = {
    $typeName: "leaderboard.v1.ScoreEvent",
    board: fields.board,
    playerId: fields.playerId,
    op: fields.op,
    value: fields.value,
    timestampMs: fields.timestampMs,
    eventId: fields.eventId,
    ingestedAtMs: BigInt(ingestedAtMs),
    rules: main?.rules,
    period: p.period,
    periodExpireAtMs: p.periodExpireAtMs,
    also: more.also ? more.also.map(partOf) : [],
    leave: more.leave ? partOf(more.leave) : undefined,
    erase: false,
    eraseBoards: [],
    windowPeriods: p.windowPeriods,
    windowExpireAtMs: p.windowExpireAtMs,
    windowPeriodStartsMs: p.windowPeriodStartsMs,
    metadata: fields.metadata ?? "",
    deleteBoard: false,
    reportId: fields.reportId ?? "",
    closePeriod: false,
    moderation: undefined,
    joinTournament: false,
    tournamentMember: false,
  };
  const bytes = toBinary(ScoreEventSchema, event);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A tombstone's value (IngestService.DeletePlayer): erase `playerId` from `boards`, every board when empty. */
export function encodeTombstone(playerId: string, boards: string[], ingestedAtMs: number): Buffer {
  return Buffer.from(
    toBinary(
      ScoreEventSchema,
      create(ScoreEventSchema, { playerId, erase: true, eraseBoards: boards, ingestedAtMs: BigInt(ingestedAtMs) }),
    ),
  );
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
  return Buffer.from(
    toBinary(ScoreEventSchema, create(ScoreEventSchema, { board, rules, deleteBoard: true, ingestedAtMs: BigInt(ingestedAtMs) })),
  );
}

/**
 * A period close marker's value (the router's closer), one written to every partition: period
 * `period` of board `board`, generation `generation`, is closed.
 */
export function encodePeriodClose(board: string, generation: bigint, period: string, ingestedAtMs: number): Buffer {
  return Buffer.from(
    toBinary(
      ScoreEventSchema,
      create(ScoreEventSchema, {
        board,
        rules: create(BoardRulesSchema, { generation }),
        period,
        closePeriod: true,
        ingestedAtMs: BigInt(ingestedAtMs),
      }),
    ),
  );
}

/**
 * A tournament's join (IngestService.JoinTournament), for the tournament's partition; or, `member`,
 * the admitted player's membership, for the player's partition (tournaments.ts). `rules` are the
 * board's, which carry the tournament's limits and end.
 */
export function encodeTournamentJoin(board: string, playerId: string, rules: BoardRules, ingestedAtMs: number, member: boolean): Buffer {
  return Buffer.from(
    toBinary(
      ScoreEventSchema,
      create(ScoreEventSchema, {
        board,
        playerId,
        rules,
        period: "T",
        ingestedAtMs: BigInt(ingestedAtMs),
        ...(member ? { tournamentMember: true } : { joinTournament: true }),
      }),
    ),
  );
}
