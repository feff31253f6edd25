/**
 * The score log's record format: key = player id (UTF-8), value = a binary ScoreEvent.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { ScoreEventSchema, type BoardPart, type ScoreEvent } from "@ladder/proto/leaderboard/v1/events_pb";
import { ModerationSchema } from "@ladder/proto/leaderboard/v1/moderation_pb";
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

/**
 * Decodes a record value; throws on bytes that are not a ScoreEvent (as protobuf-es's fromBinary,
 * which it answers the same as: score-event.test.ts compares both on generated records).
 *
 * Written by field number rather than through fromBinary, which a shard node runs for every record
 * it applies: fromBinary builds each message through create() (every field set one by one: the
 * objects end in V8's dictionary mode, slow to read and to collect), and decodes the board's rules
 * again in every record of a defined board. Here each message is one literal with every field, and
 * the rules (the same bytes in every record of a board's generation) are decoded once per distinct
 * bytes (RULES_KEPT at most are kept; the objects are shared: read them, never change them). Fields
 * this version does not know are skipped, as fromBinary keeps them aside.
 */
export function decodeScoreEvent(value: Uint8Array): ScoreEvent {
  const r = new BinaryReader(value);
  const e: ScoreEvent = {
    $typeName: "leaderboard.v1.ScoreEvent",
    board: "",
    playerId: "",
    op: 0,
    value: 0n,
    timestampMs: 0n,
    eventId: "",
    ingestedAtMs: 0n,
    rules: undefined,
    period: "",
    periodExpireAtMs: 0n,
    also: [],
    leave: undefined,
    erase: false,
    eraseBoards: [],
    windowPeriods: [],
    windowExpireAtMs: [],
    windowPeriodStartsMs: [],
    metadata: "",
    deleteBoard: false,
    reportId: "",
    closePeriod: false,
    moderation: undefined,
    joinTournament: false,
    tournamentMember: false,
  };
  while (r.pos < r.len) {
    const [no, wire] = r.tag();
    switch (no) {
      case 1:
        e.board = r.string();
        break;
      case 2:
        e.playerId = r.string();
        break;
      case 3:
        e.op = r.int32();
        break;
      case 4:
        e.value = r.int64() as bigint;
        break;
      case 5:
        e.timestampMs = r.int64() as bigint;
        break;
      case 6:
        e.eventId = r.string();
        break;
      case 7:
        e.ingestedAtMs = r.int64() as bigint;
        break;
      case 8:
        e.rules = rulesOf(r.bytes());
        break;
      case 9:
        e.period = r.string();
        break;
      case 10:
        e.periodExpireAtMs = r.int64() as bigint;
        break;
      case 11:
        e.also.push(partOfBytes(r.bytes()));
        break;
      case 12:
        e.leave = partOfBytes(r.bytes());
        break;
      case 13:
        e.erase = r.bool();
        break;
      case 14:
        e.eraseBoards.push(r.string());
        break;
      case 15:
        e.windowPeriods.push(r.string());
        break;
      case 16:
        int64s(r, wire, e.windowExpireAtMs);
        break;
      case 17:
        int64s(r, wire, e.windowPeriodStartsMs);
        break;
      case 18:
        e.metadata = r.string();
        break;
      case 19:
        e.deleteBoard = r.bool();
        break;
      case 20:
        e.reportId = r.string();
        break;
      case 21:
        e.closePeriod = r.bool();
        break;
      case 22:
        e.joinTournament = r.bool();
        break;
      case 23:
        e.tournamentMember = r.bool();
        break;
      case 30:
        e.moderation = fromBinary(ModerationSchema, r.bytes());
        break;
      default:
        r.skip(wire, no);
    }
  }
  return e;
}

/** A BoardPart's bytes, decoded as decodeScoreEvent decodes the record. */
function partOfBytes(bytes: Uint8Array): BoardPart {
  const r = new BinaryReader(bytes);
  const p: BoardPart = {
    $typeName: "leaderboard.v1.BoardPart",
    board: "",
    op: 0,
    rules: undefined,
    period: "",
    periodExpireAtMs: 0n,
    windowPeriods: [],
    windowExpireAtMs: [],
    windowPeriodStartsMs: [],
  };
  while (r.pos < r.len) {
    const [no, wire] = r.tag();
    switch (no) {
      case 1:
        p.board = r.string();
        break;
      case 2:
        p.op = r.int32();
        break;
      case 3:
        p.rules = rulesOf(r.bytes());
        break;
      case 4:
        p.period = r.string();
        break;
      case 5:
        p.periodExpireAtMs = r.int64() as bigint;
        break;
      case 6:
        p.windowPeriods.push(r.string());
        break;
      case 7:
        int64s(r, wire, p.windowExpireAtMs);
        break;
      case 8:
        int64s(r, wire, p.windowPeriodStartsMs);
        break;
      default:
        r.skip(wire, no);
    }
  }
  return p;
}

/** A repeated int64 field's values: packed (one length-delimited run) or one value per tag. */
function int64s(r: BinaryReader, wire: WireType, into: bigint[]): void {
  if (wire !== WireType.LengthDelimited) return void into.push(r.int64() as bigint);
  const end = r.uint32() + r.pos;
  while (r.pos < end) into.push(r.int64() as bigint);
}

/** Distinct rules bytes decoded and kept (a board generation's rules are the same bytes in all its records). */
const RULES_KEPT = 1000;
const rulesByBytes = new Map<string, BoardRules>();

function rulesOf(bytes: Uint8Array): BoardRules {
  const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  let rules = rulesByBytes.get(key);
  if (rules === undefined) {
    rules = fromBinary(BoardRulesSchema, bytes);
    if (rulesByBytes.size >= RULES_KEPT) rulesByBytes.clear();
    rulesByBytes.set(key, rules);
  }
  return rules;
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
