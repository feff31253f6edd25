/**
 * How long the client waits before retrying a call or reconnecting a stream: exponential backoff
 * with full jitter. The pause before retry n (n = 1 for the first) is drawn uniformly in
 * [0, min(maxBackoffMs, initialBackoffMs × multiplier^(n−1))], so that many clients failing at
 * the same moment (an ingest restart) do not come back in step.
 */

export interface RetryPolicy {
  /** Attempts in all, the first included; 1 never retries. */
  readonly maxAttempts: number;
  /** The ceiling of the first pause, ms. */
  readonly initialBackoffMs: number;
  /** The largest ceiling of a pause, ms. */
  readonly maxBackoffMs: number;
  /** Each ceiling is the previous one times this. */
  readonly multiplier: number;
  /**
   * The deadline of each attempt, ms (an attempt that takes longer fails with DEADLINE_EXCEEDED
   * and is retried if the call's deadline leaves time); Infinity: each attempt may use what is
   * left of the call's deadline. A call that is never retried has its whole deadline.
   */
  readonly attemptTimeoutMs: number;
}

/**
 * The defaults: 5 attempts; pauses of up to 100 ms, 200 ms, 400 ms, 800 ms (at most 2 s each),
 * so about 0.75 s of pauses on average before the last attempt — enough for a reconnect to a
 * restarted process, short of the 10 s default deadline; attempts use the whole deadline.
 */
export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  maxAttempts: 5,
  initialBackoffMs: 100,
  maxBackoffMs: 2_000,
  multiplier: 2,
  attemptTimeoutMs: Infinity,
});

/** Never retry: one attempt. */
export const NO_RETRY: RetryPolicy = Object.freeze({ ...DEFAULT_RETRY, maxAttempts: 1 });

/** A policy from the defaults and a caller's overrides (false: NO_RETRY). Throws on values that make no sense. */
export function retryPolicy(overrides: Partial<RetryPolicy> | false | undefined, base: RetryPolicy = DEFAULT_RETRY): RetryPolicy {
  if (overrides === false) return NO_RETRY;
  const p = { ...base, ...overrides };
  if (!Number.isInteger(p.maxAttempts) || p.maxAttempts < 1)
    throw new RangeError(`retry.maxAttempts must be an integer >= 1, not ${p.maxAttempts}`);
  if (!(p.initialBackoffMs >= 0) || !(p.maxBackoffMs >= p.initialBackoffMs))
    throw new RangeError(`retry backoff must be 0 <= initialBackoffMs <= maxBackoffMs, not ${p.initialBackoffMs} and ${p.maxBackoffMs}`);
  if (!(p.multiplier >= 1)) throw new RangeError(`retry.multiplier must be >= 1, not ${p.multiplier}`);
  if (!(p.attemptTimeoutMs > 0)) throw new RangeError(`retry.attemptTimeoutMs must be > 0, not ${p.attemptTimeoutMs}`);
  return Object.freeze(p);
}

/** The ceiling of the pause before retry `n` (1-based). */
export function backoffCeilingMs(policy: RetryPolicy, n: number): number {
  return Math.min(policy.maxBackoffMs, policy.initialBackoffMs * policy.multiplier ** (n - 1));
}

/** The pause before retry `n` (1-based): uniform in [0, ceiling]; `random` in [0, 1) as Math.random. */
export function backoffMs(policy: RetryPolicy, n: number, random: () => number = Math.random): number {
  return Math.floor(random() * (backoffCeilingMs(policy, n) + 1));
}

/** Resolves after `ms`; rejects with the signal's reason as soon as `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
