// Polls a readiness check with exponential backoff and jitter until it passes, a deadline passes, or
// the thing being waited for is known to be gone (e.g. the process exited).

export interface WaitUntilOptions {
  /** What is awaited, for the timeout message, e.g. "kafka broker on 127.0.0.1:9092". */
  what: string;
  /** Overall deadline. */
  timeoutMs: number;
  /** First pause between attempts; doubles up to `maxDelayMs`. */
  initialDelayMs?: number; // default 100 ms
  maxDelayMs?: number; // default 1 s
  /** Checked before each attempt: a reason string stops the wait at once with that reason. */
  giveUp?: () => string | undefined;
}

/**
 * Resolves with the first value `attempt` returns; an attempt that throws is retried. Rejects with the
 * last attempt's error in the message on timeout, or with the `giveUp` reason.
 */
export async function waitUntil<T>(attempt: () => Promise<T>, opts: WaitUntilOptions): Promise<T> {
  const { what, timeoutMs, initialDelayMs = 100, maxDelayMs = 1000, giveUp = () => undefined } = opts;
  const deadline = Date.now() + timeoutMs;
  let delayMs = initialDelayMs;
  let lastError: unknown;
  for (;;) {
    const reason = giveUp();
    if (reason !== undefined) throw new Error(`${what}: ${reason}`, { cause: lastError });
    try {
      return await attempt();
    } catch (err) {
      lastError = err;
    }
    if (Date.now() + delayMs > deadline) {
      const last = lastError instanceof Error ? lastError.message : String(lastError);
      throw new Error(`${what}: not ready after ${timeoutMs} ms (last error: ${last})`, { cause: lastError });
    }
    await sleep(delayMs * (0.5 + Math.random() / 2));
    delayMs = Math.min(delayMs * 2, maxDelayMs);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
