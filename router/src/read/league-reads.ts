/**
 * LeaderboardService.GetLeagueStanding and GetLeague (the rules: model/src/leagues.ts).
 *
 * A player's placement, its tier and a period's groups are read where placements are decided:
 * the shard owning the league's partition (read-league.lua, on the primary, checked like every
 * read). The cohort's entries through GetTop's path (Queries.top on "<period>/<cohort>": exact, as
 * every top), whole, since a cohort holds at most LeagueRule.cohort_size (≤ 1,000) players. The
 * zones are those the close would apply to the cohort as it stands (zonesOf).
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  LeagueZone,
  type GetLeagueRequest,
  type GetLeagueResponseSchema,
  type GetLeagueStandingRequest,
  type GetLeagueStandingResponseSchema,
} from "@ladder/proto/leaderboard/v1/league_pb";
import type { BoardCatalog } from "@ladder/model/board-definitions";
import { storedBoardName, type BoardSpec } from "@ladder/model/board-spec";
import { invalidArgument, notFound } from "@ladder/model/errors";
import {
  COHORT_SEPARATOR,
  cohortId,
  cohortOfCode,
  cohortPeriod,
  parseGroupName,
  placementPartitionOf,
  tierOfScore,
  zoneOf,
  zonesOf,
  type League,
} from "@ladder/model/leagues";
import { periodAt, periodNamed, type Period } from "@ladder/model/periods";
import { boardProblem, playerIdProblem } from "@ladder/model/validate";
import type { BoardDefinition } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { Queries } from "./queries.js";
import type { ShardPool } from "./shard-pool.js";
import { toEntry } from "./entries.js";

const ZONES = { promotion: LeagueZone.PROMOTION, stay: LeagueZone.STAY, relegation: LeagueZone.RELEGATION } as const;

export interface LeagueReadsDeps {
  pool: Pick<ShardPool, "ownerOfSlot" | "call">;
  catalog: () => BoardCatalog;
  queries: Queries;
  numSlots: number;
  clock?: () => number;
}

/** A league's period as its placing shard holds it. */
export interface LeaguePeriod {
  code: number;
  tier: number;
  settled: boolean;
  groups: Array<{ group: string; players: number }>;
}

export class LeagueReads {
  private readonly clock: () => number;

  constructor(private readonly d: LeagueReadsDeps) {
    this.clock = d.clock ?? Date.now;
  }

  async standing(req: GetLeagueStandingRequest, deadlineMs: number): Promise<MessageInitShape<typeof GetLeagueStandingResponseSchema>> {
    const badPlayer = playerIdProblem(req.playerId);
    if (badPlayer) throw invalidArgument(badPlayer);
    const { def, league, period } = this.resolve(req.board, req.period);
    const seen = await this.read(def, period, req.playerId, deadlineMs);
    if (seen.code < 0) return { period: period.id, placed: false, tier: seen.tier < 0 ? 0 : tierOfScore(seen.tier) };
    const c = cohortOfCode(seen.code);
    const cohort = cohortId(league, c);
    const where = { period: cohortPeriod(period.id, cohort) };
    const page = await this.d.queries.top(def.name, 0, league.cohortSize, deadlineMs, where);
    const zones = zonesOf(league, c.tier, page.total);
    const mine = page.entries.find((e) => e.playerId === req.playerId);
    return {
      period: period.id,
      placed: true,
      tier: c.tier,
      cohort,
      cohortPeriod: where.period,
      entries: page.entries.map(toEntry),
      ...(mine ? { entry: toEntry(mine), zone: ZONES[zoneOf(zones, mine.rank)] } : {}),
      promoteThroughRank: BigInt(zones.promoteThrough),
      relegateFromRank: BigInt(zones.relegateFrom),
    };
  }

  async league(req: GetLeagueRequest, deadlineMs: number): Promise<MessageInitShape<typeof GetLeagueResponseSchema>> {
    const { def, league, period } = this.resolve(req.board, req.period);
    const seen = await this.read(def, period, "", deadlineMs);
    const groups = seen.groups
      .flatMap((g) => {
        const at = parseGroupName(g.group);
        return at ? [{ ...at, players: BigInt(g.players), cohorts: BigInt(Math.ceil(g.players / league.cohortSize)) }] : [];
      })
      .sort((a, b) => a.tier - b.tier || a.bracket - b.bracket);
    return { board: def, period: period.id, groups, settled: seen.settled };
  }

  /** The league's period on the shard that places its players. */
  read(def: BoardDefinition, period: Period, playerId: string, deadlineMs: number): Promise<LeaguePeriod> {
    const owner = this.d.pool.ownerOfSlot(placementPartitionOf(def.name, this.d.numSlots));
    const stored = storedBoardName(def.name, { generation: Number(def.rules!.generation) });
    return this.d.pool.call(owner, (s) => s.league(stored, period.id, playerId), deadlineMs);
  }

  /** A league's definition, spec and rules, and the period named (or the current one). */
  resolve(board: string, periodName: string): { def: BoardDefinition; spec: BoardSpec; league: League; period: Period } {
    const bad = boardProblem(board);
    if (bad) throw invalidArgument(bad);
    const catalog = this.d.catalog();
    const def = catalog.definition(board);
    const spec = catalog.forBoard(board);
    if (!def || !spec?.league) throw notFound(`board "${board}" is ${def ? "no league" : "not defined"}`);
    if (periodName.includes(COHORT_SEPARATOR))
      throw invalidArgument(`period: "${periodName}" names a cohort: give the league's period alone (as ListPeriods names it)`);
    const period = periodName === "" ? periodAt(spec.period, this.clock()) : periodNamed(spec.period, periodName);
    if (!period)
      throw invalidArgument(`period: "${periodName}" is not a ${spec.period.kind} period of board "${board}" (ListPeriods names them)`);
    return { def, spec, league: spec.league, period };
  }
}
