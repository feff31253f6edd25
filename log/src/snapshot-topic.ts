/**
 * The snapshot topic in Kafka (see snapshot.ts): its settings, and reading a range of one of
 * its partitions.
 *
 * "<score topic>.snapshots", compacted: a record survives until a newer one with the same key
 * is written, so the topic holds about the latest snapshots of every shard, however long the
 * cluster runs. SNAPSHOT_PARTITIONS partitions: 0 holds the manifests (small: one live record
 * per shard), the others the chunks, each shard's on one partition chosen by its id
 * (snapshot-format.ts), so a reader of one shard reads only its manifest partition and one
 * chunk partition. Segments roll every 64 MiB or hour, so compaction can drop superseded
 * chunks (Kafka never compacts the segment being written). Replicated like the score topic.
 *
 * kafkajs has no consumer without a group: a read joins a throwaway group (no commits),
 * assigned exactly the partition it reads, seeks, and leaves (the group is deleted).
 */
import { randomUUID } from "node:crypto";
import type { Admin, Kafka, KafkaMessage } from "kafkajs";
import { retryUntil } from "@ladder/platform/backoff";
import { createTopic, durability, topicConfigs } from "./kafka.js";
import type { LogHandle } from "./log-handle.js";
import { slotAssigner } from "./slot-assigner.js";

export const SNAPSHOT_PARTITIONS = 16;
/** The snapshot topic of a score topic. */
export const snapshotTopicOf = (scoreTopic: string) => `${scoreTopic}.snapshots`;

export interface SnapshotTopicPolicy {
  topic: string;
  /** Replicas; undefined = min(3, brokers), as the score topic. */
  replication?: number;
  /** min.insync.replicas; undefined = replication - 1, at least 1. */
  minInsyncReplicas?: number;
}

/**
 * Creates the snapshot topic if it does not exist (another process creating it first is
 * fine). Returns its partition count and, when its settings would lose snapshots or never
 * compact them, what is wrong (snapshots are checked when read, so this only warns). A topic
 * just created by another process may not be known to every broker yet: retried for up to
 * `waitMs`.
 */
export async function ensureSnapshotTopic(
  client: LogHandle,
  p: SnapshotTopicPolicy,
  waitMs = 20_000,
): Promise<{ partitions: number; created: boolean; problems: string[] }> {
  return retryUntil(() => ensureOnce(client.admin, p), {
    initialMs: 250,
    maxMs: 2_000,
    what: `snapshot topic ${p.topic}`,
    timeoutMs: waitMs,
  });
}

async function ensureOnce(admin: Admin, p: SnapshotTopicPolicy): Promise<{ partitions: number; created: boolean; problems: string[] }> {
  let created = false;
  if (!(await admin.listTopics()).includes(p.topic)) {
    const { replication, minInsyncReplicas } = await durability(admin, p);
    created = await createTopic(admin, {
      topic: p.topic,
      numPartitions: SNAPSHOT_PARTITIONS,
      replicationFactor: replication,
      configEntries: [
        { name: "cleanup.policy", value: "compact" },
        { name: "segment.bytes", value: String(64 * 1024 * 1024) },
        { name: "segment.ms", value: String(3_600_000) },
        { name: "min.cleanable.dirty.ratio", value: "0.5" },
        { name: "min.insync.replicas", value: String(minInsyncReplicas) },
      ],
    });
  }
  const meta = await admin.fetchTopicMetadata({ topics: [p.topic] });
  const partitions = meta.topics[0]!.partitions.length;
  const configs = await topicConfigs(admin, p.topic);
  const problems: string[] = [];
  if (partitions < 2) problems.push(`it has ${partitions} partition(s), at least 2 are needed (manifests and chunks): snapshots are off`);
  if (!String(configs.get("cleanup.policy")).includes("compact"))
    problems.push(
      `cleanup.policy is ${configs.get("cleanup.policy")}, not compact: old snapshots are never dropped, or deleted by retention`,
    );
  return { partitions, created, problems };
}

/** The partition count of the snapshot topic, or undefined when it does not exist. */
export async function snapshotTopicPartitions(admin: Admin, topic: string): Promise<number | undefined> {
  if (!(await admin.listTopics()).includes(topic)) return undefined;
  return (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]!.partitions.length;
}

export interface ReadRangeOptions {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  partition: number;
  /** First offset to read. */
  from: bigint;
  /** Last offset to read (inclusive): reading stops at the first record at or past it. */
  until: bigint;
  /** Each record in offset order; may be async (the read waits). */
  onRecord(m: KafkaMessage): Promise<void> | void;
  /** Fail when no record arrives for this long (default 30 s). */
  stallMs?: number;
  signal?: AbortSignal;
}

/**
 * Reads records `from`..`until` of one partition. A compacted partition has holes: records
 * in the range may be missing, but `until` must be a record that exists (the caller knows it
 * was written and not superseded), or the read fails after `stallMs`.
 */
export async function readRange(o: ReadRangeOptions): Promise<void> {
  if (o.until < o.from) return;
  const groupId = `${o.topic}.reader.${randomUUID()}`;
  const consumer = o.kafka.consumer({
    groupId,
    partitionAssigners: [slotAssigner([o.partition])],
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: 100,
    maxBytesPerPartition: 8 * 1024 * 1024,
  });
  let settle!: (err?: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => (settle = (err) => (err === undefined ? resolve() : reject(err))));
  finished.catch(() => {}); // awaited below; may settle before that
  let last = Date.now();
  let done = false;
  const stallMs = o.stallMs ?? 30_000;
  const timer = setInterval(
    () => {
      if (Date.now() - last > stallMs)
        settle(
          new Error(`reading ${o.topic} partition ${o.partition} (offsets ${o.from}..${o.until}) made no progress for ${stallMs / 1000} s`),
        );
    },
    Math.min(1000, stallMs),
  );
  const onAbort = () => settle(o.signal!.reason);
  o.signal?.addEventListener("abort", onAbort, { once: true });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) settle(payload.error);
  });
  try {
    o.signal?.throwIfAborted();
    await consumer.connect();
    await consumer.subscribe({ topics: [o.topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, isRunning, isStale, heartbeat }) => {
        for (const m of batch.messages) {
          if (done || !isRunning() || isStale()) return;
          const offset = BigInt(m.offset);
          if (offset < o.from) continue;
          if (offset > o.until) {
            done = true;
            return settle();
          }
          try {
            await o.onRecord(m);
          } catch (err) {
            done = true;
            return settle(err);
          }
          last = Date.now();
          if (offset === o.until) {
            done = true;
            return settle();
          }
        }
        await heartbeat();
      },
    });
    consumer.seek({ topic: o.topic, partition: o.partition, offset: o.from.toString() });
    await finished;
  } finally {
    done = true;
    clearInterval(timer);
    o.signal?.removeEventListener("abort", onAbort);
    await consumer.disconnect().catch(() => {});
    await o.admin.deleteGroups([groupId]).catch(() => {});
  }
}
