/**
 * LeaderboardService.ListTournaments and GetTournament (the rules: model/src/tournaments.ts).
 *
 * A tournament's members are counted where its joins are applied: the shard owning its join
 * partition (read-tournament.lua, on the primary, checked like every read), so the count is the
 * one that shard decides joins by. A player's membership and attempts are read on the player's
 * own shard, where its writes are decided; its entry and rank through GetRank's path (Queries.rank:
 * exact, as every rank). Listings come from the definitions this router follows, filtered and
 * ordered in memory; each listed tournament costs one read of its join shard.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { BoardDefinition } from "@ladder/proto/leaderboard/v1/admin_pb";
import {
  TournamentState as ProtoState,
  type GetTournamentRequest,
  type GetTournamentResponseSchema,
  type ListTournamentsRequest,
  type ListTournamentsResponseSchema,
  type TournamentSummarySchema,
} from "@ladder/proto/leaderboard/v1/tournament_pb";
import type { BoardCatalog } from "@ladder/model/board-definitions";
import { storedBoardName } from "@ladder/model/board-spec";
import { Code, invalidArgument, notFound } from "@ladder/model/errors";
import { slotOf } from "@ladder/model/placement";
import {
  decodePageToken,
  joinPartitionOf,
  TOURNAMENT_PERIOD,
  tournamentPage,
  tournamentState,
  type Listed,
  type Tournament,
} from "@ladder/model/tournaments";
import { boardProblem, playerIdProblem } from "@ladder/model/validate";
import type { Queries } from "./queries.js";
import type { ShardPool } from "./shard-pool.js";
import { toEntry } from "./entries.js";

/** Tournaments per page of ListTournaments: at most, and when the request says 0. */
export const MAX_TOURNAMENT_PAGE = 100;
const DEFAULT_TOURNAMENT_PAGE = 20;

const STATES = { upcoming: ProtoState.UPCOMING, active: ProtoState.ACTIVE, ended: ProtoState.ENDED } as const;

export interface TournamentReadsDeps {
  pool: Pick<ShardPool, "ownerOfSlot" | "call">;
  catalog: () => BoardCatalog;
  queries: Queries;
  numSlots: number;
  clock?: () => number;
}

export class TournamentReads {
  private readonly clock: () => number;

  constructor(private readonly d: TournamentReadsDeps) {
    this.clock = d.clock ?? Date.now;
  }

  async list(req: ListTournamentsRequest, deadlineMs: number): Promise<MessageInitShape<typeof ListTournamentsResponseSchema>> {
    if (req.category !== "") {
      const bad = boardProblem(req.category);
      if (bad) throw invalidArgument(bad.replace(/^board/, "category"));
    }
    const size = req.pageSize === 0 ? DEFAULT_TOURNAMENT_PAGE : req.pageSize;
    if (size > MAX_TOURNAMENT_PAGE)
      throw invalidArgument(`page_size: must be 1..${MAX_TOURNAMENT_PAGE} (0: ${DEFAULT_TOURNAMENT_PAGE}), got ${size}`);
    const after = req.pageToken === "" ? undefined : decodePageToken(req.pageToken);
    if (req.pageToken !== "" && !after)
      throw invalidArgument("page_token: not a token of ListTournaments (pass next_page_token as it came)");
    const catalog = this.d.catalog();
    const listed: Listed[] = [];
    for (const def of catalog.list()) {
      const t = tournamentOf(def);
      if (t) listed.push({ name: def.name, tournament: t });
    }
    const now = this.clock();
    const { page, next } = tournamentPage(listed, { category: req.category, nowMs: now, size, ...(after ? { after } : {}) });
    const tournaments = await Promise.all(page.map((l) => this.summary(catalog.definition(l.name)!, l.tournament, now, deadlineMs)));
    return { tournaments, nextPageToken: next };
  }

  async get(req: GetTournamentRequest, deadlineMs: number): Promise<MessageInitShape<typeof GetTournamentResponseSchema>> {
    const bad = boardProblem(req.board);
    if (bad) throw invalidArgument(bad);
    if (req.playerId !== "") {
      const badPlayer = playerIdProblem(req.playerId);
      if (badPlayer) throw invalidArgument(badPlayer);
    }
    const def = this.d.catalog().definition(req.board);
    const t = def && tournamentOf(def);
    if (!def || !t) throw notFound(`board "${req.board}" is ${def ? "no tournament" : "not defined"}`);
    const summary = await this.summary(def, t, this.clock(), deadlineMs);
    const where = { period: TOURNAMENT_PERIOD };
    if (req.playerId === "") {
      const total = await this.d.queries.size(this.stored(def), deadlineMs);
      return { tournament: summary, total: BigInt(total) };
    }
    const owner = this.d.pool.ownerOfSlot(slotOf(req.playerId, this.d.numSlots));
    const seen = await this.d.pool.call(owner, (s) => s.tournament(this.stored(def), req.playerId), deadlineMs);
    const used = Math.max(0, seen.attempts);
    const ranked = await this.d.queries.rank(req.board, req.playerId, deadlineMs, where).catch((err: { code?: number }) => {
      if (err.code === Code.NOT_FOUND) return undefined;
      throw err;
    });
    const total = ranked ? ranked.total : await this.d.queries.size(this.stored(def), deadlineMs);
    return {
      tournament: summary,
      member: seen.attempts >= 0,
      attemptsUsed: used,
      attemptsLeft: t.maxAttempts > 0 ? Math.max(0, t.maxAttempts - used) : 0,
      ...(ranked ? { entry: toEntry(ranked.entry) } : {}),
      total: BigInt(total),
    };
  }

  private stored(def: BoardDefinition): string {
    return storedBoardName(def.name, { generation: Number(def.rules!.generation) }, TOURNAMENT_PERIOD);
  }

  private async summary(
    def: BoardDefinition,
    t: Tournament,
    now: number,
    deadlineMs: number,
  ): Promise<MessageInitShape<typeof TournamentSummarySchema>> {
    const owner = this.d.pool.ownerOfSlot(joinPartitionOf(def.name, this.d.numSlots));
    const { members } = await this.d.pool.call(owner, (s) => s.tournament(this.stored(def), ""), deadlineMs);
    return { board: def, memberCount: BigInt(members), state: STATES[tournamentState(t, now)] };
  }
}

/** A definition's tournament, or undefined for a board that is no tournament. */
function tournamentOf(def: BoardDefinition): Tournament | undefined {
  const t = def.rules?.tournament;
  if (!t) return undefined;
  return {
    category: t.category,
    startMs: Number(t.startMs),
    endMs: Number(t.endMs),
    joinRequired: t.joinRequired,
    maxSize: t.maxSize,
    maxAttempts: t.maxAttempts,
  };
}
