import { describe, expect, it } from "vitest";
import { InFlightLimit } from "./in-flight-limit.js";

const tick = () => new Promise((r) => setTimeout(r, 1));

describe("loadtest > in-flight limit", () => {
  it("never runs more than the limit at once, and runs everything", async () => {
    const limit = new InFlightLimit(3);
    let running = 0;
    let peak = 0;
    let done = 0;
    for (let i = 0; i < 20; i++) {
      await limit.run(async () => {
        peak = Math.max(peak, ++running);
        await tick();
        running--;
        done++;
      });
    }
    await limit.drain();
    expect(peak).toBe(3);
    expect(done).toBe(20);
  });

  it("rethrows the first failure", async () => {
    const limit = new InFlightLimit(2);
    await limit.run(() => Promise.reject(new Error("boom")));
    await expect(limit.drain()).rejects.toThrow("boom");
  });
});
