/**
 * What the approximate ranks give up, for the approx benchmark: each sampled player's
 * GetApproximateRank answers against GetRank's exact rank on the same board at rest, as bound
 * widths (rank_at_most − rank_at_least + 1), estimate errors (|rank_estimate − exact|, and ÷
 * exact) and how many bounds held the exact rank. Whether the histograms are right is the
 * integration tests' business (test/reads.int.test.ts, "histograms and approximate
 * ranks"); this only measures.
 */

/** A GetApproximateRank answer, as numbers. */
export interface ApproxAnswer {
  estimate: number;
  atLeast: number;
  atMost: number;
}

/** One player asked on one board: GetRank's rank and points, GetApproximateRank by player and by its points. */
export interface RankSample {
  playerId: string;
  exact: number;
  points: number;
  byPlayer: ApproxAnswer;
  byScore: ApproxAnswer;
}

/** p50, p90, p99 (nearest rank) and the max. */
export interface Pcts {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function percentiles(xs: readonly number[]): Pcts {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] ?? NaN;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: s.at(-1) ?? NaN };
}

export interface Accuracy {
  n: number;
  /** Answers whose bounds hold the exact rank. */
  held: number;
  /** rank_at_most − rank_at_least + 1. */
  width: Pcts;
  /** |rank_estimate − exact|. */
  absError: Pcts;
  /** |rank_estimate − exact| ÷ exact. */
  relError: Pcts;
}

export function accuracy(samples: ReadonlyArray<{ exact: number; answer: ApproxAnswer }>): Accuracy {
  const err = samples.map((s) => Math.abs(s.answer.estimate - s.exact));
  return {
    n: samples.length,
    held: samples.filter((s) => s.answer.atLeast <= s.exact && s.exact <= s.answer.atMost).length,
    width: percentiles(samples.map((s) => s.answer.atMost - s.answer.atLeast + 1)),
    absError: percentiles(err),
    relError: percentiles(err.map((e, i) => e / samples[i]!.exact)),
  };
}

/** Ranks at which accuracy is shown by depth: 1, 10, 100, ... below the board's size, its middle and its last. */
export function depthRanks(players: number): number[] {
  const out = new Set<number>();
  for (let r = 1; r < players; r *= 10) out.add(r);
  out.add(Math.max(1, Math.floor(players / 2)));
  out.add(players);
  return [...out].sort((a, b) => a - b);
}
