/**
 * The closed-loop driver: `concurrency` workers, each sending its next request as soon as
 * the previous one is answered, for the duration. Latency is measured from the actual
 * send. Throughput is whatever the cluster gives; a stalled server silently lowers the
 * number of requests sent (coordinated omission), so use the open loop to measure
 * latency at a given load and the closed loop to find the maximum throughput.
 */

export interface ClosedLoopDeps {
  concurrency: number;
  durationMs: number;
  /** Sends one request; `startedMs` is its send time. Resolves when it is answered. */
  send(startedMs: number): Promise<void>;
  clock(): number;
  stopped(): boolean;
  /** Clock time the duration runs from (now when absent). */
  startMs?: number;
}

export async function runClosedLoop(deps: ClosedLoopDeps): Promise<{ sent: number }> {
  const { concurrency, durationMs, send, clock } = deps;
  const end = (deps.startMs ?? clock()) + durationMs;
  let sent = 0;
  const worker = async () => {
    while (clock() < end && !deps.stopped()) {
      sent++;
      await send(clock());
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { sent };
}
