import { describe, expect, it } from "vitest";
import { appliedAfter, appliedSince, seededCount, watchApplied, type Offsets } from "./apply-watch.js";

const m = (entries: Array<[number, number]>): Offsets => new Map(entries.map(([p, o]) => [p, BigInt(o)]));

describe("loadtest > apply watch", () => {
  it("counts the seeded records at or below the applied offsets", () => {
    const before = m([
      [0, 10],
      [1, 0],
    ]);
    const after = m([
      [0, 20],
      [1, 5],
    ]);
    expect(appliedSince(before, after, m([]))).toBe(0);
    expect(appliedSince(before, after, m([[0, 9]]))).toBe(0); // only older records applied
    expect(
      appliedSince(
        before,
        after,
        m([
          [0, 14],
          [1, 0],
        ]),
      ),
    ).toBe(5 + 1);
    expect(
      appliedSince(
        before,
        after,
        m([
          [0, 19],
          [1, 4],
        ]),
      ),
    ).toBe(15);
    expect(
      appliedSince(
        before,
        after,
        m([
          [0, 99],
          [1, 99],
        ]),
      ),
    ).toBe(15); // later records don't count
  });

  it("counts the records produced between two sets of end offsets", () => {
    expect(
      seededCount(
        m([
          [0, 10],
          [1, 0],
        ]),
        m([
          [0, 20],
          [1, 5],
          [2, 3],
        ]),
      ),
    ).toBe(18);
  });

  it("waits until everything is applied", async () => {
    const states = [m([]), m([[0, 3]]), m([[0, 9]])];
    let now = 0;
    const seen: number[] = [];
    const ok = await watchApplied({
      before: m([[0, 0]]),
      after: m([[0, 10]]),
      read: async () => states.shift() ?? m([[0, 9]]),
      onProgress: (n) => seen.push(n),
      pollMs: 100,
      stallMs: 1000,
      sleep: async (ms) => void (now += ms),
      clock: () => now,
    });
    expect(ok).toBe(true);
    expect(seen).toEqual([0, 4, 10]);
  });

  it("gives up when nothing moves for the stall time", async () => {
    let now = 0;
    const ok = await watchApplied({
      before: m([[0, 0]]),
      after: m([[0, 10]]),
      read: async () => m([[0, 3]]),
      onProgress: () => {},
      pollMs: 100,
      stallMs: 1000,
      sleep: async (ms) => void (now += ms),
      clock: () => now,
    });
    expect(ok).toBe(false);
    expect(now).toBeGreaterThan(1000);
  });

  it("counts the records applied after the start offsets, with no end", () => {
    const start = new Map([
      [0, 10n],
      [1, 0n],
    ]);
    expect(
      appliedAfter(
        start,
        new Map([
          [0, 14n],
          [1, 2n],
          [2, 0n],
        ]),
      ),
    ).toBe(5 + 3 + 1);
    expect(appliedAfter(start, new Map([[0, 5n]]))).toBe(0);
  });
});
