// kafkajs 2.2.4 (2023) against Kafka 4.1.1 (which dropped old protocol versions, KIP-896): every
// client API the cluster relies on, run against a real broker: the run's shared one (test/global-setup.ts).
import { randomBytes } from "node:crypto";
import {
  type Admin,
  CompressionTypes,
  ConfigResourceTypes,
  type Consumer,
  Kafka,
  type KafkaMessage,
  logLevel,
  Partitioners,
} from "kafkajs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTopic as createTopicWaitingForLeaders } from "./kafka.js";
import { KAFKA_BACKOFF, kafkaRetry } from "./kafka-retry.js";

const name = (what: string): string => `interop-${what}-${randomBytes(4).toString("hex")}`;

describe("log > kafkajs with kafka 4.1.1", () => {
  let kafka: Kafka;
  let admin: Admin;

  beforeAll(async () => {
    kafka = new Kafka({
      clientId: "ladder-int-test",
      brokers: inject("kafkaBrokers"),
      logLevel: logLevel.ERROR,
      retry: kafkaRetry(KAFKA_BACKOFF, 8),
    });
    admin = kafka.admin();
    await admin.connect();
  }, 300_000);

  afterAll(async () => {
    await admin?.disconnect();
  });

  // kafkajs's createTopics with waitForLeaders, then our wait past its one gap: right after a create, a broker
  // may answer UNKNOWN_TOPIC_OR_PARTITION, which kafkajs throws instead of retrying (seen in CI here;
  // log/src/kafka.ts createTopic says more)
  async function createTopic(topic: string, numPartitions: number, configEntries: { name: string; value: string }[] = []) {
    expect(await createTopicWaitingForLeaders(admin, { topic, numPartitions, configEntries })).toBe(true);
  }

  function producer(extra: Parameters<Kafka["producer"]>[0] = {}) {
    return kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner, ...extra });
  }

  it("admin creates topics with configs, describes and alters them, adds partitions, deletes", async () => {
    const topic = name("admin");
    await createTopic(topic, 3, [
      { name: "retention.ms", value: "-1" },
      { name: "cleanup.policy", value: "delete" },
    ]);
    expect(await admin.listTopics()).toContain(topic);
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(meta.topics[0]?.partitions).toHaveLength(3);

    const describe1 = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ["retention.ms", "cleanup.policy"] }],
      includeSynonyms: false,
    });
    const entries = Object.fromEntries(describe1.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
    expect(entries).toEqual({ "retention.ms": "-1", "cleanup.policy": "delete" });

    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: "retention.ms", value: "86400000" }] }],
    });
    // the broker takes the change from the metadata log after acknowledging it: asked at once, it
    // may answer the value before it for a moment
    const retention = async () =>
      (
        await admin.describeConfigs({
          resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ["retention.ms"] }],
          includeSynonyms: false,
        })
      ).resources[0]!.configEntries[0]!.configValue;
    await expect.poll(retention, { timeout: 10_000, interval: 100 }).toBe("86400000");

    await admin.createPartitions({ topicPartitions: [{ topic, count: 4 }] });
    expect((await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]?.partitions).toHaveLength(4);

    await admin.deleteTopics({ topics: [topic] });
    // the controller has deleted it; the broker's metadata, which listTopics reads, follows in its own time
    await expect.poll(() => admin.listTopics(), { timeout: 30_000, interval: 200 }).not.toContain(topic);
  });

  it("an idempotent producer (acks -1, gzip, headers, sendBatch) round-trips through a consumer group", async () => {
    const topic = name("produce");
    const other = name("produce-other");
    await createTopic(topic, 3);
    await createTopic(other, 1);
    const p = producer();
    await p.connect();
    const first = await p.send({
      topic,
      acks: -1,
      compression: CompressionTypes.GZIP,
      messages: Array.from({ length: 20 }, (_, i) => ({ key: `k${i % 5}`, value: `v${i}`, headers: { seq: String(i) } })),
    });
    expect(first.every((r) => r.errorCode === 0)).toBe(true);
    await p.sendBatch({
      acks: -1,
      topicMessages: [
        { topic, messages: [{ key: "k0", value: "batch" }] },
        { topic: other, messages: [{ value: "other" }] },
      ],
    });
    await p.disconnect();

    const c = kafka.consumer({ groupId: name("group") });
    await c.connect();
    await c.subscribe({ topics: [topic, other], fromBeginning: true });
    const got = await consumeCount(c, 22);
    const fromTopic = got.filter((r) => r.message.headers?.seq !== undefined);
    expect(fromTopic).toHaveLength(20);
    expect(fromTopic.map((r) => Number(r.message.headers!.seq!.toString())).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    // One key, one partition: order within a key is the send order.
    const partitionOfKey = new Map<string, Set<number>>();
    for (const r of got) {
      const key = r.message.key?.toString();
      if (key === undefined) continue;
      partitionOfKey.set(key, (partitionOfKey.get(key) ?? new Set()).add(r.partition));
    }
    for (const parts of partitionOfKey.values()) expect(parts.size).toBe(1);
  });

  it("two consumers of one group share the partitions; manual commits show in fetchOffsets", async () => {
    const topic = name("group");
    const groupId = name("group");
    await createTopic(topic, 3);
    const p = producer();
    await p.connect();
    await p.send({ topic, acks: -1, messages: Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, value: `${i}` })) });
    await p.disconnect();

    const assigned = new Map<string, number>();
    const consumers: Consumer[] = [];
    const seen = new Set<string>();
    for (const id of ["a", "b"]) {
      // kafkajs rejoins a rebalancing group only between fetches: a short fetch wait keeps it quick.
      const c = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 500 });
      c.on(c.events.GROUP_JOIN, (e) => {
        assigned.set(id, Object.values(e.payload.memberAssignment).flat().length);
      });
      await c.connect();
      await c.subscribe({ topic, fromBeginning: true });
      await c.run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          seen.add(message.value!.toString());
          await c.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
        },
      });
      consumers.push(c);
    }
    await waitFor(() => assigned.size === 2 && assigned.get("a")! + assigned.get("b")! === 3 && seen.size === 30, 30_000);
    expect(assigned.get("a")).toBeGreaterThan(0);
    expect(assigned.get("b")).toBeGreaterThan(0);

    const described = await admin.describeGroups([groupId]);
    expect(described.groups[0]?.state).toBe("Stable");
    expect(described.groups[0]?.members).toHaveLength(2);
    expect((await admin.listGroups()).groups.map((g) => g.groupId)).toContain(groupId);
    await waitFor(async () => sumOffsets(await admin.fetchOffsets({ groupId, topics: [topic] })) === 30, 10_000);

    for (const c of consumers) await c.disconnect();
    // With the group empty, offsets can be moved by the admin client and the group deleted.
    await admin.resetOffsets({ groupId, topic, earliest: true });
    expect(sumOffsets(await admin.fetchOffsets({ groupId, topics: [topic] }))).toBe(0);
    await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: "1" }] });
    const after = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(after[0]!.partitions.find((x) => x.partition === 0)!.offset).toBe("1");
    await admin.deleteGroups([groupId]);
    expect((await admin.listGroups()).groups.map((g) => g.groupId)).not.toContain(groupId);
  });

  it("offsets by timestamp, deleteRecords and seek work", async () => {
    const topic = name("offsets");
    await createTopic(topic, 1, [{ name: "retention.ms", value: "-1" }]);
    const p = producer();
    await p.connect();
    const before = Date.now();
    await p.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ value: `${i}` })) });
    await p.disconnect();

    const ends = await admin.fetchTopicOffsets(topic);
    expect(ends[0]).toMatchObject({ partition: 0, low: "0", high: "10" });
    const byTime = await admin.fetchTopicOffsetsByTimestamp(topic, before - 1000);
    expect(byTime[0]?.offset).toBe("0");

    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: "4" }] });
    expect((await admin.fetchTopicOffsets(topic))[0]).toMatchObject({ low: "4", high: "10" });

    const c = kafka.consumer({ groupId: name("seek"), maxWaitTimeInMs: 500 });
    await c.connect();
    await c.subscribe({ topic, fromBeginning: true });
    const values: string[] = [];
    await c.run({ eachMessage: async ({ message }) => void values.push(message.value!.toString()) });
    c.seek({ topic, partition: 0, offset: "7" });
    await waitFor(() => values.includes("9"), 20_000);
    await c.disconnect();
    expect(values[0]).toBe("7");
  });

  it("transactions: committed messages are read, aborted ones are not; sendOffsets commits", async () => {
    const topic = name("txn");
    const groupId = name("txn-group");
    await createTopic(topic, 1);
    const p = kafka.producer({
      transactionalId: name("txn-id"),
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await p.connect();
    const aborted = await p.transaction();
    await aborted.send({ topic, messages: [{ value: "aborted" }] });
    await aborted.abort();
    const committed = await p.transaction();
    await committed.send({ topic, messages: [{ value: "committed" }] });
    await committed.sendOffsets({ consumerGroupId: groupId, topics: [{ topic, partitions: [{ partition: 0, offset: "0" }] }] });
    await committed.commit();
    await p.disconnect();

    const c = kafka.consumer({ groupId: name("txn-reader") }); // read_committed by default
    await c.connect();
    await c.subscribe({ topic, fromBeginning: true });
    const got = await consumeCount(c, 1);
    expect(got.map((r) => r.message.value!.toString())).toEqual(["committed"]);
    const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(offsets[0]!.partitions[0]!.offset).toBe("0");
  });
});

function sumOffsets(result: { partitions: { offset: string }[] }[]): number {
  return result.flatMap((t) => t.partitions).reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Runs `consumer` (already subscribed) until `count` messages have arrived, then disconnects it
 * (committing offsets when auto-commit is on). Rejects after `timeoutMs`.
 */
async function consumeCount(
  consumer: Consumer,
  count: number,
  timeoutMs = 30_000,
): Promise<Array<{ partition: number; message: KafkaMessage }>> {
  const received: Array<{ partition: number; message: KafkaMessage }> = [];
  let done!: () => void;
  const enough = new Promise<void>((resolve) => (done = resolve));
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      received.push({ partition, message });
      if (received.length >= count) done();
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`got ${received.length} of ${count} messages`)), timeoutMs);
  });
  try {
    await Promise.race([enough, timeout]);
  } finally {
    clearTimeout(timer);
    await consumer.disconnect();
  }
  return received;
}
