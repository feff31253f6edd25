/**
 * Retrying with exponential backoff and full jitter, the one way the code base waits for
 * something: a broker or Redis coming up (the launchers), a shard applying a consistency
 * token's writes (the router), Kafka requests (kafkajs's own retry, configured from a
 * policy of this shape: @ladder/log/kafka-retry).
 *
 * The delays come from `exponential-backoff` (a small, widely used library that does only
 * this); what is added here is an overall deadline, a way to give up at once, and the
 * messages that say what was awaited.
 */
import { backOff } from "exponential-backoff";

export interface BackoffPolicy {
  /** The first pause; each next one doubles, up to `maxMs`. Pauses are drawn in [0, pause] (full jitter). */
  readonly initialMs: number;
  readonly maxMs: number;
}

/** Waiting for a process to come up (a broker, a redis-server): 100 ms doubling to 1 s. */
export const LAUNCH_BACKOFF: BackoffPolicy = Object.freeze({ initialMs: 100, maxMs: 1_000 });

/** Polling a shard for a consistency token's offsets: 2 ms doubling to 25 ms (reads wait on it). */
export const POLL_BACKOFF: BackoffPolicy = Object.freeze({ initialMs: 2, maxMs: 25 });

export interface RetryUntilOptions extends BackoffPolicy {
  /** What is awaited, for the error message, e.g. "kafka broker on 127.0.0.1:9092". */
  what: string;
  /** Overall limit, from the first attempt. */
  timeoutMs: number;
  /** Checked before each retry, with the attempt's error: a reason stops the wait at once with that reason. */
  giveUp?: (lastError: unknown) => string | undefined;
}

/** The error `retryUntil` rejects with: the wait ran out or was given up. */
export class RetryExhausted extends Error {
  constructor(
    message: string,
    readonly lastError: unknown,
  ) {
    super(message, { cause: lastError });
    this.name = "RetryExhausted";
  }
}

/**
 * Resolves with the first value `attempt` resolves with; an attempt that throws is retried
 * after a pause. Rejects with RetryExhausted (naming `what` and the last error) when the next
 * pause could end past the time limit, or with the `giveUp` reason.
 */
export async function retryUntil<T>(attempt: () => Promise<T>, o: RetryUntilOptions): Promise<T> {
  const deadline = Date.now() + o.timeoutMs;
  let stopped: string | undefined;
  try {
    return await backOff(attempt, {
      startingDelay: o.initialMs,
      maxDelay: o.maxMs,
      timeMultiple: 2,
      jitter: "full",
      numOfAttempts: Number.MAX_SAFE_INTEGER,
      retry: (err: unknown) => {
        stopped = o.giveUp?.(err);
        if (stopped === undefined && Date.now() + o.maxMs > deadline) stopped = `not ready after ${o.timeoutMs} ms`;
        return stopped === undefined;
      },
    });
  } catch (err) {
    if (stopped === undefined) throw err;
    const last = err instanceof Error ? err.message : String(err);
    throw new RetryExhausted(`${o.what}: ${stopped} (last error: ${last})`, err);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
