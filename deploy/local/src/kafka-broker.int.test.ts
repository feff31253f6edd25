import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { Partitioners } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "@ladder/platform/logger";
import { type KafkaBroker, startKafkaBroker } from "./kafka-broker.js";
import { consumeCount, kafkaClient, kafkaLibs, tempDir } from "./test-support.js";

const log = silentLogger();
const TOPIC = "scores";

describe("deploy > kafka broker", () => {
  let libsDir: string;
  let dir: string;
  const running: KafkaBroker[] = [];

  beforeAll(async () => {
    libsDir = await kafkaLibs();
    dir = await tempDir("kafka-broker");
  }, 300_000);

  afterAll(async () => {
    await Promise.allSettled(running.map((b) => b.stop()));
    await rm(dir, { recursive: true, force: true });
  });

  async function start(dataDir: string, port?: number): Promise<KafkaBroker> {
    const broker = await startKafkaBroker({ libsDir, dataDir, port, log });
    running.push(broker);
    return broker;
  }

  async function produce(brokers: string[], count: number, from = 0): Promise<void> {
    const producer = kafkaClient(brokers).producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    const messages = Array.from({ length: count }, (_, i) => ({ key: `player-${from + i}`, value: `${from + i}` }));
    await producer.send({ topic: TOPIC, acks: -1, messages });
    await producer.disconnect();
  }

  it("keeps messages and committed offsets across a clean restart on the same data dir", async () => {
    const dataDir = join(dir, "restart");
    const broker = await start(dataDir);
    const kafka = kafkaClient(broker.brokers);
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 3 }], waitForLeaders: true });
    await admin.disconnect();
    await produce(broker.brokers, 30);

    const consumer = kafka.consumer({ groupId: "g1" });
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    const first = await consumeCount(consumer, 30);
    expect(first.map((r) => Number(r.message.value?.toString())).sort((a, b) => a - b))
      .toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(new Set(first.map((r) => r.partition))).toEqual(new Set([0, 1, 2]));

    await broker.stop();
    const again = await start(dataDir);
    expect(again.brokers).toEqual(broker.brokers);

    const admin2 = kafkaClient(again.brokers).admin();
    await admin2.connect();
    const committed = await admin2.fetchOffsets({ groupId: "g1", topics: [TOPIC] });
    expect(committed[0]?.partitions.reduce((sum, p) => sum + Number(p.offset), 0)).toBe(30);
    const ends = await admin2.fetchTopicOffsets(TOPIC);
    expect(ends.reduce((sum, p) => sum + Number(p.high), 0)).toBe(30);
    await admin2.disconnect();

    const reader = kafkaClient(again.brokers).consumer({ groupId: "g2" });
    await reader.connect();
    await reader.subscribe({ topic: TOPIC, fromBeginning: true });
    expect(await consumeCount(reader, 30)).toHaveLength(30);
    await again.stop();
  }, 180_000);

  it("comes back after SIGKILL with every acknowledged message, on the port it asked for", async () => {
    const dataDir = join(dir, "crash");
    const { freePort } = await import("./free-port.js");
    const port = await freePort();
    const broker = await start(dataDir, port);
    expect(broker.brokers).toEqual([`127.0.0.1:${port}`]);
    const admin = kafkaClient(broker.brokers).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 3 }], waitForLeaders: true });
    await admin.disconnect();
    await produce(broker.brokers, 100);
    await broker.kill();
    await broker.kill(); // a second kill (and a stop) of a dead broker are no-ops
    await broker.stop();

    const again = await start(dataDir, port);
    const admin2 = kafkaClient(again.brokers).admin();
    await admin2.connect();
    const ends = await admin2.fetchTopicOffsets(TOPIC);
    expect(ends.reduce((sum, p) => sum + Number(p.high), 0)).toBe(100);
    await admin2.disconnect();
    await produce(again.brokers, 10, 100);
    await again.stop();
  }, 180_000);

  it("fails with the broker's output when it cannot start", async () => {
    const emptyLibs = join(dir, "no-jars");
    await mkdir(emptyLibs, { recursive: true });
    await expect(startKafkaBroker({ libsDir: emptyLibs, dataDir: join(dir, "broken"), log }))
      .rejects.toThrow(/StorageTool format failed[\s\S]*kafka\.tools\.StorageTool/);
  }, 60_000);
});
