/**
 * At most `limit` promises outstanding: `run` waits for room before starting the next
 * task. The first failure is rethrown by the next `run` or by `drain`.
 */
export class InFlightLimit {
  private readonly pending = new Set<Promise<unknown>>();
  private failure: unknown;

  constructor(private readonly limit: number) {}

  async run(task: () => Promise<unknown>): Promise<void> {
    while (this.pending.size >= this.limit) await Promise.race(this.pending);
    this.check();
    const p: Promise<unknown> = task()
      .catch((err: unknown) => {
        this.failure ??= err;
      })
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** Waits for every task; throws the first failure. */
  async drain(): Promise<void> {
    await Promise.all([...this.pending]);
    this.check();
  }

  private check(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}
