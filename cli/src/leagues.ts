/**
 * `leagues create|standing|get` (docs/leagues.md): the league as one line, a player's cohort as a
 * table of its entries with the zones the close applies, a period as its groups.
 */
import type { ServiceSet } from "@ladder/client";
import { SortOrder } from "@ladder/proto/leaderboard/v1/common_pb";
import { LeagueZone } from "@ladder/proto/leaderboard/v1/league_pb";
import { durationMs } from "./boards.js";
import { OPERATION, PERIOD_KIND } from "./enums.js";
import type { Values } from "./flags.js";
import type { LEAGUES_CREATE, LEAGUES_GET, LEAGUES_STANDING } from "./tables/leagues.js";

export async function leaguesCreate(c: ServiceSet, o: Values<typeof LEAGUES_CREATE.flags>): Promise<string> {
  const res = await c.admin.createBoard({
    board: {
      name: o.board,
      defaultOp: OPERATION[o["default-op"]],
      rules: {
        order: o.order === "lower" ? SortOrder.LOWER_IS_BETTER : SortOrder.HIGHER_IS_BETTER,
        period: PERIOD_KIND[o.period],
        cron: o.cron ?? "",
        timeZone: o.zone ?? "",
        keepPeriods: o.keep,
        close: { graceMs: BigInt(durationMs(o["close-grace"])) },
        league: { cohortSize: o.cohort, tiers: o.tiers, promote: o.promote, relegate: o.relegate, brackets: o.brackets },
      },
    },
  });
  const b = res.board!;
  const l = b.rules!.league!;
  const brackets = l.brackets > 1 ? `, ${l.brackets} brackets` : "";
  return `defined league ${b.name}: cohorts of ${l.cohortSize}, ${l.tiers || 1} tiers, ${l.promote} promoted and ${l.relegate} relegated per cohort${brackets}, generation ${b.rules!.generation}`;
}

const ZONE = { [LeagueZone.PROMOTION]: "promotion", [LeagueZone.STAY]: "stays", [LeagueZone.RELEGATION]: "relegation" } as Record<
  number,
  string
>;

export async function leaguesStanding(c: ServiceSet, o: Values<typeof LEAGUES_STANDING.flags>): Promise<string> {
  const res = await c.leaderboard.getLeagueStanding({ board: o.board, playerId: o.player, period: o.period ?? "" });
  if (!res.placed) return `${o.player} is not placed in period ${res.period} of ${o.board} (its first write places it in tier ${res.tier})`;
  const zoneOf = (rank: bigint) =>
    rank <= res.promoteThroughRank ? "  up" : res.relegateFromRank > 0n && rank >= res.relegateFromRank ? "  down" : "";
  const lines = res.entries.map((e) => `${String(e.rank).padStart(4)}  ${e.playerId}  ${e.score}${zoneOf(e.rank)}`);
  const mine = res.entry ? `rank ${res.entry.rank} of ${res.entries.length}, ${ZONE[res.zone] ?? "no zone"}` : "no entry yet";
  return [
    `${o.player} in cohort ${res.cohort} (tier ${res.tier}) of ${o.board}, period ${res.period}: ${mine} (read it as --period ${res.cohortPeriod})`,
    ...lines,
  ].join("\n");
}

export async function leaguesGet(c: ServiceSet, o: Values<typeof LEAGUES_GET.flags>): Promise<string> {
  const res = await c.leaderboard.getLeague({ board: o.board, period: o.period ?? "" });
  const l = res.board!.rules!.league!;
  const groups = res.groups.map(
    (g) => `tier ${g.tier}${l.brackets > 1 ? ` bracket ${g.bracket}` : ""}: ${g.players} players in ${g.cohorts} cohorts`,
  );
  return [`${o.board}, period ${res.period}${res.settled ? " (closed and settled)" : ""}: cohorts of ${l.cohortSize}`, ...groups].join(
    "\n",
  );
}
