/**
 * Turns a record of the score log into an input of the apply script: decode, re-check
 * with ingest's rules, quantize the time to the board's resolution. A record that fails
 * becomes a no-op (op 0) that only advances the partition's offset, and is reported.
 */
import { storedBoardName, type BoardSpec, type BoardSpecs } from "@ladder/model/board-spec";
import { specOfRules } from "@ladder/model/board-definitions";
import { timeIndex } from "@ladder/model/score-encoding";
import { encodeColumns, encodeDeltas, encodeTimePart, type Column } from "@ladder/model/columns";
import { decodeScoreEvent } from "@ladder/model/score-event";
import { Operation, type BoardRules } from "@ladder/proto/leaderboard/v1/common_pb";
import type { ScoreEvent } from "@ladder/proto/leaderboard/v1/events_pb";
import type { PreparedEvent, PreparedWindows } from "./shard-writer.js";
import { APPLY_OP, TIE_MODE, WINDOW_COMBINE } from "../script-codes.js";
import { longestWindow, windowBaseUnits } from "@ladder/model/windows";
import { periodNamed } from "@ladder/model/periods";
import { firstKeys } from "@ladder/model/histogram";
import { boardProblem, loggedPlayerIdProblem, MAX_METADATA_BYTES, updateProblem } from "@ladder/model/validate";
import { moderationAuditLine } from "@ladder/model/moderation";
import { ModerationAction, type Moderation } from "@ladder/proto/leaderboard/v1/moderation_pb";
import { tournamentEvent, tournamentOfRules } from "./prepare-tournament.js";
import { isLeagueRecord, leagueEvent } from "./prepare-league.js";
import { parseCohortId, splitCohortPeriod } from "@ladder/model/leagues";

export interface Prepared {
  /**
   * What to apply, in order: the record's board, then the boards it also applies to, then the
   * board it leaves (op 5, remove). Every part has the record's offset; the parts after the first
   * are marked `part`, and the apply script applies them in the same call as the first, or none.
   */
  events: PreparedEvent[];
  /** Why the record could not be applied; it is then one no-op. */
  problem?: string;
}

/** A record that only advances its partition's offset. */
export function noopEvent(offset: bigint): PreparedEvent {
  return {
    offset,
    part: false,
    board: "",
    playerId: "",
    op: APPLY_OP.NONE,
    value: 0,
    timeIdx: 0,
    maxPoints: 0,
    minPoints: 0,
    timeUnits: 1,
    ttlSeconds: 0,
    lowerIsBetter: false,
    expireAtMs: 0,
    eventId: "",
    ingestedAtMs: 0,
    metadata: "",
  };
}

const noop = (offset: bigint, problem: string): Prepared => ({ problem, events: [noopEvent(offset)] });

/** The apply script's op that removes the player from a board (a board left: ScoreUpdate.leave_board). */
export const REMOVE_OP = APPLY_OP.REMOVE;

/**
 * `shardPartitions`: how many partitions the applying shard owns (a board deletion's keys go once
 * the markers of all of them are applied); a deletion marker without it is not applied.
 */
export function prepareEvent(value: Buffer | null, offset: bigint, boards: BoardSpecs, shardPartitions?: number): Prepared {
  try {
    return prepare(value, offset, boards, shardPartitions);
  } catch (err) {
    return noop(offset, `record could not be prepared: ${(err as Error).message}`);
  }
}

interface Target {
  board: string;
  op: Operation;
  rules?: BoardRules | undefined;
  period: string;
  periodExpireAtMs: bigint;
  windowPeriods: string[];
  windowPeriodStartsMs: bigint[];
  windowExpireAtMs: bigint[];
}

function targetOf(t: Target, leaving: boolean): Target & { leaving: boolean } {
  return {
    board: t.board,
    op: t.op,
    rules: t.rules,
    period: t.period,
    periodExpireAtMs: t.periodExpireAtMs,
    windowPeriods: t.windowPeriods,
    windowPeriodStartsMs: t.windowPeriodStartsMs,
    windowExpireAtMs: t.windowExpireAtMs,
    leaving,
  };
}

