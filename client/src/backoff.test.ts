import { describe, expect, it } from "vitest";
import { backoffCeilingMs, backoffMs, DEFAULT_RETRY, NO_RETRY, pause, retryPolicy } from "./backoff.js";

describe("client > backoff", () => {
  const policy = retryPolicy({ initialBackoffMs: 100, maxBackoffMs: 1_000, multiplier: 2 });

  it("doubles the ceiling of each pause up to the largest", () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffCeilingMs(policy, n))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it("draws each pause uniformly between 0 and its ceiling (full jitter)", () => {
    expect(backoffMs(policy, 3, () => 0)).toBe(0);
    expect(backoffMs(policy, 3, () => 0.5)).toBe(200);
    expect(backoffMs(policy, 3, () => 0.999_999)).toBe(400);
    const drawn = Array.from({ length: 2_000 }, () => backoffMs(policy, 2));
    expect(Math.min(...drawn)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...drawn)).toBeLessThanOrEqual(200);
    expect(new Set(drawn).size).toBeGreaterThan(100); // spread, not one value
  });

  it("takes overrides over the defaults, false for no retry, and refuses nonsense", () => {
    expect(retryPolicy(undefined)).toEqual(DEFAULT_RETRY);
    expect(retryPolicy({ maxAttempts: 9 })).toEqual({ ...DEFAULT_RETRY, maxAttempts: 9 });
    expect(retryPolicy(false)).toBe(NO_RETRY);
    expect(NO_RETRY.maxAttempts).toBe(1);
    expect(() => retryPolicy({ maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => retryPolicy({ initialBackoffMs: 500, maxBackoffMs: 100 })).toThrow(/backoff/);
    expect(() => retryPolicy({ multiplier: 0.5 })).toThrow(/multiplier/);
    expect(() => retryPolicy({ attemptTimeoutMs: 0 })).toThrow(/attemptTimeoutMs/);
  });

  it("pauses until aborted, rejecting with the signal's reason", async () => {
    const stop = new AbortController();
    const waiting = pause(60_000, stop.signal);
    stop.abort(new Error("stopped"));
    await expect(waiting).rejects.toThrow("stopped");
    await expect(pause(1)).resolves.toBeUndefined();
  });
});
