import { describe, expect, it } from "vitest";
import { activePlayers, playerId } from "./player-ids.js";
import { rngFor } from "./rng.js";

describe("loadtest > player ids", () => {
  it("pads the index to 12 digits after p:", () => {
    expect(playerId(123456)).toBe("p:000000123456");
    expect(playerId(0)).toBe("p:000000000000");
    expect(playerId(999_999_999_999)).toBe("p:999999999999");
  });

  it("refuses indexes outside the 12 digits", () => {
    expect(() => playerId(-1)).toThrow(RangeError);
    expect(() => playerId(1e12)).toThrow(RangeError);
    expect(() => playerId(1.5)).toThrow(RangeError);
  });

  it("chooses players inside the space, the hottest far more often than most", () => {
    const chooser = activePlayers(1e9, 1, 99);
    const rng = rngFor(5);
    const counts = new Map<number, number>();
    let outside = 0;
    for (let i = 0; i < 50_000; i++) {
      const p = chooser.nextIndex(rng);
      if (!(p >= 0 && p < 1e9)) outside++;
      counts.set(p, (counts.get(p) ?? 0) + 1);
    }
    expect(outside).toBe(0);
    const hottest = Math.max(...counts.values());
    expect(hottest / 50_000).toBeGreaterThan(0.03); // rank 1 takes ~4.7%
    expect(counts.size).toBeGreaterThan(20_000); // and the tail is long
  });
});
