/**
 * AdminService's moderation rpcs: hide a player on a board or on every board and lift it, delete
 * a player's entry, wipe a board's period.
 *
 * An action is one record of the score log (model/src/moderation.ts), keyed and partitioned by
 * the player like its scores (a wipe: one record in every partition), carrying who (the admin token's grant), when and why: the player's
 * shard applies it in log order with its scores (store/src/lua/includes/apply-moderation.lua),
 * a rebuild replays it, and the shard keeps its audit line, which ListModerationActions reads
 * from every shard. Nothing here writes a shard.
 */
import { create } from "@bufbuild/protobuf";
import type { RecordProducer } from "@ladder/log/record-producer";
import type { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { ModerationAction, ModerationSchema, type Moderation } from "@ladder/proto/leaderboard/v1/moderation_pb";
import type { BoardResolver, BoardSpec } from "@ladder/model/board-spec";
import type { BoardRules } from "@ladder/proto/leaderboard/v1/common_pb";
import { periodAt, periodNamed, type PeriodRule } from "@ladder/model/periods";
import { cohortPeriod, parseCohortId, splitCohortPeriod, type League } from "@ladder/model/leagues";
import { encodeToken } from "@ladder/model/consistency-token";
import { encodeModeration, parseAuditLine, reasonProblem } from "@ladder/model/moderation";
import { slotOf } from "@ladder/model/placement";
import { Code, LadderError, invalidArgument, notFound } from "@ladder/model/errors";
import { boardProblem, playerIdProblem } from "@ladder/model/validate";
import type { CallContext, ImplOf } from "@ladder/platform/grpc-adapter";
import type { Logger } from "@ladder/platform/logger";
import type { Metadata } from "@grpc/grpc-js";

type ModerationRpcs = Pick<
  ImplOf<typeof AdminService>,
  "hidePlayer" | "unhidePlayer" | "deleteEntry" | "wipeBoard" | "listModerationActions" | "hideAboveCeiling"
>;

/** ListModerationActions: the most lines one call lists, and how many when the request says 0. */
export const MAX_AUDIT_LIMIT = 1000;
const DEFAULT_AUDIT_LIMIT = 100;

export interface ModerationDeps {
  /** The score log and its partitions (the cluster's slots). */
  scoreTopic: string;
  numSlots: number;
  /** A producer (connected on first use). */
  producer: () => Promise<RecordProducer>;
  /** The boards known (a board must be defined when boards need a definition). */
  boards: BoardResolver;
  /** A defined board's rules (a wipe's records carry them); undefined for a board without a definition. */
  rulesOf(board: string): BoardRules | undefined;
  /** The team boards whose source is `board` (model/src/teams.ts): a board-wide action on it is refused. */
  teamBoardsOf(board: string): string[];
  /** Every shard's audit lines of a player and/or a board ('' any), at most `limit` per shard, newest first per shard. */
  auditLines(playerId: string, board: string, limit: number, deadlineMs: number): Promise<string[]>;
  /** The name of the caller's grant. */
  callerOf(metadata: Metadata): string;
  log: Logger;
}

interface ActionRequest {
  playerId: string;
  board: string;
  reason: string;
}

export function moderationService(d: ModerationDeps): ModerationRpcs {
  const specOf = (board: string): BoardSpec => {
    const badBoard = boardProblem(board);
    if (badBoard) throw invalidArgument(badBoard);
    const spec = d.boards.forBoard(board);
    if (!spec) throw notFound(`board "${board}" is not defined`);
    return spec;
  };
  /**
   * A team board's entries follow its members, and a team's points its members' entries on the
   * source (model/src/teams.ts): an action over a whole team board, or over a whole source, would
   * leave them behind, so it is refused (a player's entries are hidden or deleted one by one).
   */
  const notBoardWideOnTeams = (board: string, spec: BoardSpec, what: string): void => {
    if (spec.team)
      throw new LadderError(
        Code.FAILED_PRECONDITION,
        `board "${board}" is a team board: its entries are kept from its members' points; cannot ${what}`,
      );
    const fed = d.teamBoardsOf(board);
    if (fed.length)
      throw new LadderError(
        Code.FAILED_PRECONDITION,
        `board "${board}" feeds team board${fed.length > 1 ? "s" : ""} ${fed.map((b) => `"${b}"`).join(", ")}: cannot ${what} without leaving their teams' points behind (DeleteEntry removes one player's entry)`,
      );
  };
  const checkReason = (reason: string) => {
    const badReason = reasonProblem(reason);
    if (badReason) throw invalidArgument(badReason);
  };
  /** Writes action `m` on `board` to every partition (with the board's rules, as a score record carries them). */
  const everyPartition = async (m: Moderation, board: string) => {
    const value = encodeModeration(m, d.rulesOf(board));
    const sent = await (await d.producer()).send(
      d.scoreTopic,
      Array.from({ length: d.numSlots }, (_, partition) => ({ key: board, value, partition })),
    );
    const markers = new Map(sent.map((w) => [w.partition, BigInt(w.baseOffset)] as const));
    d.log.info({ action: ModerationAction[m.action], board, period: m.period, by: m.by, partitions: markers.size }, "moderation written");
    return {
      markers: [...markers].sort(([a], [b]) => a - b).map(([partition, offset]) => ({ partition, offset })),
      consistencyToken: encodeToken(markers),
    };
  };
  const write = async (action: ModerationAction, req: ActionRequest, ctx: CallContext) => {
    const badPlayer = playerIdProblem(req.playerId);
    if (badPlayer) throw invalidArgument(badPlayer);
    if (req.board !== "") specOf(req.board);
    else if (action === ModerationAction.DELETE_ENTRY) throw invalidArgument("board is empty: an entry is deleted from one board");
    checkReason(req.reason);
    const m: Moderation = create(ModerationSchema, {
      action,
      playerId: req.playerId,
      board: req.board,
      by: d.callerOf(ctx.metadata),
      reason: req.reason,
      atMs: BigInt(Date.now()),
    });
    const partition = slotOf(req.playerId, d.numSlots);
    const [sent] = await (await d.producer()).send(d.scoreTopic, [{ key: req.playerId, value: encodeModeration(m), partition }]);
    const offset = BigInt(sent!.baseOffset);
    d.log.info(
      { action: ModerationAction[action], player: req.playerId, board: req.board, by: m.by, partition, offset: String(offset) },
      "moderation written",
    );
    return { action: m, offset: { partition, offset }, consistencyToken: encodeToken(new Map([[partition, offset]])) };
  };
  return {
    hidePlayer: (req, ctx) => write(ModerationAction.HIDE, req, ctx),
    unhidePlayer: (req, ctx) => write(ModerationAction.UNHIDE, req, ctx),
    deleteEntry: (req, ctx) => write(ModerationAction.DELETE_ENTRY, req, ctx),

    async listModerationActions(req, ctx) {
      if (req.playerId !== "") {
        const badPlayer = playerIdProblem(req.playerId);
        if (badPlayer) throw invalidArgument(badPlayer);
      }
      if (req.board !== "") {
        const badBoard = boardProblem(req.board);
        if (badBoard) throw invalidArgument(badBoard);
      }
      if (req.limit > MAX_AUDIT_LIMIT) throw invalidArgument(`limit must be at most ${MAX_AUDIT_LIMIT}, got ${req.limit}`);
      const limit = req.limit || DEFAULT_AUDIT_LIMIT;
      // a line twice: the shard that lost a player's slot in a move keeps its lines, the one that gained it replays them
      const lines = new Set(await d.auditLines(req.playerId, req.board, limit, ctx.deadlineMs));
      const actions = [...lines].flatMap((line) => {
        const parsed = parseAuditLine(line);
        if (!parsed) return [];
        const partition = parsed.action.playerId ? slotOf(parsed.action.playerId, d.numSlots) : 0;
        return [{ action: parsed.action, record: { partition, offset: parsed.offset } }];
      });
      actions.sort(
        (a, b) =>
          Number(b.action.atMs - a.action.atMs) || b.record.partition - a.record.partition || Number(b.record.offset - a.record.offset),
      );
      return { actions: actions.slice(0, limit) };
    },

    async hideAboveCeiling(req, ctx) {
      const spec = specOf(req.board);
      checkReason(req.reason);
      notBoardWideOnTeams(req.board, spec, "hide its entries above the ceiling");
      if (spec.scoreCeiling === 0)
        throw new LadderError(Code.FAILED_PRECONDITION, `board "${req.board}" has no score ceiling (UpdateBoard sets score_ceiling)`);
      const m: Moderation = create(ModerationSchema, {
        action: ModerationAction.HIDE_ABOVE,
        board: req.board,
        by: d.callerOf(ctx.metadata),
        reason: req.reason,
        atMs: BigInt(Date.now()),
        partitions: d.numSlots,
        ceiling: BigInt(spec.scoreCeiling),
      });
      const { markers, consistencyToken } = await everyPartition(m, req.board);
      return { action: m, markers, consistencyToken };
    },

    async wipeBoard(req, ctx) {
      const spec = specOf(req.board);
      checkReason(req.reason);
      notBoardWideOnTeams(req.board, spec, "wipe it");
      if (spec.windows.length > 0)
        throw new LadderError(
          Code.FAILED_PRECONDITION,
          `board "${req.board}" has windows (${spec.windows.map((w) => w.name).join(", ")}): a wipe would leave the wiped scores in them`,
        );
      let period = "";
      if (spec.period.kind === "none") {
        if (req.period !== "") throw invalidArgument(`period: board "${req.board}" has no periods, got "${req.period}"`);
      } else if (spec.league) period = leagueCohortToWipe(req.board, spec.league, spec.period, req.period);
      else if (req.period === "") period = periodAt(spec.period, Date.now()).id;
      else if (periodNamed(spec.period, req.period)) period = req.period;
      else throw notFound(`period "${req.period}" is not a period of board "${req.board}"`);
      const m: Moderation = create(ModerationSchema, {
        action: ModerationAction.WIPE,
        board: req.board,
        period,
        by: d.callerOf(ctx.metadata),
        reason: req.reason,
        atMs: BigInt(Date.now()),
        partitions: d.numSlots,
      });
      const { markers, consistencyToken } = await everyPartition(m, req.board);
      return { action: m, markers, consistencyToken };
    },
  };
}

/** The cohort period a wipe of league `board` names ("<period>/<cohort>", model/src/leagues.ts): a league is wiped a cohort at a time. */
function leagueCohortToWipe(board: string, league: League, rule: PeriodRule, named: string): string {
  const { period, cohort } = splitCohortPeriod(named);
  const c = cohort === "" ? "it names no cohort" : parseCohortId(league, cohort);
  if (typeof c === "string")
    throw invalidArgument(`period: board "${board}" is a league: a wipe names one cohort, "<period>/<cohort>" (${c})`);
  const p = period === "" ? periodAt(rule, Date.now()) : periodNamed(rule, period);
  if (!p) throw notFound(`period "${period}" is not a period of board "${board}"`);
  return cohortPeriod(p.id, cohort);
}
