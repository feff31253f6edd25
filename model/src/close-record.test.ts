import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { closeKey, decodePeriodClose, encodePeriodClose, newPeriodClose, StandingsChecksum } from "./close-record.js";

describe("model > close record", () => {
  it("hashes the standings as the proto says, whole or page by page", () => {
    const entries = [
      { rank: 1, playerId: "ann", score: 30, reachedAtMs: 1_796_000_000_000 },
      { rank: 2, playerId: "Bob Lee", score: 30, reachedAtMs: 1_796_000_060_000 },
      { rank: 3, playerId: "é", score: -4, reachedAtMs: 0 },
    ];
    // the oracle: the lines of PeriodClose.checksum's comment, written out by hand
    const text = "1\tann\t30\t1796000000000\n2\tBob Lee\t30\t1796000060000\n3\té\t-4\t0\n";
    const whole = new StandingsChecksum();
    whole.add(entries);
    const paged = new StandingsChecksum();
    paged.add(entries.slice(0, 2));
    paged.add(entries.slice(2));
    const want = createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");
    expect([whole.size, whole.digest(), paged.digest()]).toEqual([3, want, want]);
    expect(new StandingsChecksum().digest()).toBe(createHash("sha256").digest("hex")); // an empty board
  });

  it("refuses entries that do not continue the ranks", () => {
    const c = new StandingsChecksum();
    c.add([{ rank: 1, playerId: "a", score: 1, reachedAtMs: 0 }]);
    expect(() => c.add([{ rank: 3, playerId: "b", score: 1, reachedAtMs: 0 }])).toThrow("rank 3 where 2 comes next");
  });

  it("keys a period's event by its stored name, and round-trips it", () => {
    expect(closeKey("cup", 1796000000000n, "S3")).toBe("cup#1796000000000@S3");
    const e = newPeriodClose({
      board: "cup",
      generation: 7n,
      period: "S3",
      size: 2n,
      checksum: "ab",
      top: [{ playerId: "a", rank: 1n, score: 5n }],
    });
    expect(decodePeriodClose(encodePeriodClose(e))).toEqual(e);
  });
});
