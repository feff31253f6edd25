/**
 * Freshness lag: how long after ingest acknowledged a write a plain read sees it.
 *
 * Now and then (at most once per `everyMs`, at most `maxProbes` at once) a write batch
 * carries a probe: its last update is made a SET of a known value. From the moment the
 * batch is acknowledged, the probe polls GetRank for that player every `pollMs` until the
 * reported score is the written value; the lag is the time from the acknowledgement to the
 * read that showed it (so it is exact to about one poll interval plus one read).
 *
 * The same player may be written again before the probe sees its value. A later SET or
 * BEST of v makes v an acceptable sight too (the probe's write must have been applied for
 * it to show, since one player's updates apply in log order); a later INCREMENT makes
 * the outcome unknowable, and the probe is dropped as superseded. A probe that sees
 * nothing within `timeoutMs` is counted as timed out, its lag unknown (it is NOT recorded
 * as timeoutMs: the histogram holds measured lags only).
 *
 * A probe belongs to its write: it is in the run's figures (its lag in the totals, its
 * fate in `stats`) when its write was sent in the measured window (`counts`, see
 * measured-window.ts); the lag of every probe still goes to `onLag`, for the time series.
 */
import type { ProbeStats } from "../model/loadtest-result.js";
import type { LagOptions, WriteOp } from "./options.js";

export interface ProbeDeps {
  /** The player's score as a read sees it, or undefined when it has none. */
  read(playerId: string): Promise<number | undefined>;
  /** Called with each measured lag, ms, and the send time of the probe's write. */
  onLag(lagMs: number, writeSentMs: number): void;
  /** Whether a probe whose write was sent at `writeSentMs` is in the figures (all when absent). */
  counts?(writeSentMs: number): boolean;
  clock(): number;
  sleep(ms: number): Promise<void>;
}

interface Probe {
  accepted: Set<number>;
  superseded: boolean;
  /** Send time of the probe's write. */
  writeSentMs: number;
  /** Whether it is in `stats`. */
  counted: boolean;
}

export class FreshnessProbe {
  /** The probes whose write was sent in the measured window. */
  readonly stats: ProbeStats = { started: 0, seen: 0, timedOut: 0, superseded: 0, writeFailed: 0, polls: 0, pollErrors: 0 };
  private readonly uncounted: ProbeStats = { ...this.stats }; // the warm-up's probes: reported nowhere
  private readonly active = new Map<string, Probe>();
  private readonly running = new Set<Promise<void>>();
  private lastClaimMs = -Infinity;

  constructor(
    private readonly options: LagOptions,
    private readonly deps: ProbeDeps,
  ) {}

  /** Whether the next write of `playerId` should carry a probe; if so it is reserved. */
  claim(playerId: string): boolean {
    if (this.options.everyMs <= 0 || this.active.size >= this.options.maxProbes || this.active.has(playerId)) return false;
    const now = this.deps.clock();
    if (now - this.lastClaimMs < this.options.everyMs) return false;
    this.lastClaimMs = now;
    this.active.set(playerId, { accepted: new Set(), superseded: false, writeSentMs: now, counted: true });
    return true;
  }

  /** Tells the probes about a write to `playerId` (any write, probed or not). */
  noteWrite(playerId: string, op: WriteOp, value: number): void {
    const probe = this.active.get(playerId);
    if (!probe) return;
    if (op === "inc") probe.superseded = true;
    else probe.accepted.add(value);
  }

  /** The probed write (a SET of `value`, sent at `writeSentMs`) was acknowledged at `ackMs`: starts waiting for it. */
  start(playerId: string, value: number, ackMs: number, writeSentMs: number): void {
    const probe = this.active.get(playerId);
    if (!probe) return;
    probe.accepted.add(value);
    probe.writeSentMs = writeSentMs;
    probe.counted = this.deps.counts?.(writeSentMs) ?? true;
    this.statsOf(probe).started++;
    const run = this.watch(playerId, probe, ackMs).finally(() => {
      this.active.delete(playerId);
      this.running.delete(run);
    });
    this.running.add(run);
  }

  /** The probed write (sent at `writeSentMs`) failed. */
  abandon(playerId: string, writeSentMs: number): void {
    if (!this.active.delete(playerId)) return;
    ((this.deps.counts?.(writeSentMs) ?? true) ? this.stats : this.uncounted).writeFailed++;
  }

  /** Waits for every started probe to see its write, time out or be superseded. */
  async drain(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }

  private async watch(playerId: string, probe: Probe, ackMs: number): Promise<void> {
    const { pollMs, timeoutMs } = this.options;
    const { read, clock, sleep, onLag } = this.deps;
    const stats = this.statsOf(probe);
    for (;;) {
      if (probe.superseded) {
        stats.superseded++;
        return;
      }
      stats.polls++;
      const score = await read(playerId).catch(() => {
        stats.pollErrors++;
        return undefined;
      });
      const now = clock();
      if (score !== undefined && probe.accepted.has(score)) {
        stats.seen++;
        onLag(Math.max(0, now - ackMs), probe.writeSentMs);
        return;
      }
      if (now - ackMs >= timeoutMs) {
        stats.timedOut++;
        return;
      }
      await sleep(pollMs);
    }
  }

  private statsOf(probe: Probe): ProbeStats {
    return probe.counted ? this.stats : this.uncounted;
  }
}
