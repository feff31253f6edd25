import { describe, expect, it } from "vitest";
import { Deadlines } from "./deadlines.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const later = <T>(ms: number, value: T) => new Promise<T>((r) => setTimeout(() => r(value), ms));

describe("Deadlines", () => {
  it("passes through what settles in time, values and errors alike, and forgets it", async () => {
    const d = new Deadlines(5);
    await expect(d.within(later(10, "ok"), 200, () => new Error("late"))).resolves.toBe("ok");
    await expect(d.within(Promise.reject(new Error("boom")), 200, () => new Error("late"))).rejects.toThrow("boom");
    expect(d.size).toBe(0);
  });

  it("rejects what does not settle within its budget, no earlier than the budget and at most a sweep later", async () => {
    const d = new Deadlines(5);
    const t0 = performance.now();
    const err = await d.within(new Promise(() => {}), 40, () => new Error("no answer")).catch((e: Error) => e);
    const took = performance.now() - t0;
    expect((err as Error).message).toBe("no answer");
    expect(took).toBeGreaterThanOrEqual(40);
    expect(d.size).toBe(0);
  });

  it("keeps each call's own deadline when many are pending, and ignores an answer that comes after its deadline", async () => {
    const d = new Deadlines(5);
    const outcomes = await Promise.all(
      [30, 200, 60, 200].map((budget, i) =>
        d.within(later(100, `answer ${i}`), budget, () => new Error(`late ${i}`)).catch((e: Error) => e.message),
      ),
    );
    expect(outcomes).toEqual(["late 0", "answer 1", "late 2", "answer 3"]);
    await sleep(20);
    expect(d.size).toBe(0);
  });
});
