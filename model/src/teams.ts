/**
 * Team boards: a board whose entries are teams (clans, guilds, countries), each team's points kept
 * from its members' points on another board, the source (BoardRules.team). These are the rules;
 * the apply script keeps memberships and contributions (store/src/lua/includes/apply-teams.lua),
 * ingest takes memberships, a router's team deriver carries each member's points to its team.
 *
 * WHERE THINGS LIVE. A member's points are its entry on the source board, on the member's shard
 * (its partition: murmur3 of the player id). Its team is a membership record (IngestService.SetTeam)
 * in that same partition, so a membership takes effect in order with the member's writes; the shard
 * keeps it in "<team board key>!team" ("<player>\n<team>") and the teams it left in "!left". A team
 * is an entry of the team board placed like a player, by its id: on the shard of the team's
 * partition, which holds its members' contributions ("!m:<team>": member -> points, "!v:<team>":
 * member -> the offset they were read at) and, with SUM, their sum ("!sum": team -> sum).
 *
 * DERIVED RECORDS. The two are joined through the log. A router's team deriver reads the score log
 * (a Kafka consumer group: each partition read by one router at a time), and for each record that
 * can change a member's contribution (a write to a source board, a membership, an erasure, a
 * moderation of a source board) waits until the member's shard applied it, reads the member's team,
 * the teams it left and its points there in one atomic read with the partition's applied offset X,
 * and writes a contribution record (ScoreEvent.team_contribution: team, member, points, as_of X) to
 * the team's partition, and a "left" one to each team it left. Only then does it commit its position
 * in the consumer group. The team's shard applies a contribution only when X is above the as_of it
 * holds for that member: the points read at X are the member's state at X, so a later read is never
 * replaced by an earlier one, and a contribution written twice (a deriver that died before
 * committing, two derivers during a rebalance) changes nothing. A replay or a rebuild of the team's
 * shard applies the same records in the same order: the same totals. A rebuild of a member's shard
 * changes no offset, so nothing of the teams.
 *
 * WHAT IS EXACT. Every team's points are exactly the combination of its members' contributions as
 * the team's shard holds them, and reads of the team board are exact as of that (the board is an
 * ordinary board: top, rank, around, pages, GetRanks). The contributions trail the members' own
 * writes by the deriver's lag (the log's records to read and one read of the member's shard per
 * batch): once the log is quiet and the deriver caught up, every team equals the sum (or best k) of
 * its members' points, as an oracle computes it.
 *
 * COSTS. A write to a source board: one more read of the member's shard per deriver batch, and one
 * record per team concerned. A team's update: two ZSCOREs, two ZADDs and a ZINCRBY (SUM) or a range
 * of best_k (BEST), then the team's entry as any SET. Memory: about 100 bytes per member on the
 * team's shard, and 60 per membership on the member's shard. A team's points saturate at the team
 * board's points range.
 */
/** The most members a BEST team counts. */
export const MAX_BEST_K = 1000;

export type TeamCombine = "sum" | "best";

/** A team board's rules, resolved. */
export interface Team {
  source: string;
  combine: TeamCombine;
  /** With "best": how many members count; 0 with "sum". */
  bestK: number;
}

/** What is wrong with a requested team rule (its own fields), or undefined. */
export function teamRuleProblem(r: { source: string; combine: TeamCombine; bestK: number }): string | undefined {
  if (r.source === "") return "team.source: name the board whose entries are the members' points";
  if (r.combine === "best" && (!Number.isInteger(r.bestK) || r.bestK < 1 || r.bestK > MAX_BEST_K))
    return `team.best_k must be 1 to ${MAX_BEST_K} with TEAM_COMBINE_BEST, got ${r.bestK}`;
  if (r.combine === "sum" && r.bestK !== 0) return `team.best_k is only for TEAM_COMBINE_BEST, got ${r.bestK}`;
  return undefined;
}
