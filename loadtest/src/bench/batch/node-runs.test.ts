import { describe, expect, it } from "vitest";
import { inFlight, setRate, timeReps } from "./node-runs.js";

describe("bench > batch > node runs", () => {
  it("runs n calls with at most k in flight, answers in call order", async () => {
    let now = 0;
    let most = 0;
    const done = await inFlight(10, 3, async (i) => {
      most = Math.max(most, ++now);
      await new Promise((r) => setTimeout(r, (10 - i) % 4));
      now--;
      return i * 2;
    });
    expect(done).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
    expect(most).toBe(3);
    let one = 0;
    await inFlight(4, 1, async () => expect(++one - 1).toBeLessThan(4));
    expect(await inFlight(2, 100, async (i) => i)).toEqual([0, 1]);
    expect(await inFlight(0, 5, async (i) => i)).toEqual([]);
  });

  it("times units one after another", async () => {
    let t = 0;
    const order: number[] = [];
    const ms = await timeReps(
      3,
      async (rep) => {
        order.push(rep);
        t += 10 * (rep + 1);
      },
      () => t,
    );
    expect(order).toEqual([0, 1, 2]);
    expect(ms).toEqual([10, 20, 30]);
  });

  it("adds the times of different calls into the rate of sets of them", () => {
    expect(setRate([100, 100])).toBe(50);
    expect(setRate([1000, 250])).toBeCloseTo(200);
    expect(setRate([100, 0])).toBeNaN();
    expect(setRate([])).toBeNaN();
  });
});
