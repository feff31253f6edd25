import { describe, expect, it } from "vitest";
import { rebuildTable } from "./rebuild-bench.js";

const run = (shards: number, eventIds: boolean, perSec: number) => ({
  shards,
  eventIds,
  records: 1000,
  replaySeconds: 1000 / perSec,
  replayPerSec: perSec,
  firstRecordSeconds: 0.5,
  callSeconds: 2,
  viewPlayers: 1000,
  viewDedupEntries: eventIds ? 1000 : 0,
});

describe("bench > writes > rebuild table", () => {
  it("lists each replay with its rate against the same shards without ids, then the seeding of each topic", () => {
    const seeded = [{ topic: "t", eventIds: false, records: 1000, seconds: 0.25, perSec: 4000, logBytes: 1 }];
    const t = rebuildTable(seeded, [run(1, false, 500), run(1, true, 400)]);
    expect(t.rows).toEqual([
      ["1 shard (all 64 partitions)", "no", "1,000", "500", "—", "2.00", "0.50", "2.00", "1,000", "0"],
      ["1 shard (all 64 partitions)", "yes (dedup path)", "1,000", "400", "0.8x", "2.50", "0.50", "2.00", "1,000", "1,000"],
      ["(seeding the topic: seeder's Kafka path)", "no", "1,000", "4,000", "—", "0.25", "—", "—", "—", "—"],
    ]);
  });
});
