/**
 * Score histograms (BoardRules.histogram_bounds): per board key, the number of entries in each of
 * a few points buckets, kept current by the apply script (store/src/lua/apply-events.lua) and
 * summed over the shards by the router, so "where does 1,250 points stand" is answered from
 * O(buckets) numbers per shard without a sorted-set read, with a stated error.
 *
 * BUCKETS. Bounds b1 < ... < bn (each above minPoints, at most maxPoints) make n + 1 buckets in
 * points: [min, b1), [b1, b2), ..., [bn, max]. A shard stores them in sort-key order (best first:
 * highest points first unless lower is better), bucket j starting at the sort key firstKeys[j]:
 * an entry's bucket is the greatest j with firstKeys[j] <= its key. The time bits of a key never
 * cross a bucket, as buckets are whole points ranges. A SUM window's encoding (windows.ts) has a
 * wider points range: the same bounds, its first and last buckets wider.
 *
 * APPROXIMATE RANK. For points p in bucket j: the exact rank of an entry with p lies in
 * [1 + the entries of buckets before j, that + the entries of bucket j (+ 1 for a score not held)];
 * the estimate adds the share of bucket j's entries that the points above p (below, lower is
 * better) take of its points range, as if spread evenly.
 */
import type { BoardSpec } from "./board-spec.js";

/** Bucket bounds a board may have at most (so at most 256 buckets). */
export const MAX_HISTOGRAM_BOUNDS = 255;

type Encoding = Pick<BoardSpec, "minPoints" | "maxPoints" | "timeUnits" | "lowerIsBetter">;

/** What is wrong with a board's histogram bounds, or undefined. */
export function histogramProblem(spec: Encoding, bounds: readonly number[]): string | undefined {
  if (bounds.length > MAX_HISTOGRAM_BOUNDS)
    return `histogram_bounds has ${bounds.length} bounds, more than ${MAX_HISTOGRAM_BOUNDS} (MAX_HISTOGRAM_BOUNDS)`;
  for (let i = 0; i < bounds.length; i++) {
    const b = bounds[i]!;
    if (!Number.isSafeInteger(b) || b <= spec.minPoints || b > spec.maxPoints)
      return `histogram_bounds: ${b} is not within (${spec.minPoints}, ${spec.maxPoints}]`;
    if (i > 0 && b <= bounds[i - 1]!) return "histogram_bounds must be strictly ascending";
  }
  return undefined;
}

/** The points ranges of the buckets, ascending: [min, b1 - 1], [b1, b2 - 1], ..., [bn, max]. */
export function pointsBuckets(spec: Encoding, bounds: readonly number[]): Array<{ min: number; max: number }> {
  const starts = [spec.minPoints, ...bounds];
  return starts.map((min, i) => ({ min, max: i + 1 < starts.length ? starts[i + 1]! - 1 : spec.maxPoints }));
}

/** The sort key each bucket starts at, in sort-key order (what a shard stores: bucket j = firstKeys[j]). */
export function firstKeys(spec: Encoding, bounds: readonly number[]): number[] {
  const buckets = pointsBuckets(spec, bounds);
  if (spec.lowerIsBetter) return buckets.map((b) => (b.min - spec.minPoints) * spec.timeUnits);
  return buckets.reverse().map((b) => (spec.maxPoints - b.max) * spec.timeUnits);
}

/** The points range of stored bucket j (sort-key order): O(1). */
export function bucketOfStored(spec: Encoding, bounds: readonly number[], j: number): { min: number; max: number } {
  const i = spec.lowerIsBetter ? j : bounds.length - j; // its index in ascending points order
  return { min: i === 0 ? spec.minPoints : bounds[i - 1]!, max: i < bounds.length ? bounds[i]! - 1 : spec.maxPoints };
}

/** The stored bucket (sort-key order) that holds points `p` (within the board's range): O(log buckets). */
export function storedBucketOf(spec: Encoding, bounds: readonly number[], p: number): number {
  let lo = 0; // the number of bounds <= p, by binary search: p's index in ascending points order
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (bounds[mid]! <= p) lo = mid + 1;
    else hi = mid;
  }
  return spec.lowerIsBetter ? lo : bounds.length - lo;
}

/** A shard's (or the sum of the shards') counts around one stored bucket. */
export interface BucketCounts {
  /** Entries in the stored buckets before it (better points). */
  better: number;
  /** Entries in the bucket itself. */
  inBucket: number;
}

export interface ApproximateRank {
  estimate: number;
  atLeast: number;
  atMost: number;
  /** The stored (sort-key order) bucket of the points. */
  bucket: number;
}

/** The counts around stored bucket j of the counts of every stored bucket (sort-key order). */
export function countsAround(counts: readonly number[], j: number): BucketCounts {
  let better = 0;
  for (let i = 0; i < j; i++) better += counts[i]!;
  return { better, inBucket: counts[j] ?? 0 };
}

/**
 * Where points `p` stand, from the summed counts around p's stored bucket (storedBucketOf); `held`:
 * an entry with these points is one of the counts (a player asked), else one more would be.
 */
export function approximateRank(
  spec: Encoding,
  bounds: readonly number[],
  { better, inBucket }: BucketCounts,
  p: number,
  held: boolean,
): ApproximateRank {
  const j = storedBucketOf(spec, bounds, p);
  const r = bucketOfStored(spec, bounds, j);
  const width = r.max - r.min + 1;
  const ahead = spec.lowerIsBetter ? p - r.min : r.max - p; // points of the bucket that rank before p
  const share = Math.floor((inBucket * ahead) / width);
  const atMost = better + inBucket + (held ? 0 : 1);
  return { estimate: Math.min(atMost, better + share + 1), atLeast: better + 1, atMost, bucket: j };
}
