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
 */
import type { ProbeStats } from "../model/loadtest-result.js";
import type { LagOptions, WriteOp } from "./options.js";

export interface ProbeDeps {
  /** The player's score as a read sees it, or undefined when it has none. */
  read(playerId: string): Promise<number | undefined>;
  /** Called with each measured lag, ms. */
  onLag(lagMs: number): void;
  clock(): number;
  sleep(ms: number): Promise<void>;
}

interface Probe {
  accepted: Set<number>;
  superseded: boolean;
}

export class FreshnessProbe {
  readonly stats: ProbeStats = { started: 0, seen: 0, timedOut: 0, superseded: 0, writeFailed: 0, polls: 0, pollErrors: 0 };
  private readonly active = new Map<string, Probe>();
  private readonly running = new Set<Promise<void>>();
  private lastClaimMs = -Infinity;

  constructor(private readonly options: LagOptions, private readonly deps: ProbeDeps) {}

  /** Whether the next write of `playerId` should carry a probe; if so it is reserved. */
  claim(playerId: string): boolean {
    if (this.options.everyMs <= 0 || this.active.size >= this.options.maxProbes || this.active.has(playerId)) return false;
    const now = this.deps.clock();
    if (now - this.lastClaimMs < this.options.everyMs) return false;
    this.lastClaimMs = now;
    this.active.set(playerId, { accepted: new Set(), superseded: false });
    return true;
  }

  /** Tells the probes about a write to `playerId` (any write, probed or not). */
  noteWrite(playerId: string, op: WriteOp, value: number): void {
    const probe = this.active.get(playerId);
    if (!probe) return;
    if (op === "inc") probe.superseded = true;
    else probe.accepted.add(value);
  }

  /** The probed write (a SET of `value`) was acknowledged at `ackMs`: starts waiting for it. */
  start(playerId: string, value: number, ackMs: number): void {
    const probe = this.active.get(playerId);
    if (!probe) return;
    probe.accepted.add(value);
    this.stats.started++;
    const run = this.watch(playerId, probe, ackMs).finally(() => {
      this.active.delete(playerId);
      this.running.delete(run);
    });
    this.running.add(run);
  }

  /** The probed write failed. */
  abandon(playerId: string): void {
    if (this.active.delete(playerId)) this.stats.writeFailed++;
  }

  /** Probes waiting now. */
  get inFlight(): number {
    return this.running.size;
  }

  /** Waits for every started probe to see its write, time out or be superseded. */
  async drain(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }

  private async watch(playerId: string, probe: Probe, ackMs: number): Promise<void> {
    const { pollMs, timeoutMs } = this.options;
    const { read, clock, sleep, onLag } = this.deps;
    for (;;) {
      if (probe.superseded) {
        this.stats.superseded++;
        return;
      }
      this.stats.polls++;
      const score = await read(playerId).catch(() => {
        this.stats.pollErrors++;
        return undefined;
      });
      const now = clock();
      if (score !== undefined && probe.accepted.has(score)) {
        this.stats.seen++;
        onLag(Math.max(0, now - ackMs));
        return;
      }
      if (now - ackMs >= timeoutMs) {
        this.stats.timedOut++;
        return;
      }
      await sleep(pollMs);
    }
  }
}
