/**
 * LeaderboardService.GetTeam (the rules: model/src/teams.ts): a team's entry with its exact rank,
 * through GetRank's path (Queries.rank), and its members' contributions as the team's shard holds
 * them (read-team.lua on the shard of the team's partition, the primary, checked like every read),
 * best first by the board's order, then player id.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { GetTeamRequest, GetTeamResponseSchema } from "@ladder/proto/leaderboard/v1/team_pb";
import type { BoardCatalog } from "@ladder/model/board-definitions";
import { storedBoardName, type BoardSpec } from "@ladder/model/board-spec";
import { Code, invalidArgument, LadderError, notFound } from "@ladder/model/errors";
import { slotOf } from "@ladder/model/placement";
import { compareIds, decodeSortKey } from "@ladder/model/score-encoding";
import { boardProblem, teamIdProblem } from "@ladder/model/validate";
import { toEntry } from "./entries.js";
import type { Queries } from "./queries.js";
import type { ShardPool } from "./shard-pool.js";

export interface TeamReadsDeps {
  pool: Pick<ShardPool, "ownerOfSlot" | "call">;
  catalog: () => BoardCatalog;
  queries: Queries;
  numSlots: number;
}

export class TeamReads {
  constructor(private readonly d: TeamReadsDeps) {}

  async get(req: GetTeamRequest, deadlineMs: number): Promise<MessageInitShape<typeof GetTeamResponseSchema>> {
    const bad = boardProblem(req.board) ?? teamIdProblem(req.teamId);
    if (bad) throw invalidArgument(bad);
    const spec = this.d.catalog().forBoard(req.board);
    if (!this.d.catalog().definition(req.board) || !spec?.team)
      throw notFound(`board "${req.board}" is ${this.d.catalog().definition(req.board) ? "no team board" : "not defined"}`);
    const owner = this.d.pool.ownerOfSlot(slotOf(req.teamId, this.d.numSlots));
    const stored = storedBoardName(req.board, spec);
    // the team's points and members at one instant, then its rank: again while the two disagree
    for (let attempt = 1; ; attempt++) {
      const held = await this.d.pool.call(owner, (s) => s.team(stored, req.teamId), deadlineMs);
      const ranked = held.key === undefined ? undefined : await this.d.queries.rank(req.board, req.teamId, deadlineMs).catch(notRanked);
      const points = held.key === undefined ? undefined : decodeSortKey(spec, held.key).points;
      if (ranked?.entry.points !== points) {
        if (attempt < MOVING_ATTEMPTS) continue;
        throw new LadderError(
          Code.UNAVAILABLE,
          `team "${req.teamId}" of board "${req.board}" kept moving while read (${MOVING_ATTEMPTS} attempts): ask again`,
          {
            retriable: true,
          },
        );
      }
      const total = ranked ? ranked.total : await this.d.queries.size(stored, deadlineMs);
      return this.answer(spec, held.members, ranked, total);
    }
  }

  private answer(
    spec: BoardSpec,
    members: Array<{ playerId: string; points: number }>,
    ranked: Awaited<ReturnType<Queries["rank"]>> | undefined,
    total: number,
  ): MessageInitShape<typeof GetTeamResponseSchema> {
    const team = spec.team!;
    const better = spec.lowerIsBetter ? (a: number, b: number) => a - b : (a: number, b: number) => b - a;
    members.sort((a, b) => better(a.points, b.points) || compareIds(a.playerId, b.playerId));
    return {
      ...(ranked ? { entry: toEntry(ranked.entry) } : {}),
      total: BigInt(total),
      members: members.map((m, i) => ({
        playerId: m.playerId,
        points: BigInt(m.points),
        counted: team.combine === "sum" || i < team.bestK,
      })),
    };
  }
}

/** Times GetTeam reads a team whose points move between its two reads before it refuses. */
const MOVING_ATTEMPTS = 5;

const notRanked = (err: { code?: number }) => {
  if (err.code === Code.NOT_FOUND) return undefined;
  throw err;
};
