import { describe, expect, it } from "vitest";
import { PartitionChunks } from "./partition-chunks.js";
import { rngFor } from "../../workload/rng.js";

describe("bench > boards > partition chunks", () => {
  it("hands out full chunks of one partition each, round robin, with offsets running on per partition", () => {
    const rng = rngFor(1, 0);
    let n = 0;
    const chunks = new PartitionChunks(4, 10, () => {
      const item = n++;
      return { partition: item % 4 === 3 ? 3 : rng.nextInt(3), item };
    });
    const got = Array.from({ length: 12 }, () => chunks.next());
    expect(got.map((c) => c.partition)).toEqual([0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]);
    for (const c of got) {
      expect(c.items).toHaveLength(10);
      if (c.partition === 3) expect(c.items.every((i) => i % 4 === 3)).toBe(true);
    }
    expect(got.filter((c) => c.partition === 2).map((c) => c.firstOffset)).toEqual([0n, 10n, 20n]);
    expect(chunks.offsets()).toEqual([30n, 30n, 30n, 30n]);
    // no item is handed out twice
    const all = got.flatMap((c) => c.items);
    expect(new Set(all).size).toBe(all.length);
  });

  it("continues a shard's offsets and refuses a partition out of range", () => {
    let n = 0;
    const chunks = new PartitionChunks(2, 3, () => ({ partition: n++ % 2, item: n }), [5n, 7n]);
    expect([chunks.next(), chunks.next(), chunks.next()].map((c) => [c.partition, c.firstOffset])).toEqual([
      [0, 5n],
      [1, 7n],
      [0, 8n],
    ]);
    expect(() => new PartitionChunks(2, 3, () => ({ partition: 2, item: 0 })).next()).toThrow(/out of range/);
  });
});
