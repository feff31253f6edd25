/**
 * The measured window of a loadtest run, and which calls it counts.
 *
 * A run sends load for `--warmup`, then for `--duration`. The window is
 * [start + warmup, start + warmup + duration), cut short at the moment sending stops early
 * (Ctrl-C). A call counts when it was SENT in the window: for the open loop, its intended
 * time in the timetable (the time its latency is measured from); for the closed loop, its
 * actual send. A counted call counts however late it is answered (the run waits for every
 * call in flight, and its latency is its own); a call sent during the warm-up never
 * counts, however late it is answered. Rates are counted calls per second of the window:
 * in the open loop, the timetable's rate when every request of it went out; in the
 * closed loop each answer sends the next call, so calls sent per second are calls
 * answered per second. (Counted by answer, the warm-up's slowest calls would get in.)
 */
export class MeasuredWindow {
  private stoppedAtMs: number | undefined;

  /** The window [fromMs, untilMs) on the run's clock. */
  constructor(
    readonly fromMs: number,
    private readonly plannedUntilMs: number,
  ) {}

  /** Whether a call sent at `sentMs` is in the run's figures. */
  counts(sentMs: number): boolean {
    return sentMs >= this.fromMs && sentMs < this.untilMs;
  }

  /** Sending stopped early at `ms` (Ctrl-C): the window ends there, if not before. */
  stopAt(ms: number): void {
    this.stoppedAtMs ??= ms;
  }

  get untilMs(): number {
    return Math.min(this.plannedUntilMs, this.stoppedAtMs ?? Infinity);
  }

  /** The window's length: what rates are per (0 when sending stopped during the warm-up). */
  get lengthMs(): number {
    return Math.max(0, this.untilMs - this.fromMs);
  }
}
