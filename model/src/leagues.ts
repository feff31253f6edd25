/**
 * Leagues: a board whose players are placed, each period, into cohorts of at most N, in tiers,
 * with promotion and relegation at each period's close (BoardRules.league). These are the rules;
 * the apply script (store/src/lua/includes/apply-leagues.lua) places, ingest asks it, the router's
 * closer promotes.
 *
 * A COHORT IS A PART OF A PERIOD. Each cohort is a board of its own, stored as the league's period
 * "<period>/<cohort>" ("2026-W49/t2c17": tier 2, the 18th cohort of that tier; "t2b1c17" with
 * brackets). Every read takes that as its period, so top, rank, around, pages, GetRanks, watchers
 * and the rank index read a cohort exactly as they read any board, and a cohort's keys expire with
 * its period. A league's own period ("2026-W49") holds no entries: reads must name a cohort.
 *
 * PLACEMENT IS ORDERED BY THE LOG. "At most N" and "by arrival" must hold whatever number of
 * ingest processes take first writes at once, and a rebuild must place every player alike. So a
 * placement is a record (ScoreEvent.league_place) in ONE partition of the score log, the league's:
 * murmur3 of the board name mod the slots (placementPartitionOf). The shard applying it places in
 * that partition's order: a player placed in the period already changes nothing; else its tier is
 * read from the league's tiers (tier 0 for a player never promoted), and it takes the next seat of
 * its (tier, bracket) group: the k-th player of a group (from 0) sits in cohort floor(k / N). Every
 * cohort of a group is then full but the last, and each period fills them anew by arrival, so
 * cohorts stay full as the league grows or shrinks. Ingest writes the placement on a player's
 * first write of a period (cached after), waits until it is applied, reads the cohort, and writes
 * the score to the league's period "<period>/<cohort>" in the player's own partition.
 *
 * PROMOTION AT THE CLOSE. A league's periods close (BoardRules.close). Once the close markers of a
 * period are applied everywhere its cohorts are final, and the closer reads each cohort whole: in
 * a cohort of n entries, ranks 1 to min(promote, n) move one tier up (not from the highest tier),
 * ranks max(promote + 1, n - relegate + 1) to n one tier down (not from tier 0); the others, and
 * players placed without an entry, keep their tier. Each move is a record (league_tier) in the
 * league's partition, carrying the closed period's start: a tier set by a later period's close is
 * never replaced by an earlier one's, so a closer that writes them twice changes nothing. After
 * the last one the closer writes league_settled. A placement in the next period of a player placed in
 * the period before waits for it (the apply refuses it, ingest answers UNAVAILABLE "settling",
 * retryable): nobody is placed by a tier that is about to change; a player who did not play the
 * period before keeps its tier through that close and is placed at once. The wait lasts
 * the close's grace, its settle time (closes.ts: 10 s) and the reads of the cohorts.
 *
 * STATE. On the shard of the league's partition, under the league's keys (deleted with the board,
 * copied by snapshots, rebuilt by a replay of that partition): per period "<period key>!place"
 * (player -> cohort code) and "<period key>!fill" ("t<tier>b<bracket>" -> players placed), which
 * expire with the period; "<league key>!tier" (player -> its tier and the start of the period whose
 * close set it: tierScore) and "<league key>!settled" (the periods settled).
 *
 * COSTS. A player's first write of a period: one more record, and the write waits until the
 * league's shard applied it (a few ms); every later write costs nothing more (ingest's cache, or
 * one ZSCORE on a miss). A placement is two ZSCOREs, a ZINCRBY and a ZADD. Memory on the league's
 * shard: about 70 bytes per player placed in each kept period and per player whose tier moved. The
 * close: one read of every cohort (n entries) and one record per player moved. One partition
 * places every player of a league: its shard applies all of the league's placements (one per
 * player per period), which bounds how fast a period can fill (tens of thousands a second).
 */
import { slotOf } from "./placement.js";

