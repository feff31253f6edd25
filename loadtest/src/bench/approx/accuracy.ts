/**
 * Whether the approximate ranks hold, and what they give up, for the approx benchmark: each
 * answer checked against what another read of the same board at rest says (GetHistogram against
 * GetCount, GetApproximateRank's bounds against GetRank's exact rank and GetCount of the points
 * around it; the list is in approx.md, "Checked before measuring"), and each answer's bound width
 * (rank_at_most − rank_at_least + 1) and estimate error (|rank_estimate − exact|, and ÷ exact).
 */

export interface Bucket {
  min: number;
  max: number;
  count: number;
}

/** A GetApproximateRank answer, as numbers. */
export interface ApproxAnswer {
  estimate: number;
  atLeast: number;
  atMost: number;
  total: number;
  score: number;
  bucket: Bucket;
}

/** One player asked every way on one board. */
export interface RankSample {
  playerId: string;
  /** GetRank's rank and points. */
  exact: number;
  points: number;
  byPlayer: ApproxAnswer;
  byScore: ApproxAnswer;
  /** GetCount(min_score = points + 1) and GetCount(min_score = points). */
  above: number;
  atOrAbove: number;
}

/** What is wrong with a GetHistogram answer: `counted[i]` is GetCount over expected[i]'s points range. */
export function histogramProblems(
  buckets: readonly Bucket[],
  total: number,
  expected: ReadonlyArray<{ min: number; max: number }>,
  players: number,
  counted: readonly number[],
): string[] {
  const out: string[] = [];
  if (buckets.length !== expected.length) out.push(`${buckets.length} buckets, the bounds make ${expected.length}`);
  expected.forEach((e, i) => {
    const b = buckets[i];
    if (b && (b.min !== e.min || b.max !== e.max)) out.push(`bucket ${i}: [${b.min}, ${b.max}], the bounds make [${e.min}, ${e.max}]`);
    if (b && b.count !== counted[i])
      out.push(`bucket ${i} [${e.min}, ${e.max}]: ${b.count} entries, GetCount over its points counts ${counted[i]}`);
  });
  const sum = buckets.reduce((s, b) => s + b.count, 0);
  if (sum !== total) out.push(`the buckets sum to ${sum}, the total is ${total}`);
  if (total !== players) out.push(`total ${total}, ${players} players seeded`);
  return out;
}

/** Points p by the histogram alone: the entries of the buckets above p's, and p's bucket. */
export function fromHistogram(buckets: readonly Bucket[], p: number): { better: number; bucket: Bucket | undefined } {
  const bucket = buckets.find((b) => p >= b.min && p <= b.max);
  return { better: buckets.filter((b) => b.min > p).reduce((s, b) => s + b.count, 0), bucket };
}

const sameBucket = (a: Bucket, b: Bucket | undefined) => b !== undefined && a.min === b.min && a.max === b.max && a.count === b.count;

/** What is wrong with one player's answers (see the essay), against the board's histogram. */
export function sampleProblems(s: RankSample, histogram: readonly Bucket[], players: number): string[] {
  const out: string[] = [];
  const who = `${s.playerId} (${s.points} points, rank ${s.exact})`;
  const p = s.byPlayer;
  const q = s.byScore;
  if (!(s.above < s.exact && s.exact <= s.atOrAbove))
    out.push(`${who}: GetCount counts ${s.above} entries with more points and ${s.atOrAbove} with at least as many`);
  if (p.score !== s.points) out.push(`${who}: by player_id, ${p.score} points`);
  for (const [how, a] of [
    ["by player_id", p],
    ["by score", q],
  ] as const) {
    if (a.total !== players) out.push(`${who}: ${how}, total ${a.total}, ${players} players seeded`);
    if (!(a.atLeast <= a.estimate && a.estimate <= a.atMost))
      out.push(`${who}: ${how}, estimate ${a.estimate} outside [${a.atLeast}, ${a.atMost}]`);
  }
  if (!(p.atLeast <= s.exact && s.exact <= p.atMost))
    out.push(`${who}: by player_id, bounds [${p.atLeast}, ${p.atMost}] do not hold the exact rank`);
  const h = fromHistogram(histogram, s.points);
  if (p.atLeast !== h.better + 1 || p.atMost !== h.better + (h.bucket?.count ?? NaN) || !sameBucket(p.bucket, h.bucket)) {
    out.push(
      `${who}: by player_id, [${p.atLeast}, ${p.atMost}] in [${p.bucket.min}, ${p.bucket.max}] (${p.bucket.count}); the histogram: ${h.better} entries in better buckets, ${h.bucket?.count} in [${h.bucket?.min}, ${h.bucket?.max}]`,
    );
  }
  if (
    q.score !== s.points ||
    q.atLeast !== p.atLeast ||
    q.atMost !== p.atMost + 1 ||
    q.estimate !== p.estimate ||
    !sameBucket(q.bucket, p.bucket)
  ) {
    out.push(
      `${who}: by score, [${q.atLeast}, ${q.atMost}] estimate ${q.estimate} in [${q.bucket.min}, ${q.bucket.max}] (${q.bucket.count}); by player_id [${p.atLeast}, ${p.atMost}] estimate ${p.estimate} in [${p.bucket.min}, ${p.bucket.max}] (${p.bucket.count})`,
    );
  }
  if (!(q.atLeast <= s.above + 1 && s.atOrAbove + 1 <= q.atMost))
    out.push(`${who}: by score, [${q.atLeast}, ${q.atMost}] do not hold a new entry's ranks ${s.above + 1}..${s.atOrAbove + 1}`);
  return out;
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
  /** rank_at_most − rank_at_least + 1. */
  width: Pcts;
  /** |rank_estimate − exact|. */
  absError: Pcts;
  /** |rank_estimate − exact| ÷ exact. */
  relError: Pcts;
}

export function accuracy(
  samples: ReadonlyArray<{ exact: number; answer: Pick<ApproxAnswer, "estimate" | "atLeast" | "atMost"> }>,
): Accuracy {
  const err = samples.map((s) => Math.abs(s.answer.estimate - s.exact));
  return {
    n: samples.length,
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