function prepare(value: Buffer | null, offset: bigint, boards: BoardSpecs, shardPartitions: number | undefined): Prepared {
  if (!value) return noop(offset, "record has no value");
  let e;
  try {
    e = decodeScoreEvent(value);
  } catch (err) {
    return noop(offset, `record is not a ScoreEvent: ${(err as Error).message}`);
  }
  if (e.erase) return { events: tombstone(e.playerId, e.eraseBoards, offset, Number(e.ingestedAtMs)) };
  if (e.moderation) return moderation(e.moderation, e.rules, offset, boards);
  if (e.teamMember || e.teamContribution) {
    const event = teamEvent(e, offset);
    return typeof event === "string" ? noop(offset, event) : { events: [event] };
  }
  if (isLeagueRecord(e)) {
    const event = leagueEvent(e, offset, noopEvent(offset));
    return typeof event === "string" ? noop(offset, event) : { events: [event] };
  }
  if (e.joinTournament || e.tournamentMember) {
    const event = tournamentEvent(e, offset, noopEvent(offset));
    return typeof event === "string" ? noop(offset, event) : { events: [event] };
  }
  if (e.deleteBoard) {
    if (boardProblem(e.board) || !e.rules || e.rules.generation <= 0n)
      return noop(offset, "board deletion marker names no defined board and generation");
    if (!shardPartitions) return noop(offset, "board deletion marker: the shard's partition count is not known here");
    return {
      events: [
        {
          ...noopEvent(offset),
          board: storedBoardName(e.board, { generation: Number(e.rules.generation) }),
          op: DELETE_BOARD_OP,
          value: shardPartitions,
          ingestedAtMs: Number(e.ingestedAtMs),
        },
      ],
    };
  }
  if (e.closePeriod) {
    if (boardProblem(e.board) || !e.rules || e.rules.generation <= 0n || e.period === "")
      return noop(offset, "period close marker names no defined board, generation and period");
    return {
      events: [
        {
          ...noopEvent(offset),
          board: storedBoardName(e.board, { generation: Number(e.rules.generation) }, e.period),
          op: CLOSE_PERIOD_OP,
          ingestedAtMs: Number(e.ingestedAtMs),
        },
      ],
    };
  }
  // Fields are picked, never spread: a decoded message keeps its properties in dictionary mode,
  // where a spread of one cost ~9 us (more than the rest of this function; seeding profile, 2026-12-03).
  const targets: Array<Target & { leaving: boolean }> = [targetOf(e, false)];
  for (const a of e.also) targets.push(targetOf(a, false));
  if (e.leave) targets.push(targetOf(e.leave, true));
  const events: PreparedEvent[] = [];
  for (const t of targets) {
    // a defined board's record carries its rules (board-definitions.ts): applied as written
    let spec: BoardSpec;
    if (t.rules) {
      const fromRules = specOfRecord(t.board, t.rules);
      if (typeof fromRules === "string") return noop(offset, fromRules);
      spec = fromRules;
    } else spec = boards.forBoard(t.board);
    if (!t.leaving) {
      // Time in the past is always fine here: the skew bound applies at ingest, not on replay.
      const problem = updateProblem(
        {
          board: t.board,
          playerId: e.playerId,
          op: t.op,
          value: e.value,
          timestampMs: e.timestampMs,
          eventId: e.eventId,
          columns: e.columns,
        },
        spec,
        Number.MAX_SAFE_INTEGER,
        0,
        loggedPlayerIdProblem, // what ingest accepted when the record was written
      );
      if (problem) return noop(offset, problem);
    } else if (!e.playerId) return noop(offset, "player_id is empty");
    if (Buffer.byteLength(e.metadata, "utf8") > MAX_METADATA_BYTES)
      return noop(offset, `metadata is longer than ${MAX_METADATA_BYTES} bytes`);
    // a board with periods: the record names the period (found by ingest) and when it expires
    if ((spec.period.kind !== "none") !== (t.period !== ""))
      return noop(
        offset,
        t.period
          ? `record names period ${t.period} of board "${t.board}", which has none`
          : `record names no period of board "${t.board}", which has periods`,
      );
    // a league's scores go to its cohorts ("<period>/<cohort>"), no other board's
    const { cohort } = splitCohortPeriod(t.period);
    if ((spec.league !== undefined) !== (cohort !== ""))
      return noop(
        offset,
        spec.league
          ? `record names no cohort of league "${t.board}" (period ${t.period})`
          : `record names cohort period ${t.period} of board "${t.board}", which is no league`,
      );
    if (spec.team) return noop(offset, `board "${t.board}" is a team board: its entries are kept from its members' points`);
    const badCohort = spec.league && parseCohortId(spec.league, cohort);
    if (typeof badCohort === "string") return noop(offset, badCohort);
    const windows = windowsOf(t, spec);
    if (typeof windows === "string") return noop(offset, windows);
    const decrement = t.op === Operation.DECREMENT;
    const histogram = histogramKeys(spec, spec);
    const tournament = t.leaving ? undefined : tournamentOfRules(t.rules);
    const timeIdx = timeIndex(spec, Number(e.timestampMs));
    // one shape for every event (the optional fields assigned after): an object literal with spreads
    // of optional parts costs a runtime copy per spread, half of this function's time
    const ev: PreparedEvent = {
      offset,
      part: events.length > 0,
      board: storedBoardName(t.board, spec, t.period),
      playerId: e.playerId,
      op: t.leaving ? REMOVE_OP : decrement ? APPLY_OP.INCREMENT : t.op,
      value: t.leaving ? 0 : decrement ? -Number(e.value) : Number(e.value),
      timeIdx,
      maxPoints: spec.maxPoints,
      minPoints: spec.minPoints,
      timeUnits: spec.timeUnits,
      ttlSeconds: spec.ttlSeconds,
      lowerIsBetter: spec.lowerIsBetter,
      expireAtMs: Number(t.periodExpireAtMs),
      eventId: e.eventId,
      ingestedAtMs: Number(e.ingestedAtMs),
      metadata: t.leaving ? "" : e.metadata,
      reportId: t.leaving ? "" : e.reportId,
    };
    if (spec.columns) {
      const how = t.leaving ? "leave" : decrement ? "decrement" : t.op === Operation.INCREMENT ? "add" : "put";
      const { cols, ctime } = columnFields(spec, spec.columns, how, e.columns, timeIdx);
      ev.cols = cols;
      if (ctime !== undefined) ev.ctime = ctime;
    }
    if (tournament) ev.tournament = tournament;
    if (windows) ev.windows = windows;
    if (histogram) ev.histogram = histogram;
    if (spec.retention.keepTop || spec.retention.expireInactiveMs) {
      ev.retain = (spec.retention.keepTop ? 1 : 0) | (spec.retention.expireInactiveMs ? 2 : 0);
      ev.atMs = Number(e.timestampMs);
    }
    events.push(ev);
  }
  return { events };
}

