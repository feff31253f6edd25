import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runOpenLoop } from "./open-loop.js";
import { timetable } from "./rate-schedule.js";

describe("loadtest > open loop", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("sends every request of the timetable at its intended time", async () => {
    const intended: number[] = [];
    const sentAt: number[] = [];
    const done = runOpenLoop({
      timetable: timetable(100, 1000),
      durationMs: 1000,
      maxInFlight: 1000,
      clock: () => Date.now(),
      stopped: () => false,
      send: async (t) => {
        intended.push(t);
        sentAt.push(Date.now());
      },
    });
    await vi.advanceTimersByTimeAsync(1100);
    const result = await done;
    expect(result).toMatchObject({ sent: 100, unsent: 0 });
    const start = intended[0]!;
    intended.forEach((t, i) => expect(t - start).toBeCloseTo(i * 10, 6));
    sentAt.forEach((t, i) => expect(t - intended[i]!).toBeLessThan(1.0001));
  });

  it("holds back past maxInFlight, then sends the backlog with its original intended times", async () => {
    const intended: number[] = [];
    const pending: Array<() => void> = [];
    const done = runOpenLoop({
      timetable: timetable(1000, 1000),
      durationMs: 1000,
      maxInFlight: 5,
      clock: () => Date.now(),
      stopped: () => false,
      send: (t) => {
        intended.push(t);
        return new Promise<void>((resolve) => pending.push(resolve));
      },
    });
    await vi.advanceTimersByTimeAsync(50);
    expect(intended).toHaveLength(5); // full
    const start = intended[0]!;
    for (const resolve of pending.splice(0)) resolve(); // five answers at t = 50
    await vi.advanceTimersByTimeAsync(0);
    expect(intended).toHaveLength(10);
    expect(intended[5]! - start).toBe(5); // request 5 was due at 5 ms: its latency will include the wait
    // answer everything from now on
    const drain = setInterval(() => pending.splice(0).forEach((r) => r()), 1);
    await vi.advanceTimersByTimeAsync(1100);
    clearInterval(drain);
    const result = await done;
    expect(result.sent + result.unsent).toBe(1000);
    expect(result.peakInFlight).toBe(5);
  });

  it("stops at the end of the duration and reports what it could not send", async () => {
    const pending: Array<() => void> = [];
    const done = runOpenLoop({
      timetable: timetable(100, 1000),
      durationMs: 1000,
      maxInFlight: 3,
      clock: () => Date.now(),
      stopped: () => false,
      send: () => new Promise<void>((resolve) => pending.push(resolve)), // nothing answers until the end
    });
    await vi.advanceTimersByTimeAsync(1000);
    for (const resolve of pending.splice(0)) resolve();
    await vi.advanceTimersByTimeAsync(10);
    expect(await done).toEqual({ sent: 3, unsent: 97, peakInFlight: 3 });
  });

  it("stops early when asked", async () => {
    let stop = false;
    const done = runOpenLoop({
      timetable: timetable(100, 10_000),
      durationMs: 10_000,
      maxInFlight: 100,
      clock: () => Date.now(),
      stopped: () => stop,
      send: async () => {},
    });
    await vi.advanceTimersByTimeAsync(95);
    stop = true;
    await vi.advanceTimersByTimeAsync(20);
    const result = await done;
    expect(result.sent).toBeGreaterThanOrEqual(10);
    expect(result.sent).toBeLessThanOrEqual(12);
  });
});
