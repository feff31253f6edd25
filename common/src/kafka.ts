/**
 * The kafkajs client as every service builds it: kafkajs's own logging routed into pino,
 * bounded retries with backoff, and the score topic created with the cluster's settings.
 */
import { Kafka, logLevel, Partitioners, type ITopicConfig, type LogEntry, type Producer } from "kafkajs";
import { KAFKA_BACKOFF, kafkaRetry } from "./backoff.js";
import type { Logger } from "./logger.js";

export function createKafka(brokers: readonly string[], clientId: string, log: Logger): Kafka {
  return new Kafka({
    clientId,
    brokers: [...brokers],
    connectionTimeout: 3_000, // 3 s
    requestTimeout: 30_000, // 30 s
    retry: kafkaRetry(KAFKA_BACKOFF, 8),
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      const { message, ...extra } = entry.log;
      const child = { kafka: entry.namespace, ...extra };
      if (entry.level <= logLevel.ERROR) log.error(child, message);
      else log.warn(child, message);
    },
  });
}

/**
 * The score log's producer, as ingest runs it (and the benchmarks that compare with it):
 * idempotent, so a retried produce request is never written twice; one request in flight
 * (kafkajs's idempotent producer assigns sequence numbers wrongly under concurrent sends:
 * kafkajs issues #598, #1005); unbounded retries, as exactly-once needs (the caller bounds how
 * long it waits); every record names its partition (= slot), so the partitioner is unused.
 */
export async function createScoreProducer(kafka: Kafka): Promise<Producer> {
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: kafkaRetry(KAFKA_BACKOFF, Number.MAX_SAFE_INTEGER),
  });
  await producer.connect();
  return producer;
}

/**
 * The score topic: one partition per slot, kept forever (the log is the source of truth:
 * a shard is rebuilt by replaying its partitions from offset 0).
 */
export function scoreTopicSpec(topic: string, numSlots: number): ITopicConfig {
  return {
    topic,
    numPartitions: numSlots,
    replicationFactor: -1, // the broker's default.replication.factor
    configEntries: [
      { name: "retention.ms", value: "-1" },
      { name: "retention.bytes", value: "-1" },
      { name: "cleanup.policy", value: "delete" },
      { name: "min.insync.replicas", value: "1" },
    ],
  };
}

/**
 * Creates the score topic if it does not exist; checks an existing one has one partition
 * per slot (a mismatch would put players on the wrong shard).
 */
export async function ensureScoreTopic(kafka: Kafka, topic: string, numSlots: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = await admin.listTopics();
    if (!existing.includes(topic)) {
      // false (not an error) when another process created it first
      await admin.createTopics({ topics: [scoreTopicSpec(topic, numSlots)], waitForLeaders: true }).catch((err: Error) => {
        if (!/already exists/i.test(String((err as { errors?: unknown[] }).errors?.map(String) ?? err.message))) throw err;
      });
    }
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    const partitions = meta.topics[0]!.partitions.length;
    if (partitions !== numSlots) throw new Error(`topic ${topic} has ${partitions} partitions but the cluster has ${numSlots} slots`);
  } finally {
    await admin.disconnect();
  }
}