/**
 * A tombstone's events (op 6, ERASE): one per board named, whose key is the board's name without
 * a definition and the prefix of its defined generations and periods ("<name>#"); or, for every
 * board, one whose key is the boards' common prefix, marked by value 1.
 */
function tombstone(playerId: string, boards: readonly string[], offset: bigint, ingestedAtMs: number): PreparedEvent[] {
  if (loggedPlayerIdProblem(playerId)) return [noopEvent(offset)];
  const erase = (board: string, all: boolean, part: boolean): PreparedEvent => ({
    ...noopEvent(offset),
    part,
    board,
    playerId,
    op: ERASE_OP,
    value: all ? 1 : 0,
    ingestedAtMs,
  });
  return boards.length === 0 ? [erase("", true, false)] : boards.map((b, i) => erase(b, false, i > 0));
}

/**
 * A moderation action's event (apply-moderation.lua, apply-removals.lua). HIDE, UNHIDE,
 * DELETE_ENTRY: its board's key is the board's name (the prefix of its generations, periods and
 * windows) or, for every board, the boards' common prefix, marked by value 1. WIPE: the key of
 * the board's period as the record's rules (or the configuration) name it; value: the log's
 * partitions.
 */
function moderation(m: Moderation, rules: BoardRules | undefined, offset: bigint, boards: BoardSpecs): Prepared {
  const op = MODERATION_OPS.get(m.action);
  if (op === undefined) return noop(offset, `moderation action ${m.action} is not one this shard applies`);
  const badBoard = m.board === "" ? undefined : boardProblem(m.board);
  if (badBoard) return noop(offset, `moderation: ${badBoard}`);
  const audit = moderationAuditLine(m, offset);
  if (op === WIPE_OP || op === HIDE_ABOVE_OP || op === TRIM_OP || op === EXPIRE_OP) {
    if (m.board === "" || m.partitions === 0)
      return noop(offset, "moderation: a wipe, hide-above, trim or expiry names no board or no partition count");
    let spec: BoardSpec;
    if (rules) {
      const fromRules = specOfRecord(m.board, rules);
      if (typeof fromRules === "string") return noop(offset, fromRules);
      spec = fromRules;
    } else spec = boards.forBoard(m.board);
    if (op === HIDE_ABOVE_OP) {
      const ceiling = Number(m.ceiling);
      if (spec.lowerIsBetter || ceiling < spec.minPoints || ceiling > spec.maxPoints)
        return noop(offset, `moderation: ceiling ${ceiling} is not one of board "${m.board}"`);
      // points above the ceiling: a points index below maxPoints - ceiling (score-encoding.ts)
      const limit = (spec.maxPoints - ceiling) * spec.timeUnits;
      return { events: [{ ...noopEvent(offset), board: m.board, op, value: m.partitions, limit, ingestedAtMs: Number(m.atMs), audit }] };
    }
    if ((spec.period.kind !== "none") !== (m.period !== ""))
      return noop(offset, `moderation: a wipe, trim or expiry of "${m.board}" names no period of it`);
    const board = storedBoardName(m.board, spec, m.period);
    const base = { ...noopEvent(offset), board, op, value: m.partitions, ingestedAtMs: Number(m.atMs), audit };
    if (op === WIPE_OP) return { events: [base] };
    const period = m.period === "" ? undefined : periodNamed(spec.period, m.period);
    if (m.period !== "" && !period) return noop(offset, `moderation: "${m.period}" is no period of board "${m.board}"`);
    const expireAtMs = period?.expireAtMs ?? 0;
    if (op === EXPIRE_OP) return { events: [{ ...base, limit: Number(m.cutoffMs), expireAtMs }] };
    if (loggedPlayerIdProblem(m.floorPlayer)) return noop(offset, "moderation: a trim's floor names no valid player");
    return { events: [{ ...base, limit: Number(m.floorKey), floor: m.floorPlayer, expireAtMs }] };
  }
  const badPlayer = loggedPlayerIdProblem(m.playerId);
  if (badPlayer) return noop(offset, `moderation: ${badPlayer}`);
  if (op === DELETE_ENTRY_OP && m.board === "") return noop(offset, "moderation: an entry's deletion names no board");
  return {
    events: [
      {
        ...noopEvent(offset),
        board: m.board,
        playerId: m.playerId,
        op,
        value: m.board === "" ? 1 : 0,
        ingestedAtMs: Number(m.atMs),
        audit,
      },
    ],
  };
}

