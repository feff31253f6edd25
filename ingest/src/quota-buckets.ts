/**
 * Token buckets for write quotas (model/src/write-quota.ts), in one ingest process's memory.
 *
 * A bucket holds up to `burst` tokens and gains `perSecond` of them each second; it starts full.
 * A batch asks several buckets at once (its players', its token's, on the cluster and on each
 * board it names) for a count each, and `take` is all or nothing: either every bucket had its
 * count and all are taken, or none is touched and the answer is the milliseconds until every
 * bucket would have it (the longest wait among those short). A count above a bucket's burst
 * never fits: callers refuse such a batch before asking.
 *
 * The limit is passed with every ask, not kept: a board's quota changed by UpdateBoard applies
 * from the next batch on (a bucket above a lowered burst is cut down to it). A bucket that has
 * filled up again is the same as a new one, so `take` forgets those every SWEEP_MS (one pass
 * over the map); memory is one small object per player and token that wrote within the time a
 * bucket takes to fill.
 *
 * Each ingest process has buckets of its own: behind N processes, a caller spread over all of
 * them may reach N times a rate. Nothing is shared between processes.
 */
import type { Limit } from "@ladder/model/write-quota";

/** How often full buckets are forgotten. */
export const SWEEP_MS = 10_000; // 10 s

/** One ask of a batch: `count` tokens of the bucket `key`, which has `limit`. */
export interface Ask {
  readonly key: string;
  readonly limit: Limit;
  readonly count: number;
}

interface Bucket {
  tokens: number;
  /** When `tokens` was counted, ms. */
  at: number;
  limit: Limit;
}

export class QuotaBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private sweptAt: number;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.sweptAt = now();
  }

  /**
   * Takes every ask's count, or none: 0 when taken, else the whole milliseconds (>= 1) until all
   * would fit, and the ask that waits longest.
   */
  take(asks: readonly Ask[]): { retryAfterMs: 0 } | { retryAfterMs: number; ask: Ask } {
    const now = this.now();
    if (now - this.sweptAt >= SWEEP_MS) this.sweep(now);
    let longest: { retryAfterMs: number; ask: Ask } | undefined;
    const found = asks.map((ask) => {
      const b = this.bucket(ask, now);
      if (b.tokens < ask.count) {
        // less 1 ns against float noise (1.0000000000000009 ms is 1 ms)
        const ms = Math.max(1, Math.ceil(((ask.count - b.tokens) / ask.limit.perSecond) * 1000 - 1e-6));
        if (!longest || ms > longest.retryAfterMs) longest = { retryAfterMs: ms, ask };
      }
      return b;
    });
    if (longest) return longest;
    asks.forEach((ask, i) => {
      found[i]!.tokens -= ask.count;
    });
    return { retryAfterMs: 0 };
  }

  /** Buckets remembered (for tests). */
  get size(): number {
    return this.buckets.size;
  }

  private bucket(ask: Ask, now: number): Bucket {
    let b = this.buckets.get(ask.key);
    if (!b) {
      b = { tokens: ask.limit.burst, at: now, limit: ask.limit };
      this.buckets.set(ask.key, b);
      return b;
    }
    b.limit = ask.limit;
    refill(b, now);
    return b;
  }

  private sweep(now: number): void {
    this.sweptAt = now;
    for (const [key, b] of this.buckets) {
      refill(b, now);
      if (b.tokens >= b.limit.burst) this.buckets.delete(key);
    }
  }
}

function refill(b: Bucket, now: number): void {
  b.tokens = Math.min(b.limit.burst, b.tokens + ((now - b.at) / 1000) * b.limit.perSecond);
  b.at = now;
}
