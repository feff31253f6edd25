import { ConfigResourceTypes } from "kafkajs";
import { afterAll, describe, expect, inject, it } from "vitest";
import { LAUNCH_BACKOFF, retryUntil } from "@ladder/platform/backoff";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { createKafka, ensureScoreTopic, ScoreTopicInvalid, ScoreTopicMissing, scoreTopicSpec } from "./kafka.js";
import { TopicIds } from "./topic-ids.js";
import { LogClient } from "./log-client.js";
import { silentLogger } from "@ladder/platform/logger";

const kafka = createKafka(inject("kafkaBrokers"), "test-kafka", silentLogger());
const admin = kafka.admin();
const client = LogClient.wrap(kafka);
const topicIds = new TopicIds(inject("kafkaBrokers"), "test-topic-ids");
afterAll(async () => {
  await admin.disconnect();
  await topicIds.close();
});

async function configsOf(topic: string): Promise<Record<string, string>> {
  const configs = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] });
  return Object.fromEntries(configs.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
}

describe("log > kafka > score topic", () => {
  it("is created with one partition per slot, kept forever, min.insync.replicas = replication - 1 (at least 1)", async () => {
    const { topic } = freshNamespace("topic");
    const info = await ensureScoreTopic(client, { topic, numSlots: 12 }, { create: true });
    expect(info).toEqual({ replication: 1, minInsyncReplicas: 1, created: true }); // one broker here
    expect(await ensureScoreTopic(client, { topic, numSlots: 12 }, { create: true })).toMatchObject({ created: false }); // idempotent
    await admin.connect();
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(meta.topics[0]!.partitions).toHaveLength(12);
    expect(await configsOf(topic)).toMatchObject({
      "retention.ms": "-1",
      "retention.bytes": "-1",
      "cleanup.policy": "delete",
      "min.insync.replicas": "1",
    });
  });

  it("is not created by a caller that may not create it", async () => {
    const { topic } = freshNamespace("topic");
    await expect(ensureScoreTopic(client, { topic, numSlots: 4 }, { create: false })).rejects.toBeInstanceOf(ScoreTopicMissing);
    await admin.connect();
    expect(await admin.listTopics()).not.toContain(topic);
  });

  it("refuses a topic whose partition count differs from the slots", async () => {
    const { topic } = freshNamespace("topic");
    await ensureScoreTopic(client, { topic, numSlots: 4 }, { create: true });
    await expect(ensureScoreTopic(client, { topic, numSlots: 8 }, { create: false })).rejects.toThrow(
      /has 4 partitions but the cluster has 8 slots/,
    );
  });

  it("refuses an existing topic weaker than configured, listing every difference", async () => {
    const { topic } = freshNamespace("topic");
    await admin.connect();
    const weak = scoreTopicSpec(topic, 4, 1, 1);
    weak.configEntries = [
      { name: "retention.ms", value: "604800000" },
      { name: "cleanup.policy", value: "compact" },
    ];
    await admin.createTopics({ topics: [weak], waitForLeaders: true });
    const err = await ensureScoreTopic(client, { topic, numSlots: 4, replication: 1, minInsyncReplicas: 2 }, { create: false }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ScoreTopicInvalid);
    expect((err as ScoreTopicInvalid).problems).toEqual([
      "min.insync.replicas 1 is below the configured 2",
      "retention.ms is 604800000, not -1 (forever): the log must keep every record to rebuild shards",
      "cleanup.policy is compact, not delete (compaction would drop score changes)",
    ]);
    // and a replication above what exists
    await expect(ensureScoreTopic(client, { topic, numSlots: 4, replication: 3 }, { create: false })).rejects.toThrow(
      /replication 1 is below the configured 3/,
    );
  });

  it("has a topic id that changes when the topic is deleted and created again", async () => {
    const { topic } = freshNamespace("topic");
    await ensureScoreTopic(client, { topic, numSlots: 2 }, { create: true });
    const first = await topicIds.idOf(topic);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(await topicIds.idOf(topic)).toBe(first);
    await admin.connect();
    await admin.deleteTopics({ topics: [topic] });
    await retryUntil(async () => expect(await topicIds.idOf(topic)).toBeUndefined(), {
      ...LAUNCH_BACKOFF,
      what: "topic deleted",
      timeoutMs: 15_000,
    });
    await ensureScoreTopic(client, { topic, numSlots: 2 }, { create: true });
    const second = await topicIds.idOf(topic);
    expect(second).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).not.toBe(first);
  });
});