/** The apply script's ops of moderation actions (AdminService.HidePlayer, UnhidePlayer, DeleteEntry, WipeBoard). */
export const HIDE_OP = APPLY_OP.HIDE;
export const UNHIDE_OP = APPLY_OP.UNHIDE;
export const DELETE_ENTRY_OP = APPLY_OP.DELETE_ENTRY;
export const WIPE_OP = APPLY_OP.WIPE;
export const HIDE_ABOVE_OP = APPLY_OP.HIDE_ABOVE;
export const TRIM_OP = APPLY_OP.TRIM;
export const EXPIRE_OP = APPLY_OP.EXPIRE;
const MODERATION_OPS = new Map<ModerationAction, number>([
  [ModerationAction.HIDE, HIDE_OP],
  [ModerationAction.UNHIDE, UNHIDE_OP],
  [ModerationAction.DELETE_ENTRY, DELETE_ENTRY_OP],
  [ModerationAction.WIPE, WIPE_OP],
  [ModerationAction.HIDE_ABOVE, HIDE_ABOVE_OP],
  [ModerationAction.TRIM, TRIM_OP],
  [ModerationAction.EXPIRE, EXPIRE_OP],
]);

/** The apply script's op that erases the player (a tombstone: IngestService.DeletePlayer). */
export const ERASE_OP = APPLY_OP.ERASE;

