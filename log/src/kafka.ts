/**
 * The kafkajs client as every service builds it (kafkajs's own logging routed into pino by
 * kafkajs-logging.ts, bounded retries with backoff), the score log's producer, and the score
 * topic: created with the cluster's durability settings and checked against them at every start (its
 * topic id: topic-ids.ts).
 */
import kafkajs, { Kafka, Partitioners, type Admin, type ITopicConfig } from "kafkajs";

// Not among the names Node's ES module loader finds in kafkajs's CommonJS exports: take it from the default export.
const { ConfigResourceTypes } = kafkajs;
import { KAFKA_BACKOFF, kafkaRetry } from "./kafka-retry.js";
import { retryUntil } from "@ladder/platform/backoff";
import type { Logger } from "@ladder/platform/logger";
import type { LogHandle } from "./log-handle.js";
import { wrapProducer, type RecordProducer } from "./record-producer.js";
import { kafkajsSecurity, type KafkaSecurity } from "./kafka-security.js";
import { KAFKAJS_LOG_LEVEL, kafkajsLogCreator } from "./kafkajs-logging.js";

/**
 * A kafkajs client of `brokers`; `security` (SASL and TLS, from Config.kafkaSecurity) unset: PLAINTEXT
 * without login. `retries`: how often kafkajs retries a failed request or connection, with backoff,
 * before the call fails (its metadata refreshes and offset questions included).
 */
export function createKafka(brokers: readonly string[], clientId: string, log: Logger, security?: KafkaSecurity, retries = 8): Kafka {
  return new Kafka({
    clientId,
    brokers: [...brokers],
    ...kafkajsSecurity(security),
    connectionTimeout: 3_000, // 3 s
    requestTimeout: 30_000, // 30 s
    retry: kafkaRetry(KAFKA_BACKOFF, retries),
    logLevel: KAFKAJS_LOG_LEVEL,
    logCreator: kafkajsLogCreator(log),
  });
}

/**
 * The score log's producer, as ingest runs it (and the benchmarks that compare with it):
 * idempotent, so a retried produce request is never written twice; one request in flight
 * (kafkajs's idempotent producer assigns sequence numbers wrongly under concurrent sends:
 * kafkajs issues #598, #1005); unbounded retries, as exactly-once needs (the caller bounds how
 * long it waits); every record names its partition (= slot), so the partitioner is unused.
 */
export async function createScoreProducer(client: LogHandle): Promise<RecordProducer> {
  const producer = client.kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: kafkaRetry(KAFKA_BACKOFF, Number.MAX_SAFE_INTEGER),
  });
  await producer.connect();
  return wrapProducer(producer);
}

/** What the score topic must be: how it is created, and the least an existing one may be. */
export interface ScoreTopicPolicy {
  topic: string;
  /** Partitions = slots, exactly. */
  numSlots: number;
  /** Replicas of each partition; undefined = min(3, brokers in the cluster). */
  replication?: number;
  /** min.insync.replicas; undefined = replication - 1, at least 1. */
  minInsyncReplicas?: number;
}

/** The score topic as found (and checked) at start. */
export interface ScoreTopicInfo {
  replication: number;
  minInsyncReplicas: number;
  /** True when this call created it. */
  created: boolean;
}

/** The topic does not exist and the caller may not create it. */
export class ScoreTopicMissing extends Error {
  constructor(topic: string) {
    super(`score topic ${topic} does not exist`);
    this.name = "ScoreTopicMissing";
  }
}

/** The topic exists but is weaker than, or shaped unlike, what the cluster is configured for. */
export class ScoreTopicInvalid extends Error {
  constructor(
    topic: string,
    readonly problems: readonly string[],
  ) {
    super(`score topic ${topic} does not match the configuration: ${problems.join("; ")}`);
    this.name = "ScoreTopicInvalid";
  }
}

/**
 * The score topic's settings: one partition per slot, kept forever (the log is the source of
 * truth: a shard is rebuilt by replaying its partitions from offset 0), and durable before
 * ingest acknowledges: with acks=all a write is acknowledged once min.insync.replicas
 * replicas have it, so that setting, not acks, is what a lost broker can't undo.
 */
export function scoreTopicSpec(topic: string, numSlots: number, replication: number, minInsyncReplicas: number): ITopicConfig {
  return {
    topic,
    numPartitions: numSlots,
    replicationFactor: replication,
    configEntries: [
      { name: "retention.ms", value: "-1" },
      { name: "retention.bytes", value: "-1" },
      { name: "cleanup.policy", value: "delete" },
      { name: "min.insync.replicas", value: String(minInsyncReplicas) },
    ],
  };
}

/**
 * Creates the score topic if it does not exist and `create` allows it (else ScoreTopicMissing),
 * then checks the topic against `policy` and refuses a weaker or different one
 * (ScoreTopicInvalid, listing every difference): partitions must equal the slots (a mismatch
 * would put players on the wrong shard), replication and min.insync.replicas must be at least
 * the policy's, and retention must be infinite with cleanup.policy=delete.
 */
