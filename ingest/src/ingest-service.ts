/**
 * IngestService handlers: validate the whole batch, then write it to the score log.
 * The first invalid update rejects the batch (INVALID_ARGUMENT naming its index and the
 * reason) before anything is queued, so a rejected batch writes nothing. A valid batch then passes
 * the write quotas (write-quotas.ts) whole or is refused whole (RESOURCE_EXHAUSTED), and waits
 * while a shard it writes to is past the lag bound (lag-admission.ts), refused whole if it stays so.
 */
import type { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import type { ScoreUpdate } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import type { BoardCatalog } from "@ladder/model/board-definitions";
import type { Config } from "@ladder/platform/config";
import type { CallContext, ImplOf } from "@ladder/platform/grpc-adapter";
import { encodeToken } from "@ladder/model/consistency-token";
import { Code, invalidArgument, LadderError, notFound } from "@ladder/model/errors";
import { slotOf } from "@ladder/model/placement";
import { periodAt, type Period } from "@ladder/model/periods";
import { seasonGapMessage } from "@ladder/model/seasons";
import { CLOSE_SETTLE_MS, closedProblem, closeTimeOf } from "@ladder/model/closes";
import { encodeScoreEvent, encodeTeamMembership, encodeTombstone, type ResolvedBoard } from "@ladder/model/score-event";
import { boardProblem, metadataProblem, playerIdProblem, resolveOp, teamIdProblem, updateProblem } from "@ladder/model/validate";
import { windowPlan } from "@ladder/model/windows";
import type { GroupCommitProducer, OutRecord } from "./group-commit-producer.js";
import type { WriteQuotas } from "./write-quotas.js";
import type { LagAdmission } from "./lag-admission.js";
import { MAX_REPORTED, newReportId, type RankReporter, type ReportedUpdate } from "./rank-reports.js";
import type { TournamentDesk, TournamentWrite } from "./tournament-desk.js";
import { LeagueDesk, type BatchCohorts } from "./league-desk.js";
import { cohortPeriod } from "@ladder/model/leagues";
import { tournamentTimeProblem } from "@ladder/model/tournaments";

/** How long a batch may wait for the log when the caller set no deadline. */
const DEFAULT_WRITE_TIMEOUT_MS = 10_000; // 10 s

/** The boards ingest knows: the latest catalog of the definitions it follows. */
export interface Boards {
  readonly catalog: BoardCatalog;
}

export function ingestService(
  config: Config,
  producer: GroupCommitProducer,
  boards: Boards,
  clock: () => number = Date.now,
  reporter?: RankReporter,
  quotas?: { quotas: WriteQuotas; caller: (ctx: CallContext) => string },
  lag?: LagAdmission,
  desk?: TournamentDesk,
  leagues?: LeagueDesk,
): ImplOf<typeof IngestService> {
  return {
    async submitScores(req, ctx) {
      const n = req.updates.length;
      if (n === 0 || n > config.maxBatch) throw invalidArgument(`updates: must hold 1..${config.maxBatch} updates, got ${n}`);
      if (req.reportRanks && n > MAX_REPORTED)
        throw invalidArgument(`report_ranks: takes batches of at most ${MAX_REPORTED} updates (MAX_REPORTED), got ${n}`);
      if (req.reportRanks && !reporter) throw new LadderError(Code.FAILED_PRECONDITION, "this ingest reports no ranks");
      const now = clock();
      const catalog = boards.catalog; // one catalog for the whole batch
      const reported: ReportedUpdate[] = [];
      const tournament = tournamentWriteOf(req.updates, catalog, config.numSlots);
      if (tournament && !desk) throw new LadderError(Code.FAILED_PRECONDITION, "this ingest takes no tournament writes");
      let cohorts: BatchCohorts | undefined;
      let admitted = false;
      if (LeagueDesk.writesLeague(req.updates, catalog)) {
        if (!leagues) throw new LadderError(Code.FAILED_PRECONDITION, "this ingest takes no league writes");
        const plan = leagues.plan(req.updates, catalog, now);
        if (plan.known) cohorts = plan.known;
        else {
          // the whole batch valid and within its quotas before any player is placed (leagues.ts)
          req.updates.forEach((u, i) => resolveUpdate(u, i, now, config, catalog, VALIDATING));
          quotas?.quotas.admit(req.updates, quotas.caller(ctx), catalog);
          admitted = true;
          cohorts = await plan.place(Math.min(ctx.deadlineMs, Date.now() + DEFAULT_WRITE_TIMEOUT_MS));
        }
      }
      let closesAtMs = Number.POSITIVE_INFINITY; // the first close time of a period the batch writes
      const records = req.updates.map((u, i) => {
        const reportId = tournament ? tournament.reportId : req.reportRanks ? newReportId() : "";
        const { record, resolved, closesAtMs: closes } = toRecord(u, i, now, config, catalog, reportId, cohorts?.[i]);
        if (closes !== undefined) closesAtMs = Math.min(closesAtMs, closes);
        const columned = req.reportRanks ? resolved.find((b) => b.spec.columns) : undefined;
        if (columned)
          throw invalidArgument(
            `updates[${i}]: report_ranks: board "${columned.board}" has columns, whose rank changes are not reported: read them with GetRank`,
          );
        if (reportId && req.reportRanks)
          reported.push({ index: i, playerId: u.playerId, partition: record.partition, reportId, boards: resolved });
        return record;
      });
      if (!admitted) quotas?.quotas.admit(req.updates, quotas.caller(ctx), catalog); // the whole batch is valid: now its rate
      const ticket = await lag?.admit(
        records.map((r) => r.partition),
        Math.min(ctx.deadlineMs, Date.now() + DEFAULT_WRITE_TIMEOUT_MS),
      ); // and its shards' lag
      const timeoutMs = Math.max(1, Math.min(DEFAULT_WRITE_TIMEOUT_MS, ctx.deadlineMs - Date.now()));
      const written = await producer.submit(records, timeoutMs).catch((err: unknown) => {
        if (ticket) lag!.failed(ticket);
        throw err;
      });
      if (ticket) lag!.written(ticket, written);
      if (clock() >= closesAtMs + CLOSE_SETTLE_MS / 2)
        throw new LadderError(
          Code.ABORTED,
          `the log acknowledged the batch after ${new Date(closesAtMs).toISOString()}, when a period it writes closed, plus half the close settle time (${CLOSE_SETTLE_MS / 2} ms): its records may follow the period's close markers and be ignored`,
        );
      if (tournament)
        await desk!.decided(
          tournament,
          written.get(tournament.partition)!,
          Math.min(ctx.deadlineMs, Date.now() + DEFAULT_WRITE_TIMEOUT_MS),
        );
      const rankChanges =
        reporter && reported.length
          ? await reporter.report(reported, written, Math.min(ctx.deadlineMs, Date.now() + DEFAULT_WRITE_TIMEOUT_MS))
          : [];
      return {
        offsets: [...written].sort(([a], [b]) => a - b).map(([partition, offset]) => ({ partition, offset })),
        accepted: n,
        consistencyToken: encodeToken(written),
        rankChanges,
      };
    },
    async deletePlayer(req, ctx) {
      const badPlayer = playerIdProblem(req.playerId);
      if (badPlayer) throw invalidArgument(badPlayer); // it names player_id
      const catalog = boards.catalog;
      req.boards.forEach((board, i) => {
        const bad = boardProblem(board);
        if (bad) throw invalidArgument(`boards[${i}]: ${bad}`);
        if (!catalog.forBoard(board)) throw notFound(`boards[${i}]: board "${board}" is not defined`);
      });
      const twice = req.boards.find((b, i) => req.boards.indexOf(b) !== i);
      if (twice !== undefined) throw invalidArgument(`boards: must name each board once, got "${twice}" twice`);
      const now = clock();
      const value = encodeTombstone(req.playerId, [...req.boards], now);
      const timeoutMs = Math.max(1, Math.min(DEFAULT_WRITE_TIMEOUT_MS, ctx.deadlineMs - Date.now()));
      const written = await producer.submit([{ partition: slotOf(req.playerId, config.numSlots), key: req.playerId, value }], timeoutMs);
      const [[partition, offset]] = [...written] as [[number, bigint]];
      return { offset: { partition, offset }, consistencyToken: encodeToken(written) };
    },
    async setTeam(req, ctx) {
      const bad = boardProblem(req.board) ?? playerIdProblem(req.playerId) ?? (req.teamId === "" ? undefined : teamIdProblem(req.teamId));
      if (bad) throw invalidArgument(bad);
      const def = boards.catalog.definition(req.board);
      if (!def?.rules?.team) throw notFound(`board "${req.board}" is ${def ? "no team board (BoardRules.team)" : "not defined"}`);
      const value = encodeTeamMembership(req.board, req.playerId, def.rules, req.teamId, clock());
      const timeoutMs = Math.max(1, Math.min(DEFAULT_WRITE_TIMEOUT_MS, ctx.deadlineMs - Date.now()));
      const written = await producer.submit([{ partition: slotOf(req.playerId, config.numSlots), key: req.playerId, value }], timeoutMs);
      const [[partition, offset]] = [...written] as [[number, bigint]];
      return { offset: { partition, offset }, consistencyToken: encodeToken(written) };
    },
    async joinTournament(req, ctx) {
      if (!desk) throw new LadderError(Code.FAILED_PRECONDITION, "this ingest takes no tournament joins");
      return desk.join(req, Math.min(ctx.deadlineMs, Date.now() + DEFAULT_WRITE_TIMEOUT_MS));
    },
  };
}

/**
 * The batch's tournament write, when it holds one (model/src/tournaments.ts): then it holds that
 * update alone, with neither also_boards nor leave_board, since its shard decides it and the batch
 * is answered as one. A tournament named among also_boards or as leave_board is refused too.
 */
function tournamentWriteOf(updates: readonly ScoreUpdate[], catalog: BoardCatalog, numSlots: number): TournamentWrite | undefined {
  const isTournament = (board: string) => catalog.definition(board)?.rules?.tournament !== undefined;
  let found: TournamentWrite | undefined;
  updates.forEach((u, i) => {
    const also = u.alsoBoards.find(isTournament) ?? (u.leaveBoard && isTournament(u.leaveBoard) ? u.leaveBoard : undefined);
    if (also !== undefined)
      throw invalidArgument(
        `updates[${i}]: tournament "${also}" is written alone, as an update's board, never in also_boards or leave_board`,
      );
    const t = catalog.definition(u.board)?.rules?.tournament;
    if (!t) return;
    if (updates.length > 1)
      throw invalidArgument(
        `updates[${i}]: an update of tournament "${u.board}" is alone in its batch (its shard decides it), got ${updates.length} updates`,
      );
    if (u.alsoBoards.length > 0 || u.leaveBoard)
      throw invalidArgument(`updates[${i}]: an update of tournament "${u.board}" takes neither also_boards nor leave_board`);
    found = {
      board: u.board,
      playerId: u.playerId,
      partition: slotOf(u.playerId, numSlots),
      reportId: newReportId(),
      maxAttempts: t.maxAttempts,
    };
  });
  return found;
}

/** A league update's cohorts by board (league-desk.ts), or VALIDATING while the batch is checked before its players are placed. */
type Cohorts = ReadonlyMap<string, string> | typeof VALIDATING;
const VALIDATING = Symbol("validating");
const NO_COHORTS: ReadonlyMap<string, string> = new Map();

/** Boards one update may apply to besides its own (ScoreUpdate.also_boards). */
export const MAX_ALSO_BOARDS = 8;

/** An update's boards resolved (every rule checked: the errors name the update's index and field), nothing encoded. */
function resolveUpdate(u: ScoreUpdate, index: number, now: number, config: Config, catalog: BoardCatalog, cohorts: Cohorts) {
  const at = `updates[${index}]`;
  const timestampMs = u.timestampMs === 0n ? BigInt(now) : u.timestampMs;
  const main = resolveBoard(u, u.board, at, timestampMs, now, config, catalog, false, cohorts);
  if (u.alsoBoards.length > MAX_ALSO_BOARDS)
    throw invalidArgument(`${at}.also_boards: must name at most ${MAX_ALSO_BOARDS} boards, got ${u.alsoBoards.length}`);
  const names = [u.board, ...u.alsoBoards, ...(u.leaveBoard ? [u.leaveBoard] : [])];
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw invalidArgument(`${at}: board "${twice}" is named twice (board, also_boards and leave_board must differ)`);
  const also = u.alsoBoards.map((b, i) => resolveBoard(u, b, `${at}.also_boards[${i}]`, timestampMs, now, config, catalog, false, cohorts));
  const leave = u.leaveBoard ? resolveBoard(u, u.leaveBoard, `${at}.leave_board`, timestampMs, now, config, catalog, true) : undefined;
  return { timestampMs, main, also, leave };
}

function toRecord(
  u: ScoreUpdate,
  index: number,
  now: number,
  config: Config,
  catalog: BoardCatalog,
  reportId: string,
  cohorts: Cohorts = NO_COHORTS,
): { record: OutRecord; resolved: ReportedUpdate["boards"]; closesAtMs?: number } {
  const { timestampMs, main, also, leave } = resolveUpdate(u, index, now, config, catalog, cohorts);
  const fields = {
    board: u.board,
    playerId: u.playerId,
    op: main.op,
    value: u.value,
    timestampMs,
    eventId: u.eventId,
    metadata: u.metadata,
    reportId,
    columns: u.columns,
  };
  const record = {
    partition: slotOf(u.playerId, config.numSlots),
    key: u.playerId,
    value: encodeScoreEvent(fields, now, main, { also, ...(leave ? { leave } : {}) }),
  };
  const resolved = [main, ...also].map((b) => ({ board: b.board, period: b.period?.id ?? "", spec: catalog.forBoard(b.board)! }));
  const closes = [main, ...also, ...(leave ? [leave] : [])].flatMap((b) => (b.closesAtMs !== undefined ? [b.closesAtMs] : []));
  return { record, resolved, ...(closes.length ? { closesAtMs: Math.min(...closes) } : {}) };
}

/**
 * What an update does on one of its boards: the board's spec must exist (NOT_FOUND), the operation be
 * allowed (FAILED_PRECONDITION), the update valid for the board (INVALID_ARGUMENT), its period still kept
 * (FAILED_PRECONDITION). A board left takes no operation and no value.
 */
function resolveBoard(
  u: ScoreUpdate,
  board: string,
  at: string,
  timestampMs: bigint,
  now: number,
  config: Config,
  catalog: BoardCatalog,
  leaving: boolean,
  cohorts: Cohorts = NO_COHORTS,
): ResolvedBoard & { closesAtMs?: number } {
  const badName = boardProblem(board);
  if (badName) throw invalidArgument(`${at}: ${badName}`);
  const spec = catalog.forBoard(board);
  if (!spec)
    throw notFound(
      `${at}: board "${board}" is not defined (AdminService.CreateBoard), and this cluster takes no boards without a definition (LADDER_IMPLICIT_BOARDS)`,
    );
  if (spec.team)
    throw invalidArgument(
      `${at}: board "${board}" is a team board: its teams' points are kept from their members' points on "${spec.team.source}" (IngestService.SetTeam makes members)`,
    );
  let op = Operation.UNSPECIFIED;
  if (!leaving) {
    const resolved = resolveOp(u.op, spec);
    if ("problem" in resolved) throw new LadderError(Code.FAILED_PRECONDITION, `${at}: ${resolved.problem}`);
    op = resolved.op;
    const problem =
      updateProblem(
        { board, playerId: u.playerId, op, value: u.value, timestampMs, eventId: u.eventId, columns: u.columns },
        spec,
        now,
        config.maxClockSkewMs,
      ) ??
      metadataProblem(u.metadata, spec.maxMetadataBytes) ??
      ceilingOf(board, op, u.value, spec.scoreCeiling);
    if (problem) throw invalidArgument(`${at}: ${problem}`);
  }
  let period: Period | undefined;
  let closesAtMs: number | undefined;
  if (spec.period.kind !== "none") {
    // the event's own time decides its period, never the clock; a period no longer kept takes no more scores
    period = periodAt(spec.period, Number(timestampMs));
    if (spec.period.kind === "tournament") {
      const outside = tournamentTimeProblem(board, period, Number(timestampMs));
      if (outside) throw new LadderError(Code.FAILED_PRECONDITION, `${at}: ${outside}`);
    }
    if (Number(timestampMs) < period.startMs || Number(timestampMs) >= period.endMs)
      throw new LadderError(Code.FAILED_PRECONDITION, `${at}: ${seasonGapMessage(board, Number(timestampMs), period)}`);
    const closed = closedProblem(board, spec.period, period, now);
    if (closed) throw new LadderError(Code.FAILED_PRECONDITION, `${at}: ${closed}`);
    closesAtMs = closeTimeOf(spec.period, period);
    if (now >= period.expireAtMs)
      throw new LadderError(
        Code.FAILED_PRECONDITION,
        `${at}: timestamp_ms ${timestampMs} falls in period ${period.id} of board "${board}", no longer kept (it keeps the current period and ${spec.period.keep} before it)`,
      );
  }
  const rules = catalog.definition(board)?.rules;
  if (period && spec.league) {
    // a league's write goes to the player's cohort of the period (league-desk.ts)
    if (leaving) throw invalidArgument(`${at}: "${board}" is a league: a player stays in its cohort for the period`);
    const cohort = cohorts === VALIDATING ? "t0c0" : cohorts.get(board);
    if (cohort === undefined) throw new LadderError(Code.INTERNAL, `${at}: no cohort was found for league "${board}"`);
    period = { ...period, id: cohortPeriod(period.id, cohort) };
  }
  if (period && spec.windows.length > 0) {
    // the windows that include this period are recomputed from the periods around it; its key outlives it for them
    const windows = windowPlan(spec, period);
    return {
      board,
      op,
      ...(rules ? { rules } : {}),
      period: { id: period.id, expireAtMs: windows.periodExpireAtMs },
      windows,
      ...(closesAtMs !== undefined ? { closesAtMs } : {}),
    };
  }
  return { board, op, ...(rules ? { rules } : {}), ...(period ? { period } : {}), ...(closesAtMs !== undefined ? { closesAtMs } : {}) };
}

/** A write above its board's score ceiling (BoardDefinition.score_ceiling): a SET or BEST to more points, an INCREMENT by more. */
function ceilingOf(board: string, op: Operation, value: bigint, ceiling: number): string | undefined {
  if (ceiling === 0 || op === Operation.DECREMENT || value <= BigInt(ceiling)) return undefined;
  return `value ${value} is above the score ceiling of board "${board}", ${ceiling} (BoardDefinition.score_ceiling)`;
}
