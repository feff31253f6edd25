/**
 * `teams create|set|get` (docs/teams.md): the board as one line, a membership's place in the log, a
 * team's entry and members.
 */
import type { ServiceSet } from "@ladder/client";
import { SortOrder, TeamCombine } from "@ladder/proto/leaderboard/v1/common_pb";
import type { Values } from "./flags.js";
import type { TEAMS_CREATE, TEAMS_GET, TEAMS_SET } from "./tables/teams.js";

export async function teamsCreate(c: ServiceSet, o: Values<typeof TEAMS_CREATE.flags>): Promise<string> {
  const res = await c.admin.createBoard({
    board: {
      name: o.board,
      rules: {
        order: o.order === "lower" ? SortOrder.LOWER_IS_BETTER : SortOrder.HIGHER_IS_BETTER,
        maxPoints: o.max,
        team: { source: o.source, combine: o.combine === "best" ? TeamCombine.BEST : TeamCombine.SUM, bestK: o.best },
      },
    },
  });
  const t = res.board!.rules!.team!;
  const combine = t.combine === TeamCombine.BEST ? `the best ${t.bestK} members' points` : "the sum of its members' points";
  return `defined team board ${res.board!.name}: each team holds ${combine} on ${t.source}, generation ${res.board!.rules!.generation}`;
}

export async function teamsSet(c: ServiceSet, o: Values<typeof TEAMS_SET.flags>): Promise<string> {
  const team = o.team ?? "";
  const res = await c.ingest.setTeam({ board: o.board, playerId: o.player, teamId: team });
  const where = `partition ${res.offset!.partition} offset ${res.offset!.offset}`;
  return team === "" ? `${o.player} leaves its team of ${o.board} (${where})` : `${o.player} joins ${o.team} of ${o.board} (${where})`;
}

export async function teamsGet(c: ServiceSet, o: Values<typeof TEAMS_GET.flags>): Promise<string> {
  const res = await c.leaderboard.getTeam({ board: o.board, teamId: o.team });
  const head = res.entry
    ? `${o.team}: rank ${res.entry.rank} of ${res.total} with ${res.entry.score}`
    : `${o.team}: no entry (no member) of ${res.total} teams`;
  const lines = res.members.map((m) => `  ${m.playerId}  ${m.points}${m.counted ? "" : "  (not counted)"}`);
  return [head, ...lines].join("\n");
}