export async function ensureScoreTopic(client: LogHandle, policy: ScoreTopicPolicy, opts: { create: boolean }): Promise<ScoreTopicInfo> {
  const admin = client.kafka.admin(); // its own, connected for this call only
  await admin.connect();
  try {
    const { topic, numSlots } = policy;
    const { replication, minInsyncReplicas } = await durability(admin, policy);
    let created = false;
    if (!(await admin.listTopics()).includes(topic)) {
      if (!opts.create) throw new ScoreTopicMissing(topic);
      created = await createTopic(admin, scoreTopicSpec(topic, numSlots, replication, minInsyncReplicas));
    }
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    const partitions = meta.topics[0]!.partitions;
    const configs = await topicConfigs(admin, topic);
    const actual = {
      replication: Math.min(...partitions.map((p) => p.replicas.length)),
      minInsyncReplicas: Number(configs.get("min.insync.replicas")),
    };
    const problems: string[] = [];
    if (partitions.length !== numSlots) problems.push(`it has ${partitions.length} partitions but the cluster has ${numSlots} slots`);
    if (actual.replication < replication) problems.push(`replication ${actual.replication} is below the configured ${replication}`);
    if (!(actual.minInsyncReplicas >= minInsyncReplicas))
      problems.push(`min.insync.replicas ${configs.get("min.insync.replicas")} is below the configured ${minInsyncReplicas}`);
    if (configs.get("retention.ms") !== "-1")
      problems.push(`retention.ms is ${configs.get("retention.ms")}, not -1 (forever): the log must keep every record to rebuild shards`);
    if (configs.get("retention.bytes") !== "-1") problems.push(`retention.bytes is ${configs.get("retention.bytes")}, not -1 (unbounded)`);
    if (configs.get("cleanup.policy") !== "delete")
      problems.push(`cleanup.policy is ${configs.get("cleanup.policy")}, not delete (compaction would drop score changes)`);
    if (problems.length) throw new ScoreTopicInvalid(topic, problems);
    return { ...actual, created };
  } finally {
    await admin.disconnect();
  }
}

/** The replication and min.insync.replicas a topic gets: as configured, else min(3, brokers) and replication - 1 (at least 1). */
export async function durability(
  admin: Admin,
  wanted: { replication?: number; minInsyncReplicas?: number },
): Promise<{ replication: number; minInsyncReplicas: number }> {
  const replication = wanted.replication ?? Math.min(3, (await admin.describeCluster()).brokers.length);
  return { replication, minInsyncReplicas: wanted.minInsyncReplicas ?? Math.max(1, replication - 1) };
}

/**
 * Creates a topic and waits until every partition has a leader; false (not an error) when another
 * process created it first. kafkajs's own wait for leaders retries only LEADER_NOT_AVAILABLE: a
 * broker that has not yet loaded the new topic answers UNKNOWN_TOPIC_OR_PARTITION ("This server
 * does not host this topic-partition", retriable), which it throws (two shard nodes starting at
 * once crashed on it in CI). Such retriable errors are followed by a wait of our own, up to 30 s.
 */
export async function createTopic(admin: Admin, spec: ITopicConfig): Promise<boolean> {
  const created = await admin.createTopics({ topics: [spec], waitForLeaders: true }).catch((err: Error) => {
    if (/already exists/i.test(String((err as { errors?: unknown[] }).errors?.map(String) ?? err.message))) return false;
    if ((err as { retriable?: boolean }).retriable !== true) throw err;
    return true;
  });
  await retryUntil(
    async () => {
      const meta = await admin.fetchTopicMetadata({ topics: [spec.topic] });
      const partitions = meta.topics[0]?.partitions ?? [];
      if (partitions.length === 0 || partitions.some((p) => p.leader < 0))
        throw Object.assign(new Error(`topic ${spec.topic} has partitions without a leader`), { retriable: true });
    },
    {
      initialMs: 50,
      maxMs: 500,
      timeoutMs: 30_000,
      what: `the leaders of topic ${spec.topic}`,
      giveUp: (err) => ((err as { retriable?: boolean }).retriable === true ? undefined : (err as Error).message),
    },
  );
  return created;
}

/** A topic's configuration entries (describeConfigs), by name. */
export async function topicConfigs(admin: Admin, topic: string): Promise<Map<string, string>> {
  const resources = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] });
  return new Map(resources.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
}

/**
 * Each partition's low and high offsets of `topic`. A topic created a moment ago may not have a
 * leader for every partition yet ("This server is not the leader for that topic-partition"): such
 * retriable broker errors are retried for up to `timeoutMs`; any other error is thrown at once.
 */
export async function topicOffsets(
  admin: Admin,
  topic: string,
  timeoutMs = 10_000,
): Promise<Array<{ partition: number; low: bigint; high: bigint }>> {
  const offsets = await retryUntil(() => admin.fetchTopicOffsets(topic), {
    initialMs: 50,
    maxMs: 500,
    timeoutMs,
    what: `the offsets of topic ${topic}`,
    giveUp: (err) => ((err as { retriable?: boolean }).retriable === true ? undefined : (err as Error).message),
  });
  return offsets.map((p) => ({ partition: p.partition, low: BigInt(p.low), high: BigInt(p.high) }));
}
