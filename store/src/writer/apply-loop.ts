/**
 * The one apply loop: consumes partitions of the score log and applies them to a shard's
 * Redis through the apply script, in chunks of `chunk` records. The shard node's live
 * applier and every rebuild (spare database, audit view) run this same loop; what differs
 * between them is options:
 *
 *                      live applier                 rebuild
 *   consumer group     <topic>.shard.<id>, kept     <topic>.rebuild.<id>.<uuid>, deleted after
 *   Kafka commits      every 5 s (where to resume)  none
 *   starts after       Redis's applied offsets      offset 0, or a loaded snapshot's offsets
 *   stop offsets       none                         audit views: per partition
 *   record filter      none                         audit as-of-time: later records become no-ops
 *   GAP from Redis     rewind to Redis's offset     the rebuild fails (its target was written to)
 *   DRIFT from Redis   the node stops (fatal)       the rebuild fails
 *
 * Redis, not Kafka, holds the truth of what has been applied: each script call moves the
 * partition's offset atomically with the effects, so a record fetched twice (a restart, a
 * rebalance, Kafka commits that lag) is skipped by the script. Every partition of a fetch
 * is applied at once: each waits on Redis, not on the CPU.
 *
 * Per chunk: slice → prepare (decode, validate, quantize; unusable records become no-ops
 * that only advance the offset) → apply → resolve the offset → heartbeat the group → commit
 * if due. A chunk whose records do not follow Redis's offset (GAP) ends the batch.
 */
import type { Consumer, ConsumerConfig, EachBatchPayload, Kafka } from "kafkajs";
import type { BoardSpecs } from "@ladder/model/board-spec";
import type { ApplyResult, PreparedEvent, ShardWriter } from "./shard-writer.js";
import { prepareEvent } from "./prepare-event.js";
import { slotAssigner } from "@ladder/log/slot-assigner";

export interface ApplyLoopOptions {
  kafka: Kafka;
  topic: string;
  groupId: string;
  slots: readonly number[];
  writer: ShardWriter;
  boards: BoardSpecs;
  /** Records per script call. */
  chunk: number;
  /** Kafka consumer settings of this use (session timeout, fetch wait, fetch size). */
  consumer: Pick<ConsumerConfig, "sessionTimeout" | "heartbeatInterval" | "maxWaitTimeInMs" | "maxBytesPerPartition">;
  /**
   * Per partition, the last offset already applied in the target (Redis's, or a loaded
   * snapshot's; -1: none): fetching starts right after it instead of where the group last
   * committed. Those may lag (records at or below it would only be skipped by the apply script)
   * or lead (a Redis that lost data: with no new record to reveal the gap, nothing would ever
   * be fetched again).
   */
  startAfter?: ReadonlyMap<number, bigint>;
  /** Commit the group's offsets every `ms` (the live applier), or never (undefined). */
  commitEveryMs?: number;
  /** The last offset to apply of a partition (undefined = no end). */
  stopAt?(partition: number): bigint | undefined;
  /** Replaces a prepared event before it is applied (e.g. a no-op past an as-of time). */
  filter?(event: PreparedEvent): PreparedEvent;
  /** A record that could not be applied (it advanced the offset as a no-op). */
  onInvalid?(partition: number, offset: bigint, problem: string): void;
  /** After each script call. */
  onApplied?(partition: number, result: ApplyResult, records: number): void;
  /** Redis's offset does not match the records fetched; the batch stops here. */
  onGap(partition: number, result: ApplyResult, fetchedFrom: string, consumer: Consumer): void;
  /** The shard was built from something else (identity.ts): nothing was applied; the batch stops here. */
  onDrift(partition: number, builtFrom: string): void;
  /** The consumer crashed and kafkajs will not restart it. */
  onFatal?(err: Error): void;
}

export interface ApplyLoop {
  readonly consumer: Consumer;
  /** Stops fetching, lets the chunk in flight finish, disconnects (the last commit may be up to the interval old: a start resumes from Redis's offsets). */
  stop(): Promise<void>;
}

export async function startApplyLoop(o: ApplyLoopOptions): Promise<ApplyLoop> {
  const commits = { inFlight: false };
  const consumer = o.kafka.consumer({ groupId: o.groupId, partitionAssigners: [slotAssigner(o.slots)], allowAutoTopicCreation: false, ...o.consumer });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) o.onFatal?.(payload.error);
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [o.topic], fromBeginning: true });
    await consumer.run({
      // kafkajs's autoCommit commits after every batch whatever the interval says (runner.js
      // autoCommitOffsets): with a fetch every few ms per node that was an OffsetCommit each time
      // (~140/s per node under load, a third of the broker's CPU). Off, and applyBatch commits once
      // the interval has passed (commitOffsetsIfNecessary honours it), one commit at a time: the
      // partitions' batches run concurrently and would each see the interval passed; seeks then
      // resolve locally.
      autoCommit: false,
      ...(o.commitEveryMs !== undefined ? { autoCommitInterval: o.commitEveryMs } : {}),
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: Math.max(1, o.slots.length),
      eachBatch: (payload) => applyBatch(payload, consumer, o, commits),
    });
    for (const p of o.slots) {
      const after = o.startAfter?.get(p);
      if (after !== undefined && after >= -1n) consumer.seek({ topic: o.topic, partition: p, offset: (after + 1n).toString() });
    }
  } catch (err) {
    await consumer.disconnect();
    throw err;
  }
  return {
    consumer,
    async stop() {
      await consumer.stop();
      await consumer.disconnect();
    },
  };
}

async function applyBatch(payload: EachBatchPayload, consumer: Consumer, o: ApplyLoopOptions, commits: { inFlight: boolean }): Promise<void> {
  const { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale } = payload;
  const stop = o.stopAt?.(batch.partition);
  for (let i = 0; i < batch.messages.length; i += o.chunk) {
    if (!isRunning() || isStale()) return;
    const messages = batch.messages.slice(i, i + o.chunk).filter((m) => stop === undefined || BigInt(m.offset) <= stop);
    if (messages.length === 0) return;
    // a record may touch several boards: its events go to the script together (prepare-event.ts)
    const events = messages.flatMap((m) => {
      const { events: prepared, problem } = prepareEvent(m.value, BigInt(m.offset), o.boards, o.slots.length);
      if (problem) o.onInvalid?.(batch.partition, prepared[0]!.offset, problem);
      return o.filter ? prepared.map(o.filter) : prepared;
    });
    const result = await o.writer.apply(batch.partition, events);
    if (result.drift !== undefined) {
      o.onDrift(batch.partition, result.drift);
      return;
    }
    o.onApplied?.(batch.partition, result, events.length);
    if (!result.inSequence) {
      o.onGap(batch.partition, result, messages[0]!.offset, consumer);
      return;
    }
    resolveOffset(messages[messages.length - 1]!.offset);
    await heartbeat();
    if (o.commitEveryMs !== undefined && !commits.inFlight) {
      commits.inFlight = true; // every resolved partition goes in the one commit
      try {
        await commitOffsetsIfNecessary();
      } finally {
        commits.inFlight = false;
      }
    }
  }
}
