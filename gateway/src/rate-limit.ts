/**
 * Per-client limits: a token bucket of requests and a cap on open streams.
 *
 * Each client (caller.ts: its address) has a bucket of `burst` tokens refilled at `rate` per
 * second; every API request takes one (a stream's opening too), and a request that finds the
 * bucket empty is refused (429, RESOURCE_EXHAUSTED) with the seconds until a token is back
 * (Retry-After). A client may hold at most `streams` live streams at once; one more is refused the
 * same way. A bucket that has filled up again and holds no stream is forgotten (`sweep`): it
 * would behave as a new one.
 */
export interface RateLimits {
  /** Tokens added per second. */
  rate: number;
  /** The bucket's size: requests at once. */
  burst: number;
  /** Open streams at once. */
  streams: number;
}

interface Bucket {
  tokens: number;
  /** When `tokens` was counted, ms. */
  at: number;
  streams: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limits: RateLimits,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes a token for `client`: 0 when it had one, else the whole seconds until it will (≥ 1). */
  take(client: string): number {
    const b = this.bucket(client);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.limits.rate));
  }

  /** Counts one more open stream of `client`: its release, or undefined when it holds the most already. */
  openStream(client: string): (() => void) | undefined {
    const b = this.bucket(client);
    if (b.streams >= this.limits.streams) return undefined;
    b.streams++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      b.streams--;
    };
  }

  /** Forgets the buckets that are full again and hold no stream. */
  sweep(): void {
    for (const [client, b] of this.buckets) {
      this.refill(b);
      if (b.streams === 0 && b.tokens >= this.limits.burst) this.buckets.delete(client);
    }
  }

  /** Clients remembered (for tests). */
  get size(): number {
    return this.buckets.size;
  }

  private bucket(client: string): Bucket {
    let b = this.buckets.get(client);
    if (!b) this.buckets.set(client, (b = { tokens: this.limits.burst, at: this.now(), streams: 0 }));
    else this.refill(b);
    return b;
  }

  private refill(b: Bucket): void {
    const now = this.now();
    b.tokens = Math.min(this.limits.burst, b.tokens + ((now - b.at) / 1000) * this.limits.rate);
    b.at = now;
  }
}
