import { describe, expect, it } from "vitest";
import { retryUntil, RetryExhausted } from "./backoff.js";

const fast = { initialMs: 1, maxMs: 4 };

describe("platform > backoff", () => {
  it("retries a failing attempt until it passes", async () => {
    let calls = 0;
    const value = await retryUntil(
      async () => {
        calls += 1;
        if (calls < 3) throw new Error("not yet");
        return "ready";
      },
      { ...fast, what: "thing", timeoutMs: 5000 },
    );
    expect(value).toBe("ready");
    expect(calls).toBe(3);
  });

  it("times out with the last error in the message", async () => {
    const err = await retryUntil(async () => Promise.reject(new Error("refused")), { ...fast, what: "thing", timeoutMs: 50 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RetryExhausted);
    expect((err as Error).message).toMatch(/^thing: not ready after 50 ms \(last error: refused\)$/);
  });

  it("stops at once when giveUp gives a reason", async () => {
    let calls = 0;
    await expect(
      retryUntil(
        async () => {
          calls += 1;
          throw new Error("down");
        },
        { ...fast, what: "thing", timeoutMs: 60_000, giveUp: () => (calls >= 2 ? "process exited" : undefined) },
      ),
    ).rejects.toThrow("thing: process exited (last error: down)");
    expect(calls).toBe(2);
  });
});
