/**
 * Many deadlines, one timer. Every shard call of every request is bounded (ShardPool.call), and
 * under load thousands are pending at once: a setTimeout, a clearTimeout and a Promise.race for
 * each were a visible share of the router's time per rank (three shard calls per rank on three
 * shards). Here a call is a node of one doubly linked list, swept by one interval timer that runs
 * only while some call is pending.
 *
 * Rules and costs: a call that settles in time costs linking and unlinking its node, O(1) and no
 * allocation beyond the node itself (a hash set here was a visible source of garbage: its tables
 * were rebuilt as calls came and went); a late one is rejected by the first sweep after its
 * deadline, so it fails at most `resolutionMs` late (never early). A sweep visits every pending
 * call: O(pending) every `resolutionMs`, a few hundred entries at the rates this router serves.
 * The timer is unref'd: pending calls never keep a process alive.
 */
class Pending {
  prev: Pending | undefined;
  next: Pending | undefined;
  /** Unlinked: settled, or rejected as late. */
  done = false;
  constructor(
    readonly at: number,
    readonly reject: (err: unknown) => void,
    readonly onLate: () => Error,
  ) {}
}

export class Deadlines {
  private head: Pending | undefined;
  private count = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly resolutionMs = 5) {}

  /** Settles as `work` does, unless `budgetMs` pass first: then rejects with `onLate()` (work's outcome is dropped). */
  within<T>(work: Promise<T>, budgetMs: number, onLate: () => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const p = new Pending(performance.now() + budgetMs, reject, onLate);
      this.link(p);
      work.then(
        (value) => {
          if (p.done) return;
          this.unlink(p);
          resolve(value);
        },
        (err: unknown) => {
          if (p.done) return;
          this.unlink(p);
          reject(err);
        },
      );
    });
  }

  /** How many calls are pending (for tests). */
  get size(): number {
    return this.count;
  }

  private link(p: Pending): void {
    p.next = this.head;
    if (this.head) this.head.prev = p;
    this.head = p;
    this.count++;
    this.timer ??= setInterval(() => this.sweep(), this.resolutionMs).unref();
  }

  private unlink(p: Pending): void {
    p.done = true;
    if (p.prev) p.prev.next = p.next;
    else this.head = p.next;
    if (p.next) p.next.prev = p.prev;
    p.prev = p.next = undefined;
    this.count--;
  }

  private sweep(): void {
    const now = performance.now();
    for (let p = this.head; p; ) {
      const next = p.next;
      if (p.at <= now) {
        this.unlink(p);
        p.reject(p.onLate());
      }
      p = next;
    }
    if (this.count === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
