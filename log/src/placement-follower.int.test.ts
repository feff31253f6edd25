// The placement topic on the run's broker (test/global-setup.ts): a tool's one read of the cluster's
// placement (readPlacement, the seeder's) finds the newest placement a service published, writes
// nothing, creates nothing, and refuses one it cannot use.
import { afterAll, describe, expect, inject, it } from "vitest";
import { placementOf } from "@ladder/model/placement-record";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { silentLogger } from "@ladder/platform/logger";
import { createKafka, topicOffsets } from "./kafka.js";
import { LogClient } from "./log-client.js";
import { followPlacement, PlacementUnusable, placementTopicOf, readPlacement } from "./placement-follower.js";

const log = silentLogger();
const kafka = createKafka(inject("kafkaBrokers"), "test-placement", log);
const client = LogClient.wrap(kafka);
await client.admin.connect();
afterAll(() => client.close());

const shardsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `shard-${i}`, redisUrl: `redis://127.0.0.1:${7001 + i}` }));
const seedOf = (scoreTopic: string, numSlots: number) => ({
  scoreTopic,
  numSlots,
  shards: shardsOf(3),
  topicReplication: 1,
  topicMinInsync: 1,
  fetchWaitMs: 200,
});

describe("log > placement > readPlacement", () => {
  it("finds no placement and creates no topic before any process wrote one", async () => {
    const { topic } = freshNamespace("placement");
    expect(await readPlacement(seedOf(topic, 12), client, log)).toBeUndefined();
    expect(await client.admin.listTopics()).not.toContain(placementTopicOf(topic));
  });

  it("reads the newest placement published, not LADDER_SHARDS, and writes nothing", async () => {
    const { topic } = freshNamespace("placement");
    const seed = seedOf(topic, 12);
    const service = await followPlacement(seed, client, log); // the first service: epoch 1 from its three shards
    try {
      expect((await readPlacement(seed, client, log))?.shards.map((s) => s.id)).toEqual(["shard-0", "shard-1", "shard-2"]);
      await service.publish(placementOf(2, shardsOf(4), 12)); // a fourth shard added
      const [end] = await topicOffsets(client.admin, placementTopicOf(topic));
      const read = await readPlacement(seed, client, log); // its own LADDER_SHARDS still names three
      expect(read?.epoch).toBe(2);
      expect(read?.shards).toEqual(shardsOf(4));
      expect(read?.placement.slotToShard).toEqual(service.current.placement.slotToShard);
      expect(new Set(read?.placement.slotToShard)).toEqual(new Set(["shard-0", "shard-1", "shard-2", "shard-3"]));
      expect((await topicOffsets(client.admin, placementTopicOf(topic)))[0]?.high).toBe(end?.high);
    } finally {
      await service.stop();
    }
  });

  it("refuses a placement of another number of slots, naming it", async () => {
    const { topic } = freshNamespace("placement");
    const service = await followPlacement(seedOf(topic, 12), client, log);
    await service.stop();
    await expect(readPlacement(seedOf(topic, 16), client, log)).rejects.toThrow(PlacementUnusable);
    await expect(readPlacement(seedOf(topic, 16), client, log)).rejects.toThrow("a placement of 12 slots, not 16 (LADDER_SLOTS)");
  });
});
