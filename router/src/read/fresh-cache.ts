/**
 * A read cache with a staleness bound, shared by the router's caches (the top pages, top-cache.ts;
 * the histograms, queries.ts).
 *
 * THE BOUND. A request that arrives at time T is answered from a value whose read started at or
 * after T - maxAgeMs, or it waits for one: it joins a read under way if that began no earlier than
 * T - maxAgeMs, or starts one. A value thus shows what the read saw at instants no earlier than
 * maxAgeMs before the request arrived; what a read guarantees within that (e.g. every shard at one
 * instant) is the reader's business.
 *
 * FAILURES. A read that fails fails the requests waiting for it with its error and leaves nothing
 * behind: a value past its bound is never served instead. At most `maxKeys` keys are kept; the least
 * recently asked goes first.
 *
 * Costs: a hit is a map lookup and a clock read; a read is shared by every request that arrives
 * while it runs.
 */

export interface FreshCacheOptions<V> {
  maxAgeMs: number;
  /** Reads the value of `key` (bounded by the reader's own timeouts: it serves many callers). */
  read: (key: string) => Promise<V>;
  /** Bounds one caller's wait for a read by its own deadline (ms since epoch, Infinity: none). */
  wait: <T>(read: Promise<T>, deadlineMs: number) => Promise<T>;
  maxKeys?: number;
  /** Counts each request's outcome: hit (a fresh value), joined (a read under way), refreshed (started one). */
  count?: (outcome: "hit" | "joined" | "refreshed") => void;
  now?: () => number;
}

/** A value and when its read started (on the cache's clock). */
export interface Fresh<V> {
  readonly startedAt: number;
  readonly value: V;
}

export class FreshCache<V> {
  readonly maxAgeMs: number;
  private readonly o: Required<Omit<FreshCacheOptions<V>, "count">> & Pick<FreshCacheOptions<V>, "count">;
  private readonly entries = new Map<string, Fresh<V>>();
  private readonly reads = new Map<string, { startedAt: number; done: Promise<Fresh<V>> }>();

  constructor(o: FreshCacheOptions<V>) {
    this.o = { maxKeys: 1000, now: () => performance.now(), ...o };
    this.maxAgeMs = o.maxAgeMs;
  }

  /** The value of `key` as read no earlier than maxAgeMs before this call (see above). */
  async get(key: string, deadlineMs: number): Promise<Fresh<V>> {
    const found = this.fresh(key, this.o.now());
    return found instanceof Promise ? this.o.wait(found, deadlineMs) : found;
  }

  /** How many keys are kept. */
  get size(): number {
    return this.entries.size;
  }

  private fresh(key: string, arrived: number): Fresh<V> | Promise<Fresh<V>> {
    const oldest = arrived - this.maxAgeMs;
    const entry = this.entries.get(key);
    if (entry && entry.startedAt >= oldest) {
      this.entries.delete(key); // most recently asked last
      this.entries.set(key, entry);
      this.o.count?.("hit");
      return entry;
    }
    const running = this.reads.get(key);
    if (running && running.startedAt >= oldest) {
      this.o.count?.("joined");
      return running.done;
    }
    this.o.count?.("refreshed");
    return this.refresh(key);
  }

  private refresh(key: string): Promise<Fresh<V>> {
    const startedAt = this.o.now();
    const done = this.o
      .read(key)
      .then((value) => {
        const entry: Fresh<V> = { startedAt, value };
        const kept = this.entries.get(key);
        if (!kept || kept.startedAt < startedAt) {
          this.entries.delete(key);
          this.entries.set(key, entry);
          if (this.entries.size > this.o.maxKeys) this.entries.delete(this.entries.keys().next().value!);
        }
        return entry;
      })
      .finally(() => {
        if (this.reads.get(key)?.done === done) this.reads.delete(key);
      });
    this.reads.set(key, { startedAt, done });
    return done;
  }
}
