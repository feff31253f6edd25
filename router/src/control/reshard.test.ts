import { describe, expect, it } from "vitest";
import { placementOf } from "@ladder/model/placement-record";
import { plan } from "./reshard.js";

const shards = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `shard-${i}`, redisUrl: `redis://127.0.0.1:${7001 + i}` }));
const from = placementOf(4, shards(3), 64);
const config = { numSlots: 64, sentinels: ["127.0.0.1:7201", "127.0.0.1:7202"] };

describe("reshard > plan", () => {
  it("adds and removes shards at the next epoch, keeping the others' addresses", () => {
    const next = plan(from, [{ id: "shard-9", redisUrl: "redis://127.0.0.1:7009" }], ["shard-1"], config);
    expect(next.epoch).toBe(5);
    expect(next.shards).toEqual([shards(3)[0], shards(3)[2], { id: "shard-9", redisUrl: "redis://127.0.0.1:7009" }]);
    expect([...next.placement.slotsOf.keys()].sort()).toEqual(["shard-0", "shard-2", "shard-9"]);
  });

  it("expands a short sentinel:// address with this router's Sentinels", () => {
    const next = plan(from, [{ id: "shard-3", redisUrl: "sentinel://ladder-shard-3" }], [], config);
    expect(next.shards.at(-1)!.redisUrl).toBe("sentinel://127.0.0.1:7201,127.0.0.1:7202/ladder-shard-3");
  });

  it("refuses what makes no sense, naming it", () => {
    const refused = (add: Array<{ id: string; redisUrl: string }>, remove: string[]) => {
      try {
        plan(from, add, remove, config);
        return "planned";
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(refused([], [])).toMatch(/at least one shard/);
    expect(refused([{ id: "shard-1", redisUrl: "redis://h:1" }], [])).toMatch(/already in the placement \(epoch 4\)/);
    expect(refused([{ id: "bad id", redisUrl: "redis://h:1" }], [])).toMatch(/add\[0\]\.id/);
    expect(
      refused(
        [
          { id: "x", redisUrl: "redis://h:1" },
          { id: "x", redisUrl: "redis://h:2" },
        ],
        [],
      ),
    ).toMatch(/added twice/);
    expect(refused([{ id: "x", redisUrl: "http://h:1" }], [])).toMatch(/add\[0\]\.redis_url/);
    expect(refused([], ["shard-7"])).toMatch(/not in the placement/);
    expect(refused([], ["shard-0", "shard-0"])).toMatch(/removed twice/);
    expect(refused([], ["shard-0", "shard-1", "shard-2"])).toMatch(/leaves no shard/);
  });
});
