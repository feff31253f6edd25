/**
 * The applier: consumes the partitions of this shard's slots and applies them to the
 * shard's Redis through the apply script, in chunks of `applyBatch` records.
 *
 * Redis, not Kafka, holds the truth of what has been applied: each script call moves the
 * partition's offset atomically with the effects. Kafka's committed offsets only tell
 * where to start fetching; they are committed after each chunk and may lag (records are
 * then skipped by the script) or lead (after Redis lost data: the script answers GAP
 * and the applier seeks back to Redis's offset + 1, replaying what Redis lacks).
 */
import type { Consumer, EachBatchPayload, Kafka } from "kafkajs";
import type { BoardSpecs } from "../../common/src/board-spec.js";
import type { Logger } from "../../common/src/logger.js";
import type { ShardStore } from "../../common/src/shard-store/shard-store.js";
import { prepareEvent } from "../../common/src/replay/prepare-event.js";
import { slotAssigner } from "../../common/src/replay/slot-assigner.js";

export interface ApplierOptions {
  kafka: Kafka;
  topic: string;
  shardId: string;
  slots: readonly number[];
  store: ShardStore;
  boards: BoardSpecs;
  /** Records per script call. */
  applyBatch: number;
  log: Logger;
  /** Called when the consumer has crashed for good (kafkajs will not restart it). */
  onFatal(err: Error): void;
  /** Called when a partition had to be rewound: the shard is behind until it catches up. */
  onRewind(partition: number): void;
  /** Offsets already applied, as stored in Redis at start. */
  known: Map<number, bigint>;
}

export interface ApplierStats {
  applied: number;
  skipped: number;
  duplicates: number;
  invalid: number;
  rewinds: number;
}

export interface Applier {
  readonly stats: Readonly<ApplierStats>;
  /** The last offset each partition is known to have applied (from the apply script's answers). */
  readonly known: ReadonlyMap<number, bigint>;
  /** Fetches `partition` again after `stored`, the offset Redis now holds (after Redis lost data). */
  rewind(partition: number, stored: bigint): void;
  /** Stops fetching, lets the chunk in flight finish, commits offsets, disconnects. */
  stop(): Promise<void>;
}

export async function startApplier(opts: ApplierOptions): Promise<Applier> {
  const { kafka, topic, shardId, slots, log } = opts;
  const stats: ApplierStats = { applied: 0, skipped: 0, duplicates: 0, invalid: 0, rewinds: 0 };
  const consumer = kafka.consumer({
    groupId: `${topic}.shard.${shardId}`,
    partitionAssigners: [slotAssigner(slots)],
    sessionTimeout: 10_000, // 10 s: a killed node's slots are free again this soon
    heartbeatInterval: 1_000,
    maxWaitTimeInMs: 50, // fetch returns within 50 ms when idle: bounds apply latency
    maxBytesPerPartition: 4 * 1024 * 1024, // 4 MiB
    allowAutoTopicCreation: false,
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) opts.onFatal(payload.error);
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    // Redis holds the applied offsets; Kafka's commit only says where to resume fetching, so
    // committing every few seconds (not after every batch: a Kafka round trip per partition
    // per fetch) costs nothing in correctness: a restart re-fetches a little and skips it.
    autoCommit: true,
    autoCommitInterval: 5_000, // ms
    eachBatchAutoResolve: false,
    // every partition of a fetch at once: each waits on Redis, not on the CPU (freshness lag -25%)
    partitionsConsumedConcurrently: Math.max(1, slots.length),
    eachBatch: (payload) => applyBatch(payload, consumer, opts, stats),
  });
  log.info({ topic, slots: slots.length }, "applier running");
  return {
    stats,
    known: opts.known,
    rewind(partition, stored) {
      stats.rewinds++;
      opts.known.set(partition, stored);
      consumer.seek({ topic, partition, offset: (stored + 1n).toString() });
    },
    async stop() {
      await consumer.stop();
      await consumer.disconnect();
    },
  };
}

async function applyBatch(payload: EachBatchPayload, consumer: Consumer, opts: ApplierOptions, stats: ApplierStats): Promise<void> {
  const { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale } = payload;
  const { store, boards, applyBatch: size, log } = opts;
  for (let i = 0; i < batch.messages.length; i += size) {
    if (!isRunning() || isStale()) return;
    const messages = batch.messages.slice(i, i + size);
    const prepared = messages.map((m) => prepareEvent(m.value, BigInt(m.offset), boards));
    for (const p of prepared.filter((p) => p.problem)) {
      stats.invalid++;
      log.error({ partition: batch.partition, offset: p.event.offset.toString(), problem: p.problem }, "skipping unusable record");
    }
    const result = await store.apply(batch.partition, prepared.map((p) => p.event));
    stats.applied += result.applied;
    stats.skipped += result.skipped;
    stats.duplicates += result.duplicates;
    opts.known.set(batch.partition, result.lastOffset);
    if (!result.inSequence) {
      const offset = (result.lastOffset + 1n).toString();
      stats.rewinds++;
      log.warn({ partition: batch.partition, offset, fetched: messages[0]!.offset }, "records missing from Redis: rewinding to replay them");
      opts.onRewind(batch.partition);
      consumer.seek({ topic: batch.topic, partition: batch.partition, offset });
      return;
    }
    resolveOffset(messages[messages.length - 1]!.offset);
    await heartbeat();
    await commitOffsetsIfNecessary();
  }
}
