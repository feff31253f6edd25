/**
 * Rewards by rank (CloseRule.rewards): which reward each final rank of a closed period gets.
 *
 * A range covers ranks from..to, or the top p% of a period of `size` entries: ranks 1 to
 * ceil(size x p / 100). A rank covered by several ranges gets the first declared one's reward, so
 * every rewarded player gets exactly one reward. Ranks past MAX_REWARDED_RANK get none (a close
 * event stays within a Kafka record's size). resolveRewards turns the ranges into
 * ranks once per close, O(ranges); rewardAt is O(ranges) per rank.
 */
import { boardProblem } from "./validate.js";

export interface RewardRangeInput {
  reward: string;
  fromRank: bigint;
  toRank: bigint;
  topPercent: number;
}

/** The most ranges a board declares. */
export const MAX_REWARD_RANGES = 32;
/** No rank past this one is rewarded. */
export const MAX_REWARDED_RANK = 10_000;

/** What is wrong with a board's reward ranges, or undefined. */
export function rewardsProblem(ranges: readonly RewardRangeInput[]): string | undefined {
  if (ranges.length > MAX_REWARD_RANGES) return `close.rewards: at most ${MAX_REWARD_RANGES} ranges, got ${ranges.length}`;
  for (const [i, r] of ranges.entries()) {
    const at = `close.rewards[${i}]`;
    const name = boardProblem(r.reward);
    if (name) return `${at}.reward: ${name.replace(/^board/, "reward")}`;
    const byRank = r.fromRank > 0n || r.toRank > 0n;
    const byPercent = r.topPercent !== 0;
    if (byRank === byPercent) return `${at}: give from_rank (and to_rank) or top_percent, exactly one of the two`;
    if (byPercent && !(r.topPercent > 0 && r.topPercent <= 100))
      return `${at}.top_percent must be above 0 and at most 100, got ${r.topPercent}`;
    if (byRank && r.fromRank < 1n) return `${at}.from_rank must be at least 1`;
    const to = r.toRank === 0n ? r.fromRank : r.toRank;
    if (byRank && (to < r.fromRank || to > BigInt(MAX_REWARDED_RANK)))
      return `${at}.to_rank must lie within from_rank (${r.fromRank}) and ${MAX_REWARDED_RANK}, got ${r.toRank}`;
  }
  return undefined;
}

/** One range as ranks, first to last inclusive, on a period of `size` entries (empty: last < first). */
function ranksOf(r: RewardRangeInput, size: number): [number, number] {
  if (r.topPercent !== 0) return [1, Math.min(size, Math.ceil((size * r.topPercent) / 100))];
  const from = Number(r.fromRank);
  return [from, Math.min(size, Number(r.toRank === 0n ? r.fromRank : r.toRank))];
}

export interface ResolvedRewards {
  /** The last rank rewarded (0: none). */
  readonly lastRank: number;
  /** The reward of final rank `rank` (1-based), or undefined. */
  rewardAt(rank: number): string | undefined;
}

/** The ranges on a period of `size` final entries. */
export function resolveRewards(ranges: readonly RewardRangeInput[], size: number): ResolvedRewards {
  const spans = ranges.map((r) => ({ reward: r.reward, ranks: ranksOf(r, size) })).filter((s) => s.ranks[0] <= s.ranks[1]);
  const lastRank = Math.min(MAX_REWARDED_RANK, Math.max(0, ...spans.map((s) => s.ranks[1])));
  return {
    lastRank,
    rewardAt(rank) {
      if (rank < 1 || rank > lastRank) return undefined;
      return spans.find((s) => rank >= s.ranks[0] && rank <= s.ranks[1])?.reward;
    },
  };
}
