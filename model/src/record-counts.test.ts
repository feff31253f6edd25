import { describe, expect, it } from "vitest";
import { slotOf } from "./placement.js";
import { recordCountBucket } from "./record-counts.js";

describe("recordCountBucket", () => {
  it("is stable, within range, and the same for the same id", () => {
    for (const id of ["a", "player-1", "ünïcode", "x".repeat(300)]) {
      const b = recordCountBucket(id, 1024);
      expect(b).toBeGreaterThanOrEqual(0);
      expect(b).toBeLessThan(1024);
      expect(recordCountBucket(id, 1024)).toBe(b);
    }
    expect(recordCountBucket("anyone", 1)).toBe(0);
  });

  it("spreads one slot's players over all of its buckets", () => {
    // the players of slot 5 of 64: with the slot's own hash their buckets would share its low bits
    const counts = new Array<number>(256).fill(0);
    let players = 0;
    for (let i = 0; players < 256 * 40; i++) {
      const id = `p${i}`;
      if (slotOf(id, 64) !== 5) continue;
      players++;
      counts[recordCountBucket(id, 256)]!++;
    }
    expect(Math.min(...counts)).toBeGreaterThan(15); // 40 expected each
    expect(Math.max(...counts)).toBeLessThan(70);
  });
});
