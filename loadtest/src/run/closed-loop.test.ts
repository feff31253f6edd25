import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runClosedLoop } from "./closed-loop.js";

describe("loadtest > closed loop", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("keeps `concurrency` requests in flight for the duration", async () => {
    let inFlight = 0;
    let peak = 0;
    const done = runClosedLoop({
      concurrency: 4,
      durationMs: 100,
      clock: () => Date.now(),
      stopped: () => false,
      send: async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 10));
        inFlight--;
      },
    });
    await vi.advanceTimersByTimeAsync(200);
    expect(await done).toEqual({ sent: 40 });
    expect(peak).toBe(4);
  });
});
