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
 * partitions' offsets atomically with the effects, so a record fetched twice (a restart, a
 * rebalance, Kafka commits that lag) is skipped by the script. Every partition of a fetch
 * is applied at once: each waits on Redis, not on the CPU, and the chunks asked in one turn
 * share a script call (ShardWriter.apply).
 *
 * This file is the Redis side; the Kafka side (the consumer, its seeks and commits) is
 * @ladder/log's partition-consumer.ts, reached through `logClient` (log-port.ts): the service passes
 * its LogClient in.
 *
 * Per chunk: slice → prepare (decode, validate, quantize; unusable records become no-ops
 * that only advance the offset) → apply → resolve the offset → heartbeat the group → commit
 * if due. A chunk whose records do not follow Redis's offset (GAP) ends the batch.
 */
import type { BoardSpecs } from "@ladder/model/board-spec";
import type { ApplyLog, BatchControl, ConsumeOptions, LogRecord, PartitionConsumer } from "./log-port.js";
import type { ApplyResult, PreparedEvent, ShardWriter } from "./shard-writer.js";
import { prepareEvent } from "./prepare-event.js";

export interface ApplyLoopOptions {
  logClient: ApplyLog;
  topic: string;
  groupId: string;
  slots: readonly number[];
  writer: ShardWriter;
  boards: BoardSpecs;
  /** Records per chunk of a partition (a script call holds the chunks asked in one turn, up to MAX_CALL_EVENTS events). */
  chunk: number;
  /** Kafka consumer settings of this use (session timeout, fetch wait, fetch size). */
  consumer: ConsumeOptions["settings"];
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
  /** After each chunk applied; `lastTimestampMs`: its last record's timestamp (when ingest made it). */
  onApplied?(partition: number, result: ApplyResult, records: number, lastTimestampMs: number): void;
  /** Redis's offset does not match the records fetched; the batch stops here. */
  onGap(partition: number, result: ApplyResult, fetchedFrom: string, consumer: Pick<PartitionConsumer, "seek">): void;
  /** The shard was built from something else (identity.ts): nothing was applied; the batch stops here. */
  onDrift(partition: number, builtFrom: string): void;
  /** The consumer crashed and will not restart. */
  onFatal?(err: Error): void;
  /** After each commit of the group's offsets. */
  onCommit?(): void;
}

export interface ApplyLoop {
  readonly consumer: PartitionConsumer;
  /** Stops fetching, lets the chunk in flight finish, disconnects (the last commit may be up to the interval old: a start resumes from Redis's offsets). */
  stop(): Promise<void>;
}

export async function startApplyLoop(o: ApplyLoopOptions): Promise<ApplyLoop> {
  const consumer = await o.logClient.consume({
    topic: o.topic,
    groupId: o.groupId,
    slots: o.slots,
    settings: o.consumer,
    ...(o.startAfter ? { startAfter: o.startAfter } : {}),
    ...(o.commitEveryMs !== undefined ? { commitEveryMs: o.commitEveryMs } : {}),
    onBatch: (partition, records, control) => applyBatch(partition, records, control, o),
    ...(o.onFatal ? { onFatal: o.onFatal } : {}),
    ...(o.onCommit ? { onCommit: o.onCommit } : {}),
  });
  return { consumer, stop: () => consumer.stop() };
}

async function applyBatch(partition: number, records: readonly LogRecord[], control: BatchControl, o: ApplyLoopOptions): Promise<void> {
  const stop = o.stopAt?.(partition);
  for (let i = 0; i < records.length; i += o.chunk) {
    if (!control.isRunning()) return;
    const messages = records.slice(i, i + o.chunk).filter((m) => stop === undefined || BigInt(m.offset) <= stop);
    if (messages.length === 0) return;
    // a record may touch several boards: its events go to the script together (prepare-event.ts)
    const events = messages.flatMap((m) => {
      const { events: prepared, problem } = prepareEvent(m.value, BigInt(m.offset), o.boards, o.slots.length);
      if (problem) o.onInvalid?.(partition, prepared[0]!.offset, problem);
      return o.filter ? prepared.map(o.filter) : prepared;
    });
    const result = await o.writer.apply(partition, events);
    if (result.drift !== undefined) {
      o.onDrift(partition, result.drift);
      return;
    }
    o.onApplied?.(partition, result, events.length, Number(messages[messages.length - 1]!.timestamp));
    if (!result.inSequence) {
      o.onGap(partition, result, messages[0]!.offset, control);
      return;
    }
    control.resolve(messages[messages.length - 1]!.offset);
    await control.heartbeat();
    await control.commitIfDue();
  }
}