/** The most players a cohort may hold. */
export const MAX_COHORT_SIZE = 1000;
/** The most tiers a league may have (the tier's bits in tierScore). */
export const MAX_TIERS = 50;
/** The most skill brackets a league may have. */
export const MAX_BRACKETS = 100;

/** A league's rules, resolved (tiers and brackets at least 1). */
export interface League {
  cohortSize: number;
  tiers: number;
  promote: number;
  relegate: number;
  brackets: number;
}

/** What a LeagueRule message holds. */
export interface LeagueRuleFields {
  cohortSize: number;
  tiers: number;
  promote: number;
  relegate: number;
  brackets: number;
}

/** The rules as the model uses them: 0 tiers or brackets mean 1. */
export function leagueOf(r: LeagueRuleFields): League {
  return {
    cohortSize: r.cohortSize,
    tiers: Math.max(1, r.tiers),
    promote: r.promote,
    relegate: r.relegate,
    brackets: Math.max(1, r.brackets),
  };
}

/** What is wrong with a requested league rule, naming the field and its limit, or undefined. */
export function leagueRuleProblem(r: LeagueRuleFields): string | undefined {
  if (!Number.isInteger(r.cohortSize) || r.cohortSize < 2 || r.cohortSize > MAX_COHORT_SIZE)
    return `league.cohort_size must be 2 to ${MAX_COHORT_SIZE}, got ${r.cohortSize}`;
  if (!Number.isInteger(r.tiers) || r.tiers < 0 || r.tiers > MAX_TIERS)
    return `league.tiers must be 0 (one tier) to ${MAX_TIERS}, got ${r.tiers}`;
  if (!Number.isInteger(r.promote) || r.promote < 0 || r.promote > r.cohortSize)
    return `league.promote must be 0 to cohort_size (${r.cohortSize}), got ${r.promote}`;
  if (!Number.isInteger(r.relegate) || r.relegate < 0 || r.relegate > r.cohortSize - r.promote)
    return `league.relegate must be 0 to cohort_size - promote (${r.cohortSize - r.promote}), got ${r.relegate}`;
  if (!Number.isInteger(r.brackets) || r.brackets < 0 || r.brackets > MAX_BRACKETS)
    return `league.brackets must be 0 (none) to ${MAX_BRACKETS}, got ${r.brackets}`;
  return undefined;
}

/** The partition of the score log that places every player of league `board` (the board name's slot). */
export const placementPartitionOf = (board: string, numSlots: number): number => slotOf(board, numSlots);

/** Where a player sits: its tier, its bracket and the cohort's index within that group (from 0). */
export interface Cohort {
  tier: number;
  bracket: number;
  index: number;
}

/** A cohort's id: "t2c17", or "t2b1c17" in a league with brackets. */
export function cohortId(league: Pick<League, "brackets">, c: Cohort): string {
  return league.brackets > 1 ? `t${c.tier}b${c.bracket}c${c.index}` : `t${c.tier}c${c.index}`;
}

const COHORT = /^t(0|[1-9][0-9]{0,1})(?:b(0|[1-9][0-9]{0,1}))?c(0|[1-9][0-9]{0,7})$/;

/** A cohort id read back, or what is wrong with it (naming the league's limits). */
export function parseCohortId(league: League, id: string): Cohort | string {
  const m = COHORT.exec(id);
  const form = league.brackets > 1 ? '"t<tier>b<bracket>c<index>"' : '"t<tier>c<index>"';
  if (!m || (m[2] === undefined) !== league.brackets <= 1) return `cohort "${id}" is not a cohort id of this league: ${form}`;
  const c = { tier: Number(m[1]), bracket: Number(m[2] ?? 0), index: Number(m[3]) };
  if (c.tier >= league.tiers) return `cohort "${id}": tier ${c.tier} is past the league's tiers (0 to ${league.tiers - 1})`;
  if (c.bracket >= league.brackets)
    return `cohort "${id}": bracket ${c.bracket} is past the league's brackets (0 to ${league.brackets - 1})`;
  return c;
}

/** The separator of a cohort's period: "<period>/<cohort>" (no period name holds it). */
export const COHORT_SEPARATOR = "/";

