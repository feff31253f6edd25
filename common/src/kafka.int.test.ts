import { ConfigResourceTypes } from "kafkajs";
import { afterAll, describe, expect, inject, it } from "vitest";
import { freshNamespace } from "./test-namespace.js";
import { createKafka, ensureScoreTopic } from "./kafka.js";
import { silentLogger } from "./logger.js";

const kafka = createKafka(inject("kafkaBrokers"), "test-kafka", silentLogger());
const admin = kafka.admin();
afterAll(() => admin.disconnect());

describe("common > kafka > score topic", () => {
  it("is created with one partition per slot and kept forever", async () => {
    const { topic } = freshNamespace("topic");
    await ensureScoreTopic(kafka, topic, 12);
    await ensureScoreTopic(kafka, topic, 12); // idempotent
    await admin.connect();
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(meta.topics[0]!.partitions).toHaveLength(12);
    const configs = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] });
    const entries = Object.fromEntries(configs.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
    expect(entries).toMatchObject({ "retention.ms": "-1", "retention.bytes": "-1", "cleanup.policy": "delete" });
  });

  it("refuses a topic whose partition count differs from the slots", async () => {
    const { topic } = freshNamespace("topic");
    await ensureScoreTopic(kafka, topic, 4);
    await expect(ensureScoreTopic(kafka, topic, 8)).rejects.toThrow(/has 4 partitions but the cluster has 8 slots/);
  });
});
