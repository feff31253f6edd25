/**
 * The score log's record format: key = player id (UTF-8), value = a binary ScoreEvent.
 */
import { create, fromBinary, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import {
  LeaguePlacementSchema,
  LeagueTierSchema,
  ScoreEventSchema,
  TeamContributionSchema,
  TeamMembershipSchema,
  type BoardPart,
  type ScoreEvent,
} from "@ladder/proto/leaderboard/v1/events_pb";
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

/**
 * A record's value. `main` is the update's board (its fields' `board` and `op`); `also` the more boards
 * it applies to and `leave` the board it removes the player from, each as ingest resolved it.
 *
 * Written by field number with protobuf-es's BinaryWriter, in the order and form its toBinary writes
 * (declaration order, proto3 defaults left out, repeated int64s packed): ingest writes one per update,
 * and toBinary's reflection cost ~12 µs each, this ~1.5. A board's rules are written once per rules object
 * (their bytes kept beside it: a definition's rules are one object per generation).
 * score-event.test.ts checks the bytes equal toBinary's of the same message made by create().
 */
export function encodeScoreEvent(
  fields: UpdateFields & { metadata?: string; reportId?: string },
  ingestedAtMs: number,
  main?: Omit<ResolvedBoard, "board" | "op">,
  more: { also?: ResolvedBoard[]; leave?: ResolvedBoard } = {},
): Buffer {
  const w = recordWriter;
  str(w, 1, fields.board);
  str(w, 2, fields.playerId);
  if (fields.op !== 0) w.tag(3, WireType.Varint).int32(fields.op);
  i64(w, 4, fields.value);
  i64(w, 5, fields.timestampMs);
  str(w, 6, fields.eventId);
  i64(w, 7, BigInt(ingestedAtMs));
  if (main?.rules) w.tag(8, WireType.LengthDelimited).bytes(rulesBytes(main.rules));
  periodOf(w, main, 9, 10);
  for (const b of more.also ?? []) w.tag(11, WireType.LengthDelimited).bytes(partBytes(b));
  if (more.leave) w.tag(12, WireType.LengthDelimited).bytes(partBytes(more.leave));
  windowsOf(w, main, 15, 16, 17);
  str(w, 18, fields.metadata ?? "");
  str(w, 20, fields.reportId ?? "");
  if (fields.columns?.length) {
    w.tag(31, WireType.LengthDelimited).fork();
    for (const v of fields.columns) w.int64(v);
    w.join();
  }
  const bytes = w.finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

// One writer for records and one for their parts, kept: a writer allocates its buffer when made, and
// finish() returns a copy of what was written and starts again (encodeScoreEvent is not re-entered).
const recordWriter = new BinaryWriter();
const partWriter = new BinaryWriter();

/** A resolved board as a BoardPart's bytes (its fields in declaration order). */
function partBytes(b: ResolvedBoard): Uint8Array {
  const w = partWriter;
  str(w, 1, b.board);
  if (b.op !== 0) w.tag(2, WireType.Varint).int32(b.op);
  if (b.rules) w.tag(3, WireType.LengthDelimited).bytes(rulesBytes(b.rules));
  periodOf(w, b, 4, 5);
  windowsOf(w, b, 6, 7, 8);
  return w.finish();
}

type Placed = Omit<ResolvedBoard, "board" | "op"> | undefined;

/** A resolved board's period and its expiry, at field numbers `id` and `expiry` (none without a period). */
function periodOf(w: BinaryWriter, b: Placed, id: number, expiry: number): void {
  if (!b?.period) return;
  str(w, id, b.period.id);
  i64(w, expiry, BigInt(b.period.expireAtMs));
}

/** A resolved board's windows: the periods around its own, their expiries and first times (none without a period). */
function windowsOf(w: BinaryWriter, b: Placed, periods: number, expiries: number, starts: number): void {
  if (!b?.period || !b.windows) return;
  for (const p of b.windows.periods) w.tag(periods, WireType.LengthDelimited).string(p);
  packed(w, expiries, b.windows.windowExpireAtMs);
  packed(w, starts, b.windows.startsMs);
}

function str(w: BinaryWriter, no: number, v: string): void {
  if (v !== "") w.tag(no, WireType.LengthDelimited).string(v);
}

function i64(w: BinaryWriter, no: number, v: bigint): void {
  if (v !== 0n) w.tag(no, WireType.Varint).int64(v);
}

function packed(w: BinaryWriter, no: number, vs: readonly number[]): void {
  if (vs.length === 0) return;
  w.tag(no, WireType.LengthDelimited).fork();
  for (const v of vs) w.int64(BigInt(v));
  w.join();
}

/** Each rules object's bytes, written once. */
const rulesWritten = new WeakMap<BoardRules, Uint8Array>();

function rulesBytes(rules: BoardRules): Uint8Array {
  let bytes = rulesWritten.get(rules);
  if (bytes === undefined) rulesWritten.set(rules, (bytes = toBinary(BoardRulesSchema, rules)));
  return bytes;
}

/** A record's value from its fields: for the records written rarely (the hot path, encodeScoreEvent, writes field by field). */
const recordOf = (init: MessageInitShape<typeof ScoreEventSchema>): Buffer =>
  Buffer.from(toBinary(ScoreEventSchema, create(ScoreEventSchema, init)));

/** A tombstone's value (IngestService.DeletePlayer): erase `playerId` from `boards`, every board when empty. */
export function encodeTombstone(playerId: string, boards: string[], ingestedAtMs: number): Buffer {
  return recordOf({ playerId, erase: true, eraseBoards: boards, ingestedAtMs: BigInt(ingestedAtMs) });
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
    leaguePlace: undefined,
    leagueTier: undefined,
    leagueSettled: false,
    teamMember: undefined,
    teamContribution: undefined,
    columns: [],
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
      case 31:
        int64s(r, wire, e.columns);
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
      case 24:
        e.leaguePlace = fromBinary(LeaguePlacementSchema, r.bytes());
        break;
      case 25:
        e.leagueTier = fromBinary(LeagueTierSchema, r.bytes());
        break;
      case 26:
        e.leagueSettled = r.bool();
        break;
      case 27:
        e.teamMember = fromBinary(TeamMembershipSchema, r.bytes());
        break;
      case 28:
        e.teamContribution = fromBinary(TeamContributionSchema, r.bytes());
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
  return recordOf({ board, rules, deleteBoard: true, ingestedAtMs: BigInt(ingestedAtMs) });
}

/**
 * A period close marker's value (the router's closer), one written to every partition: period
 * `period` of board `board`, generation `generation`, is closed.
 */
export function encodePeriodClose(board: string, generation: bigint, period: string, ingestedAtMs: number): Buffer {
  return recordOf({
    board,
    rules: create(BoardRulesSchema, { generation }),
    period,
    closePeriod: true,
    ingestedAtMs: BigInt(ingestedAtMs),
  });
}

/**
 * A tournament's join (IngestService.JoinTournament), for the tournament's partition; or, `member`,
 * the admitted player's membership, for the player's partition (tournaments.ts). `rules` are the
 * board's, which carry the tournament's limits and end.
 */
export function encodeTournamentJoin(board: string, playerId: string, rules: BoardRules, ingestedAtMs: number, member: boolean): Buffer {
  return recordOf({
    board,
    playerId,
    rules,
    period: "T",
    ingestedAtMs: BigInt(ingestedAtMs),
    ...(member ? { tournamentMember: true } : { joinTournament: true }),
  });
}

/**
 * A league's placement of `playerId` in `period` (ingest, at its first write of the period), for
 * the league's partition (leagues.ts). `rules` are the board's, which carry the cohort size.
 */
export function encodeLeaguePlacement(
  board: string,
  playerId: string,
  rules: BoardRules,
  p: { period: string; expireAtMs: number; previous: string; bracket: number; reportId: string },
  ingestedAtMs: number,
): Buffer {
  return recordOf({
    board,
    playerId,
    rules,
    period: p.period,
    periodExpireAtMs: BigInt(p.expireAtMs),
    reportId: p.reportId,
    ingestedAtMs: BigInt(ingestedAtMs),
    leaguePlace: create(LeaguePlacementSchema, { bracket: p.bracket, previousPeriod: p.previous }),
  });
}

/**
 * A league's tier of `playerId` from the period after `period` on (the closer), or with `tier`
 * undefined the end of the close of `period` (league_settled); for the league's partition.
 */
export function encodeLeagueClose(
  board: string,
  rules: BoardRules,
  period: { id: string; startMs: number },
  ingestedAtMs: number,
  tier?: { playerId: string; tier: number },
): Buffer {
  return recordOf({
    board,
    rules,
    period: period.id,
    ingestedAtMs: BigInt(ingestedAtMs),
    ...(tier
      ? {
          playerId: tier.playerId,
          leagueTier: create(LeagueTierSchema, { tier: tier.tier, periodStartMs: BigInt(period.startMs) }),
        }
      : { leagueSettled: true }),
  });
}

/** A team membership (IngestService.SetTeam) of `playerId` on team board `board`, for the player's partition ("" leaves). */
export function encodeTeamMembership(board: string, playerId: string, rules: BoardRules, team: string, ingestedAtMs: number): Buffer {
  return recordOf({ board, playerId, rules, ingestedAtMs: BigInt(ingestedAtMs), teamMember: create(TeamMembershipSchema, { team }) });
}

/** A member's contribution to a team (a router's team deriver), for the team's partition (teams.ts). */
export function encodeTeamContribution(
  board: string,
  rules: BoardRules,
  c: { playerId: string; team: string; points: number; asOf: bigint; left: boolean },
  atMs: number,
): Buffer {
  return recordOf({
    board,
    playerId: c.playerId,
    rules,
    timestampMs: BigInt(atMs),
    ingestedAtMs: BigInt(atMs),
    teamContribution: create(TeamContributionSchema, { team: c.team, points: BigInt(c.points), asOf: c.asOf, left: c.left }),
  });
}