/** The apply script's op of a period close marker (the router's closer). */
export const CLOSE_PERIOD_OP = APPLY_OP.CLOSE_PERIOD;

/** The apply script's op of a board deletion marker (AdminService.DeleteBoard). */
export const DELETE_BOARD_OP = APPLY_OP.DELETE_BOARD;

/** Specs of the rules records carry, by board and generation: a board's rules never change within a generation (board-definitions.ts). */
const fromRecords = new Map<string, BoardSpec | string>();

function specOfRecord(board: string, rules: BoardRules): BoardSpec | string {
  const id = `${board}#${rules.generation}`;
  let spec = fromRecords.get(id);
  if (spec === undefined) {
    const made = specOfRules(board, rules);
    spec = made.spec ?? `record's board rules are unusable: ${made.problems.join("; ")}`;
    if (fromRecords.size >= 10_000) fromRecords.clear();
    fromRecords.set(id, spec);
  }
  return spec;
}

const TIES = { earliest: TIE_MODE.EARLIEST, latest: TIE_MODE.LATEST, id: TIE_MODE.ID } as const;

/**
 * What the apply script needs to recompute the windows a write touches (windows.ts): the stored
 * names of the periods the record lists around its own, and per window the keys ending in the
 * record's period and the n - 1 after it, their expiries and (SUM) their first time units. Undefined
 * on a board without windows; a string when the record does not list what its board's windows need.
 */
function windowsOf(t: Target, spec: BoardSpec): PreparedWindows | undefined | string {
  const n = longestWindow(spec);
  if (n === 0) return undefined;
  const around = 2 * n - 1;
  if (
    t.windowPeriods.length !== around ||
    t.windowPeriodStartsMs.length !== around ||
    t.windowExpireAtMs.length !== n ||
    t.windowPeriods[n - 1] !== t.period
  )
    return `record of board "${t.board}" does not list the ${around} periods around ${t.period} its windows need`;
  // the same for every record of this board listing the same periods: made once, shared (never changed in
  // place); found by the record's period, then checked against everything the record lists (no string built)
  let made = windowsMade.get(spec);
  if (made === undefined) windowsMade.set(spec, (made = new Map()));
  const key = `${t.board}\n${t.period}`;
  const had = made.get(key);
  if (had && sameLists(had, t)) return had.windows;
  if (made.size >= 1000) made.clear();
  const windows = windowsFor(t, spec, n);
  made.set(key, { periods: t.windowPeriods, starts: t.windowPeriodStartsMs, expires: t.windowExpireAtMs, windows });
  return windows;
}

/** Windows made, per board spec and board and period, with the lists they were made from (windowsOf). */
const windowsMade = new WeakMap<BoardSpec, Map<string, WindowsMade>>();

interface WindowsMade {
  periods: readonly string[];
  starts: readonly bigint[];
  expires: readonly bigint[];
  windows: PreparedWindows;
}

function sameLists(m: WindowsMade, t: Target): boolean {
  return same(m.periods, t.windowPeriods) && same(m.starts, t.windowPeriodStartsMs) && same(m.expires, t.windowExpireAtMs);
}

function same<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function windowsFor(t: Target, spec: BoardSpec, n: number): PreparedWindows {
  return {
    periodBoards: t.windowPeriods.map((p) => storedBoardName(t.board, spec, p)),
    tie: TIES[spec.tie],
    windows: spec.windows.map((w) => {
      const ending = Array.from({ length: w.periods }, (_, j) => j); // the windows ending in P0 .. P(n-1)
      return {
        combine: w.combine === "sum" ? WINDOW_COMBINE.SUM : WINDOW_COMBINE.BEST,
        periods: w.periods,
        maxPoints: w.encoding.maxPoints,
        minPoints: w.encoding.minPoints,
        timeUnits: w.encoding.timeUnits,
        boards: ending.map((j) => storedBoardName(t.board, spec, t.windowPeriods[n - 1 + j]!, w.name)),
        // the first period of the window ending in P(j) is P(j - periods + 1)
        baseUnits: ending.map((j) => windowBaseUnits(spec, Number(t.windowPeriodStartsMs[n - 1 + j - w.periods + 1]!))),
        expireAtMs: ending.map((j) => Number(t.windowExpireAtMs[j]!)),
        ...(spec.histogram.length ? { histogram: histogramKeys(spec, w.encoding)! } : {}),
      };
    }),
  };
}

