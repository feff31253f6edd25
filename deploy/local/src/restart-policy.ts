// When the local launcher starts a process again after it died (supervisor.ts): exponential backoff,
// one RestartBackoff per process. The first pause is `initialMs`; each death or failed start that
// follows doubles it, up to `maxMs`; a process that stayed up `healthyAfterMs` has its next pause
// start from `initialMs` again. No jitter: these are one machine's own processes, nothing else
// restarts in step with them, and a fixed schedule is what the logs and `cli status` can explain.
//
// The clock is injected (tests drive it by hand); the policy is passed in, never read from the
// environment.

export interface RestartPolicy {
  /** The pause before the first restart after a death. */
  readonly initialMs: number;
  /** The longest pause: doubling stops here. */
  readonly maxMs: number;
  /** A process up this long counts as healthy: the pause before its next restart is `initialMs` again. */
  readonly healthyAfterMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = Object.freeze({
  initialMs: 1_000, // 1 s
  maxMs: 30_000, // 30 s: 1, 2, 4, 8, 16, 30, 30, ... s while it keeps dying
  healthyAfterMs: 60_000, // 1 min up resets the pause to 1 s
});

export class RestartBackoff {
  /** Deaths and failed starts since the process was last healthy. */
  private failures = 0;
  private upSince: number | undefined;

  constructor(
    private readonly policy: RestartPolicy,
    private readonly now: () => number = Date.now,
  ) {
    if (!(policy.initialMs > 0 && policy.maxMs >= policy.initialMs && policy.healthyAfterMs >= 0)) {
      throw new Error(`restart policy: need 0 < initialMs <= maxMs and healthyAfterMs >= 0, got ${JSON.stringify(policy)}`);
    }
  }

  /** The process is up (started, or started again). */
  up(): void {
    this.upSince = this.now();
  }

  /** The process died: how long to wait before starting it again. */
  died(): number {
    if (this.upSince !== undefined && this.now() - this.upSince >= this.policy.healthyAfterMs) this.failures = 0;
    this.upSince = undefined;
    return this.next();
  }

  /** A start did not bring it up: how long to wait before the next one. */
  startFailed(): number {
    return this.next();
  }

  private next(): number {
    const pause = Math.min(this.policy.maxMs, this.policy.initialMs * 2 ** Math.min(this.failures, 52));
    this.failures++;
    return pause;
  }
}
