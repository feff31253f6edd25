/**
 * A consumer of a set of partitions whose offsets the caller owns: the Kafka side of the apply
 * loop (@ladder/store/writer apply-loop.ts is the Redis side; the service composes the two).
 *
 * The caller's target (a shard's Redis) holds the truth of what has been consumed, so fetching
 * starts right after the caller's offsets (`startAfter`), not where the group last committed;
 * Kafka commits are only a hint for the group's bookkeeping. They are made by `commitIfDue`, at
 * most once per `commitEveryMs` and one at a time: the partitions' batches run concurrently and
 * would each see the interval passed.
 *
 * kafkajs has no manual assignment: the consumer joins a group of its own and slot-assigner.ts
 * hands its first member exactly `slots`. kafkajs's autoCommit commits after every batch
 * whatever the interval says (runner.js autoCommitOffsets): with a fetch every few ms per node
 * that was an OffsetCommit each time (~140/s per node under load, a third of the broker's CPU).
 * It is off; commitOffsetsIfNecessary honours the interval; seeks then resolve locally.
 */
import type { Consumer, EachBatchPayload, Kafka } from "kafkajs";
import { slotAssigner } from "./slot-assigner.js";

/** A record as fetched: its offset (a decimal string, as Kafka's), its timestamp, key and value. */
export interface LogRecord {
  readonly offset: string;
  /** Milliseconds since the epoch as a decimal string, as Kafka's: when its producer made it (CreateTime), on the producer's clock. */
  readonly timestamp: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
}

/** What a batch's handler may do with the consumer while it handles the batch. */
export interface BatchControl {
  /** False once the consumer stops or the batch went stale (a rebalance): handle no more of it. */
  isRunning(): boolean;
  /** Fetches `partition` from `offset` on (after this batch). */
  seek(partition: number, offset: bigint): void;
  /** Records up to `offset` are consumed: the next commit covers them. */
  resolve(offset: string): void;
  /** Tells the group this member is alive (a long batch must call it). */
  heartbeat(): Promise<void>;
  /** Commits the resolved offsets when `commitEveryMs` has passed and no commit is in flight; else nothing. */
  commitIfDue(): Promise<void>;
}

/** The consumer's settings of one use. */
export interface ConsumerSettings {
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** Longest wait of a fetch at the broker when no record comes. */
  maxWaitMs?: number;
  maxBytesPerPartition?: number;
  /**
   * Most bytes of one fetch response, all partitions together: kafkajs decodes a response in one
   * synchronous step, which the process's other work waits for.
   */
  maxBytes?: number;
}

export interface ConsumeOptions {
  topic: string;
  groupId: string;
  slots: readonly number[];
  settings: ConsumerSettings;
  /** Per partition, the last offset the caller already has (-1: none): fetching starts right after it. */
  startAfter?: ReadonlyMap<number, bigint>;
  /** Commit the group's offsets at most this often (commitIfDue), or never (undefined). */
  commitEveryMs?: number;
  /** Each fetched batch of one partition; the partitions' batches run concurrently. */
  onBatch(partition: number, records: readonly LogRecord[], control: BatchControl): Promise<void>;
  /** The consumer crashed and will not restart. */
  onFatal?(err: Error): void;
  /** After each commit of the group's offsets. */
  onCommit?(): void;
}

export interface PartitionConsumer {
  /** Fetches `partition` from `offset` on (the next batch). */
  seek(partition: number, offset: bigint): void;
  /** Stops fetching every partition (the batch in flight finishes), until resume(). */
  pause(): void;
  resume(): void;
  /** Stops fetching, lets the batch in flight finish, disconnects. */
  stop(): Promise<void>;
}

export async function consumePartitions(kafka: Kafka, o: ConsumeOptions): Promise<PartitionConsumer> {
  const s = o.settings;
  const consumer = kafka.consumer({
    groupId: o.groupId,
    partitionAssigners: [slotAssigner(o.slots)],
    allowAutoTopicCreation: false,
    ...(s.sessionTimeoutMs !== undefined ? { sessionTimeout: s.sessionTimeoutMs } : {}),
    ...(s.heartbeatIntervalMs !== undefined ? { heartbeatInterval: s.heartbeatIntervalMs } : {}),
    ...(s.maxWaitMs !== undefined ? { maxWaitTimeInMs: s.maxWaitMs } : {}),
    ...(s.maxBytesPerPartition !== undefined ? { maxBytesPerPartition: s.maxBytesPerPartition } : {}),
    ...(s.maxBytes !== undefined ? { maxBytes: s.maxBytes } : {}),
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) o.onFatal?.(payload.error);
  });
  if (o.onCommit) consumer.on(consumer.events.COMMIT_OFFSETS, () => o.onCommit!());
  const commits = { inFlight: false };
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [o.topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      ...(o.commitEveryMs !== undefined ? { autoCommitInterval: o.commitEveryMs } : {}),
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: Math.max(1, o.slots.length),
      eachBatch: (payload) => o.onBatch(payload.batch.partition, payload.batch.messages, control(payload, consumer, o, commits)),
    });
    for (const p of o.slots) {
      const after = o.startAfter?.get(p);
      if (after !== undefined && after >= -1n) consumer.seek({ topic: o.topic, partition: p, offset: (after + 1n).toString() });
    }
  } catch (err) {
    await consumer.disconnect();
    throw err;
  }
  return handle(consumer, o);
}

function control(payload: EachBatchPayload, consumer: Consumer, o: ConsumeOptions, commits: { inFlight: boolean }): BatchControl {
  const { resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale } = payload;
  return {
    isRunning: () => isRunning() && !isStale(),
    seek: (partition, offset) => consumer.seek({ topic: o.topic, partition, offset: offset.toString() }),
    resolve: resolveOffset,
    heartbeat,
    async commitIfDue() {
      if (o.commitEveryMs === undefined || commits.inFlight) return;
      commits.inFlight = true; // every resolved partition goes in the one commit
      try {
        await commitOffsetsIfNecessary();
      } finally {
        commits.inFlight = false;
      }
    },
  };
}

function handle(consumer: Consumer, o: ConsumeOptions): PartitionConsumer {
  return {
    seek: (partition, offset) => consumer.seek({ topic: o.topic, partition, offset: offset.toString() }),
    pause: () => consumer.pause([{ topic: o.topic, partitions: [...o.slots] }]),
    resume: () => consumer.resume([{ topic: o.topic, partitions: [...o.slots] }]),
    async stop() {
      await consumer.stop();
      await consumer.disconnect();
    },
  };
}
