import { describe, expect, it } from "vitest";
import type { PreparedEvent } from "./prepared-event.js";
import { outliving } from "./rebuild.js";

const event = (expireAtMs: number, windows?: number[]): PreparedEvent => ({
  offset: 7n,
  part: false,
  board: "b#1@2026-12-01",
  playerId: "p",
  op: 2,
  value: 1,
  timeIdx: 0,
  maxPoints: 100,
  minPoints: 0,
  timeUnits: 1,
  ttlSeconds: 0,
  lowerIsBetter: false,
  expireAtMs,
  eventId: "",
  ingestedAtMs: 1,
  ...(windows
    ? {
        windows: {
          periodBoards: [],
          tie: 0,
          windows: [
            {
              combine: 0,
              periods: 2,
              maxPoints: 1,
              minPoints: 0,
              timeUnits: 1,
              boards: ["w0", "w1"],
              baseUnits: [0, 0],
              expireAtMs: windows,
            },
          ],
        },
      }
    : {}),
});

describe("rebuild > audit views keep past periods", () => {
  it("moves a passed expiry to the view's, keeps a later one, and never gives one to a key without", () => {
    expect(outliving(event(1_000), 5_000).expireAtMs).toBe(5_000);
    expect(outliving(event(9_000), 5_000).expireAtMs).toBe(9_000);
    expect(outliving(event(0), 5_000).expireAtMs).toBe(0);
  });

  it("does the same for the keys of the windows the event recomputes, and leaves the rest of the event as it was", () => {
    const before = event(1_000, [2_000, 8_000]);
    const after = outliving(before, 5_000);
    expect(after.windows!.windows[0]!.expireAtMs).toEqual([5_000, 8_000]);
    expect(before.windows!.windows[0]!.expireAtMs).toEqual([2_000, 8_000]); // not changed in place
    expect({ ...after, expireAtMs: 0, windows: undefined }).toEqual({ ...before, expireAtMs: 0, windows: undefined });
  });
});