/** The sort keys a board's histogram buckets start at in `encoding` (the board's, or a window's), once per encoding. */
const histogramsOf = new WeakMap<BoardSpec, readonly number[]>();
function histogramKeys(board: BoardSpec, encoding: BoardSpec): readonly number[] | undefined {
  if (board.histogram.length === 0) return undefined;
  let keys = histogramsOf.get(encoding);
  if (keys === undefined) histogramsOf.set(encoding, (keys = Object.freeze(firstKeys(encoding, board.histogram))));
  return keys;
}

/**
 * A team board's record as the apply script takes it (apply-teams.lua; the rules: model/src/teams.ts):
 * a membership, keyed by the team board's key on the player's partition, or a member's contribution,
 * keyed likewise on the team's partition with the team board's encoding (the team's entry is set
 * from it), or why the record cannot be applied.
 */
function teamEvent(e: ScoreEvent, offset: bigint): PreparedEvent | string {
  if (boardProblem(e.board) || !e.rules?.team || e.rules.generation <= 0n) return "team record names no defined team board";
  const badPlayer = loggedPlayerIdProblem(e.playerId);
  if (badPlayer) return `team record: ${badPlayer}`;
  const spec = specOfRecord(e.board, e.rules);
  if (typeof spec === "string") return spec;
  const base = { ...noopEvent(offset), board: storedBoardName(e.board, spec), playerId: e.playerId, ingestedAtMs: Number(e.ingestedAtMs) };
  if (e.teamMember) {
    const team = e.teamMember.team;
    if (team !== "" && loggedPlayerIdProblem(team)) return `team membership: team "${team}" is no team id`;
    return { ...base, op: APPLY_OP.TEAM_MEMBER, ...(team ? { team } : {}) };
  }
  const c = e.teamContribution!;
  if (loggedPlayerIdProblem(c.team)) return `team contribution: team "${c.team}" is no team id`;
  if (c.asOf < 0n || c.asOf >= 2n ** 53n) return `team contribution: as_of ${c.asOf} is no offset`;
  const points = Number(c.points);
  if (!Number.isSafeInteger(points)) return `team contribution: points ${c.points} are not a safe integer`;
  const histogram = histogramKeys(spec, spec);
  return {
    ...base,
    ...(histogram ? { histogram } : {}),
    op: APPLY_OP.CONTRIBUTION,
    team: c.team,
    value: points,
    limit: Number(c.asOf) + 1,
    ...(c.left ? { left: true } : {}),
    ...(spec.team!.bestK ? { best: spec.team!.bestK } : {}),
    timeIdx: timeIndex(spec, Math.min(Math.max(Number(e.timestampMs), spec.epochMs), spec.horizonMs - 1)),
    maxPoints: spec.maxPoints,
    minPoints: spec.minPoints,
    timeUnits: spec.timeUnits,
    lowerIsBetter: spec.lowerIsBetter,
  };
}

/** What a score event of a board with columns carries (PreparedEvent.cols, ctime): its values as the apply script takes them. */
function columnFields(
  spec: BoardSpec,
  columns: readonly Column[],
  how: "leave" | "decrement" | "add" | "put",
  values: readonly bigint[],
  timeIdx: number,
): Pick<PreparedEvent, "cols" | "ctime"> {
  if (how === "leave") return { cols: "-" };
  const ctime = spec.tie === "id" ? "" : encodeTimePart("earliest", timeIdx); // timeIdx is already folded by the tie rule
  if (how === "put") return { cols: encodeColumns(columns, values), ctime };
  return { cols: encodeDeltas(columns, how === "decrement" ? values.map((v) => -v) : values), ctime };
}
