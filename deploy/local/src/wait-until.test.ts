import { describe, expect, it } from "vitest";
import { waitUntil } from "./wait-until.js";

describe("deploy > wait until", () => {
  it("retries a failing attempt until it passes", async () => {
    let calls = 0;
    const value = await waitUntil(async () => {
      calls += 1;
      if (calls < 3) throw new Error("not yet");
      return "ready";
    }, { what: "thing", timeoutMs: 5000, initialDelayMs: 1 });
    expect(value).toBe("ready");
    expect(calls).toBe(3);
  });

  it("times out with the last error in the message", async () => {
    await expect(waitUntil(async () => Promise.reject(new Error("refused")), { what: "thing", timeoutMs: 50, initialDelayMs: 5 }))
      .rejects.toThrow(/thing: not ready after 50 ms \(last error: refused\)/);
  });

  it("stops at once when giveUp gives a reason", async () => {
    let calls = 0;
    await expect(waitUntil(async () => {
      calls += 1;
      throw new Error("down");
    }, { what: "thing", timeoutMs: 60_000, initialDelayMs: 1, giveUp: () => (calls >= 2 ? "process exited" : undefined) }))
      .rejects.toThrow("thing: process exited");
    expect(calls).toBe(2);
  });
});
