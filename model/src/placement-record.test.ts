import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { PlacementRecordSchema } from "@ladder/proto/leaderboard/v1/events_pb";
import { buildPlacement } from "./placement.js";
import { decodePlacement, encodePlacement, movedSlots, placementOf } from "./placement-record.js";

const shards = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `shard-${i}`, redisUrl: `redis://127.0.0.1:${7001 + i}` }));

describe("placement log > records", () => {
  it("decodes what it encodes: epoch, shards with their addresses, and the same table", () => {
    const p = placementOf(7, shards(3), 64, 1_796_000_000_000);
    const back = decodePlacement(encodePlacement(p), 64);
    expect({ epoch: back.epoch, shards: back.shards, writtenAtMs: back.writtenAtMs }).toEqual({
      epoch: 7,
      shards: shards(3),
      writtenAtMs: 1_796_000_000_000,
    });
    expect(back.placement.slotToShard).toEqual(p.placement.slotToShard);
    expect(back.placement.slotsOf).toEqual(p.placement.slotsOf);
  });

  it("refuses a record of another number of slots, and a table naming no listed shard", () => {
    const p = placementOf(1, shards(3), 64);
    expect(() => decodePlacement(encodePlacement(p), 16)).toThrow(/64 slots, not 16/);
    const bad = toBinary(
      PlacementRecordSchema,
      create(PlacementRecordSchema, { epoch: 2n, shards: [{ id: "shard-0", redisUrl: "redis://x:1" }], slotToShard: [0, 5] }),
    );
    expect(() => decodePlacement(bad, 2)).toThrow(/names no shard/);
  });
});

describe("placement log > moves", () => {
  it("moves only the slots whose owner changes: a fair share to a shard added, a removed shard's to the others", () => {
    // 3 -> 4 -> 5 -> 4 shards over 64 slots: each step moves about 1/N of the slots, a few between old shards
    const steps = [shards(3), shards(4), shards(5), shards(4)].map((s) =>
      buildPlacement(
        s.map((x) => x.id),
        64,
      ),
    );
    const sizes = steps.map((p) => [...p.slotsOf.values()].map((s) => s.length));
    expect(sizes.map((s) => [Math.min(...s), Math.max(...s)])).toEqual([
      [21, 22],
      [16, 16],
      [12, 13],
      [16, 16],
    ]);
    const moved = steps.slice(1).map((p, i) => movedSlots(steps[i]!, p));
    expect(moved.map((m) => m.length)).toEqual([16, 16, 16]);
    expect(moved[0]!.every((m) => m.to === "shard-3")).toBe(true); // 3 -> 4: only to the new shard
    expect(moved[2]!.filter((m) => m.from === "shard-4")).toHaveLength(13); // 5 -> 4: all of the removed shard's
    for (const [i, m] of moved.entries())
      for (const x of m) expect(steps[i]!.slotToShard[x.slot]).not.toBe(steps[i + 1]!.slotToShard[x.slot]);
  });
});
