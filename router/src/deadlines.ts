/**
 * Many deadlines, one timer. Every shard call of every request is bounded (ShardPool.call), and
 * under load thousands are pending at once: a setTimeout, a clearTimeout and a Promise.race for
 * each were a visible share of the router's time per rank (three shard calls per rank on three
 * shards). Here a call is an entry in one set, swept by one interval timer that runs only while
 * some call is pending.
 *
 * Rules and costs: a call that settles in time costs one set insertion and one deletion; a late
 * one is rejected by the first sweep after its deadline, so it fails at most `resolutionMs` late
 * (never early). A sweep visits every pending call: O(pending) every `resolutionMs`, a few
 * hundred entries at the rates this router serves. The timer is unref'd: pending calls never
 * keep a process alive.
 */
interface Pending {
  readonly at: number;
  readonly late: () => void;
}

export class Deadlines {
  private readonly pending = new Set<Pending>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly resolutionMs = 5) {}

  /** Settles as `work` does, unless `budgetMs` pass first: then rejects with `onLate()` (work's outcome is dropped). */
  within<T>(work: Promise<T>, budgetMs: number, onLate: () => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const p: Pending = { at: performance.now() + budgetMs, late: () => reject(onLate()) };
      this.pending.add(p);
      this.timer ??= setInterval(() => this.sweep(), this.resolutionMs).unref();
      work.then(
        (value) => {
          this.pending.delete(p);
          resolve(value);
        },
        (err: unknown) => {
          this.pending.delete(p);
          reject(err);
        },
      );
    });
  }

  /** How many calls are pending (for tests). */
  get size(): number {
    return this.pending.size;
  }

  private sweep(): void {
    const now = performance.now();
    for (const p of this.pending) {
      if (p.at > now) continue;
      this.pending.delete(p);
      p.late();
    }
    if (this.pending.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