/** A cohort's period: the league's period and the cohort, "2026-W49/t2c17". */
export const cohortPeriod = (period: string, cohort: string): string => `${period}${COHORT_SEPARATOR}${cohort}`;

/** A cohort's period split back ("" for either part it lacks). */
export function splitCohortPeriod(period: string): { period: string; cohort: string } {
  const at = period.indexOf(COHORT_SEPARATOR);
  return at < 0 ? { period, cohort: "" } : { period: period.slice(0, at), cohort: period.slice(at + 1) };
}

/**
 * A cohort as the apply script stores it (a "!place" score): (tier x 128 + bracket) x 2^24 + index,
 * exact in a double (below 2^37).
 */
export const cohortCode = (c: Cohort): number => (c.tier * 128 + c.bracket) * 2 ** 24 + c.index;

/** A cohort code read back. */
export function cohortOfCode(code: number): Cohort {
  const group = Math.floor(code / 2 ** 24);
  return { tier: Math.floor(group / 128), bracket: group % 128, index: code - group * 2 ** 24 };
}

/** A "!fill" member: the group of a tier and a bracket. */
export const groupName = (tier: number, bracket: number): string => `t${tier}b${bracket}`;

/** A "!fill" member read back (undefined for one that is not a group). */
export function parseGroupName(name: string): { tier: number; bracket: number } | undefined {
  const m = /^t([0-9]+)b([0-9]+)$/.exec(name);
  return m ? { tier: Number(m[1]), bracket: Number(m[2]) } : undefined;
}

/**
 * A "!tier" score: the tier and the start (in seconds) of the period whose close set it,
 * floor(startMs / 1000) x 64 + tier, exact in a double for 10^9 years.
 */
export const tierScore = (tier: number, periodStartMs: number): number => Math.floor(periodStartMs / 1000) * 64 + tier;

/** The tier of a "!tier" score. */
export const tierOfScore = (score: number): number => score % 64;

/** Every cohort of a period, from its groups' players placed ("!fill": t<tier>b<bracket> -> players), by group then index. */
export function cohortsOfGroups(league: League, groups: ReadonlyArray<{ group: string; players: number }>): Cohort[] {
  return groups.flatMap(({ group, players }) => {
    const g = parseGroupName(group);
    return g ? Array.from({ length: Math.ceil(players / league.cohortSize) }, (_, index) => ({ ...g, index })) : [];
  });
}

/** The ranks the close moves in a cohort of `size` entries of `tier`: 0 where none. */
export interface Zones {
  /** Ranks 1 to this move up. */
  promoteThrough: number;
  /** Ranks from this one to `size` move down. */
  relegateFrom: number;
}

/** The zones of a cohort of `size` entries in `tier`. */
export function zonesOf(league: League, tier: number, size: number): Zones {
  const promoteThrough = tier < league.tiers - 1 ? Math.min(league.promote, size) : 0;
  const from = Math.max(league.promote + 1, size - league.relegate + 1);
  const relegateFrom = tier > 0 && league.relegate > 0 && from <= size ? from : 0;
  return { promoteThrough, relegateFrom };
}

export type Zone = "promotion" | "stay" | "relegation";

/** Where `rank` stands in zones. */
export function zoneOf(z: Zones, rank: number): Zone {
  if (rank <= z.promoteThrough) return "promotion";
  if (z.relegateFrom > 0 && rank >= z.relegateFrom) return "relegation";
  return "stay";
}

/** The tier after the close of a player at `rank` of a cohort of `size` entries in `tier`. */
export function tierAfter(league: League, tier: number, rank: number, size: number): number {
  const zone = zoneOf(zonesOf(league, tier, size), rank);
  return zone === "promotion" ? tier + 1 : zone === "relegation" ? tier - 1 : tier;
}

/** The refusal of a placement while the period before is being settled. */
export const settlingMessage = (board: string, previous: string) =>
  `league "${board}" is settling the promotions of period ${previous} (its close): players are placed in the next period once they are written; retry shortly`;
