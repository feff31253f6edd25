import { describe, expect, it } from "vitest";
import { WriteAudit } from "./write-audit.js";

const id = (i: number) => `p:${String(i).padStart(12, "0")}`;

describe("loadtest > write audit", () => {
  it("sums acknowledged increments of audited players and judges their scores: equal, lost, doubled", async () => {
    const a = new WriteAudit(2);
    a.acknowledged([
      { playerId: id(0), value: 5n },
      { playerId: id(1), value: 7n },
      { playerId: id(2), value: 1n },
    ]);
    a.acknowledged([
      { playerId: id(0), value: 3n },
      { playerId: id(4), value: 2n },
      { playerId: id(6), value: 9n },
    ]);
    const scores = new Map([
      [id(0), 8],
      [id(2), 0],
      [id(4), 4],
      [id(6), 9],
    ]);
    let clock = 0;
    const r = await a.check({
      read: async (p) => scores.get(p),
      concurrency: 2,
      settleMs: 3000,
      clock: () => clock,
      sleep: async (ms) => void (clock += ms),
    });
    expect(r).toMatchObject({ players: 4, updates: 5, lost: 1, doubled: 1, uncertain: 0, excluded: 0 });
    expect(r.examples.sort()).toEqual([`${id(2)}: read 0, expected 1`, `${id(4)}: read 4, expected 2`]);
  });

  it("waits for scores still being applied, and leaves failed calls and probed players unjudged", async () => {
    const a = new WriteAudit(1);
    a.acknowledged([
      { playerId: id(1), value: 2n },
      { playerId: id(2), value: 2n },
      { playerId: id(3), value: 2n },
    ]);
    a.failed([{ playerId: id(2) }]);
    a.exclude(id(3));
    let reads = 0;
    let clock = 0;
    const r = await a.check({
      read: async () => (++reads >= 2 ? 2 : undefined),
      concurrency: 1,
      settleMs: 10_000,
      clock: () => clock,
      sleep: async (ms) => void (clock += ms),
    });
    expect(r).toMatchObject({ players: 1, lost: 0, doubled: 0, uncertain: 1, excluded: 1, settledMs: 1000 });
  });
});
