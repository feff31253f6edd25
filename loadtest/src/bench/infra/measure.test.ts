import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ClosedLoopPlan } from "../plan.js";
import { latencyStats, measureClosedLoop, type Measurement } from "./measure.js";

const fakeMeter = async () => async () => ({});

/** A server answering the n-th call (0-based) after latencyMs(n), on the fake clock; it notes how many calls are in flight at each answer. */
function fakeServer(latencyMs: (n: number) => number) {
  let n = 0;
  let inFlight = 0;
  const answers: Array<{ at: number; inFlight: number }> = [];
  const send = () => {
    const latency = latencyMs(n++);
    inFlight++;
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        answers.push({ at: performance.now(), inFlight });
        inFlight--;
        resolve();
      }, latency),
    );
  };
  return { send, answers, sent: () => n };
}

async function measure(
  plan: ClosedLoopPlan,
  latencyMs: (n: number) => number,
): Promise<{ m: Measurement; t0: number; answers: Array<{ at: number; inFlight: number }> }> {
  const server = fakeServer(latencyMs);
  const t0 = performance.now();
  const done = measureClosedLoop({ plan, send: server.send, cpuMeter: fakeMeter });
  await vi.advanceTimersByTimeAsync(600_000);
  return { m: await done, t0, answers: server.answers };
}

describe("bench > closed-loop measurement", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance", "Date"] }));
  afterEach(() => vi.useRealTimers());

  it("counts the calls sent in the window: a warm-up call answered in the window is not in the figures", async () => {
    // 2 in flight, 100 ms per call, 150 ms of warm-up and 2 answers per worker. At 200 ms the first
    // worker has its 2 answers, the other 1: the first sends call 4, which takes 1 s (answered at
    // 1.2 s, inside the window), then the other gets its second answer and opens the window.
    const { m } = await measure({ concurrency: 2, warmupMs: 150, durationMs: 1000, minCalls: 1, maxDurationMs: 5000 }, (n) =>
      n === 4 ? 1000 : 100,
    );
    expect(m.warmupMs).toBe(200);
    expect(m.elapsedMs).toBe(1000);
    // the opener's calls sent at 200, 300, ... 1100 ms, and the other worker's first after its slow one,
    // at 1.2 s (the window waits for every worker to send in it)
    expect(m.calls).toBe(11);
    expect(m.latencyMs.max).toBeCloseTo(100, 0); // not 1,000
    expect(m.opsPerSec).toBe(20); // each worker's measured calls: one per 100 ms
    expect(m.windowOpsPerSec).toBe(11);
    expect(m.closedBy).toBe("duration");
  });

  it("keeps the load on until every call of the window is answered", async () => {
    const calls: Array<{ sentAt: number; answeredAt: number; inFlight: number }> = [];
    let inFlight = 0;
    const send = () => {
      const call = { sentAt: performance.now(), answeredAt: 0, inFlight: 0 };
      calls.push(call);
      inFlight++;
      return new Promise<void>((resolve) =>
        setTimeout(
          () => {
            Object.assign(call, { answeredAt: performance.now(), inFlight });
            inFlight--;
            resolve();
          },
          100 + 3 * calls.length,
        ),
      ); // no two calls sent or answered at once
    };
    const t0 = performance.now();
    const done = measureClosedLoop({
      plan: { concurrency: 4, warmupMs: 0, durationMs: 1000, minCalls: 1, maxDurationMs: 5000 },
      send,
      cpuMeter: fakeMeter,
    });
    await vi.advanceTimersByTimeAsync(60_000);
    const m = await done;
    const from = t0 + m.warmupMs;
    const counted = calls.filter((c) => c.sentAt >= from - 1e-3 && c.sentAt < from + m.elapsedMs - 1e-3);
    expect(counted).toHaveLength(m.calls);
    const lastAnswer = Math.max(...counted.map((c) => c.answeredAt));
    expect(calls.filter((c) => c.answeredAt <= lastAnswer).every((c) => c.inFlight === 4)).toBe(true);
    expect(calls.at(-1)!.answeredAt).toBeGreaterThan(lastAnswer); // uncounted calls ran past it
  });

  it("keeps a slow server's window open until it holds minCalls, up to maxDurationMs", async () => {
    // 4 in flight, 1 s per call: 4 calls a second. The workers move in step: the window opens at 2 s
    // as the last of them sends its third call, the other three having just sent theirs, uncounted.
    // Sent in it: 1 call at 2 s, 4 at 3, 4, 5 and 6 s (17, short of 18), and 1 at 7 s, when it closes:
    // 18 calls in 5 s, though the server answers 4 a second. Each worker's measured calls took 1 s
    // each, back to back: 4 per s.
    const waited = await measure({ concurrency: 4, warmupMs: 0, durationMs: 1000, minCalls: 18, maxDurationMs: 60_000 }, () => 1000);
    expect(waited.m).toMatchObject({ calls: 18, closedBy: "min calls", elapsedMs: 5000, opsPerSec: 4, windowOpsPerSec: 3.6 });
    const capped = await measure({ concurrency: 4, warmupMs: 0, durationMs: 1000, minCalls: 20, maxDurationMs: 2500 }, () => 1000);
    expect(capped.m).toMatchObject({ calls: 9, closedBy: "time cap", elapsedMs: 3000, opsPerSec: 4 });
  });
});

describe("bench > latency stats", () => {
  it("gives the median's 95% interval from order statistics", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 .. 1, unsorted
    expect(latencyStats(values)).toEqual({ mean: 50.5, p50Ci: [40, 61] });
  });

  it("gives no interval below 6 calls", () => {
    expect(latencyStats([1, 2, 3])).toEqual({ mean: 2 });
    expect(latencyStats([])).toEqual({ mean: 0 });
  });
});
