/**
 * The applier: the shard node's live use of the store's apply loop (@ladder/store/writer,
 * apply-loop.ts), over the partitions of this shard's slots.
 *
 * Redis, not Kafka, holds the truth of what has been applied. At start the applier fetches
 * every partition from Redis's offset + 1 (from the log's start when Redis holds none), not
 * from Kafka's committed offsets, which only serve the group's bookkeeping: committed every
 * 5 s, they may lag (records are then skipped by the apply script) or lead (Redis lost data,
 * say restarted empty with the node). When Redis loses data while the node runs, the script
 * answers GAP to the next records and the applier seeks back to Redis's offset + 1, replaying
 * what Redis lacks.
 */
import type { LogClient } from "@ladder/log/log-client";
import type { BoardSpecs } from "@ladder/model/board-spec";
import type { Logger } from "@ladder/platform/logger";
import { startApplyLoop, type ShardWriter } from "@ladder/store/writer";
import type { ShardMetrics } from "./metrics.js";

export interface ApplierOptions {
  logClient: LogClient;
  topic: string;
  shardId: string;
  slots: readonly number[];
  writer: ShardWriter;
  boards: BoardSpecs;
  /** Records per script call. */
  applyBatch: number;
  /** Longest wait of a fetch at the broker when no record comes (LADDER_FETCH_WAIT_MS). */
  fetchWaitMs: number;
  /** Per partition, the last offset Redis holds (-1: none; a snapshot loaded at start included): fetch from just after it. */
  startAfter: ReadonlyMap<number, bigint>;
  log: Logger;
  /** Called when the consumer has crashed for good (it will not restart). */
  onFatal(err: Error): void;
  /** Called when a partition had to be rewound: the shard is behind until it catches up. */
  onRewind(partition: number): void;
  /** Called when the apply script found the shard built from something else (nothing was applied). */
  onDrift(builtFrom: string): void;
  /** Offsets already applied, as stored in Redis at start. */
  known: Map<number, bigint>;
  /** Counts what the applier does (metrics.ts). */
  metrics?: ShardMetrics;
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
  /**
   * How long the newest record of the latest apply call waited between its write to the log and its
   * apply (ms; the record's log timestamp against this clock), or 0 when no call applied anything in
   * the last APPLY_DELAY_FRESH_MS: what the node's own work is weighed against (its move drainer).
   */
  readonly applyDelayMs: number;
  /** Calls `listener` after every apply call that moved `known` on; returns the unsubscription. */
  onProgress(listener: () => void): () => void;
  /** Stops fetching every partition (the batch in flight finishes), until resume(): while a snapshot is loaded. */
  pause(): void;
  resume(): void;
  /** Stops fetching, lets the chunk in flight finish, commits offsets, disconnects. */
  stop(): Promise<void>;
}

/** An apply delay older than this no longer says anything about the applier (Applier.applyDelayMs). */
const APPLY_DELAY_FRESH_MS = 1000;

export async function startApplier(opts: ApplierOptions): Promise<Applier> {
  const { topic, shardId, slots, log } = opts;
  const stats: ApplierStats = { applied: 0, skipped: 0, duplicates: 0, invalid: 0, rewinds: 0 };
  let delay = { ms: 0, at: 0 };
  const listeners = new Set<() => void>();
  const loop = await startApplyLoop({
    logClient: opts.logClient,
    topic,
    groupId: `${topic}.shard.${shardId}`,
    slots,
    writer: opts.writer,
    boards: opts.boards,
    chunk: opts.applyBatch,
    consumer: {
      sessionTimeoutMs: 10_000, // 10 s: a killed node's slots are free again this soon
      heartbeatIntervalMs: 1_000,
      // a fetch returns as soon as one record arrives (kafkajs minBytes 1); an idle one waits at the broker up
      // to this long: it bounds idle polling, not apply latency (and stopping waits for the fetch in flight)
      maxWaitMs: opts.fetchWaitMs,
      maxBytesPerPartition: 4 * 1024 * 1024, // 4 MiB
    },
    // Redis holds the applied offsets, so committing every few seconds (not after every chunk:
    // a Kafka round trip per partition per fetch) costs nothing in correctness.
    commitEveryMs: 5_000,
    startAfter: opts.startAfter,
    onInvalid(partition, offset, problem) {
      stats.invalid++;
      opts.metrics?.invalid.inc();
      log.error({ partition, offset: offset.toString(), problem }, "skipping unusable record");
    },
    onApplied(partition, result, _records, lastTimestampMs) {
      const now = Date.now();
      delay = { ms: Math.max(0, now - lastTimestampMs), at: now };
      opts.metrics?.applyDelay.observe(delay.ms / 1000);
      stats.applied += result.applied;
      stats.skipped += result.skipped;
      stats.duplicates += result.duplicates;
      opts.metrics?.applied.inc(result.applied);
      opts.metrics?.skipped.inc(result.skipped);
      opts.metrics?.duplicates.inc(result.duplicates);
      opts.known.set(partition, result.lastOffset);
      for (const listener of listeners) listener();
    },
    onGap(partition, result, fetchedFrom, consumer) {
      const offset = (result.lastOffset + 1n).toString();
      stats.rewinds++;
      opts.metrics?.rewinds.inc();
      log.warn({ partition, offset, fetched: fetchedFrom }, "records missing from Redis: rewinding to replay them");
      opts.onRewind(partition);
      consumer.seek(partition, result.lastOffset + 1n);
    },
    onDrift: (_partition, builtFrom) => opts.onDrift(builtFrom),
    onFatal: opts.onFatal,
  });
  log.info({ topic, slots: slots.length }, "applier running");
  return {
    stats,
    known: opts.known,
    get applyDelayMs() {
      return Date.now() - delay.at <= APPLY_DELAY_FRESH_MS ? delay.ms : 0;
    },
    rewind(partition, stored) {
      stats.rewinds++;
      opts.metrics?.rewinds.inc();
      opts.known.set(partition, stored);
      loop.consumer.seek(partition, stored + 1n);
    },
    onProgress(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    stop: () => loop.stop(),
    pause: () => loop.consumer.pause(),
    resume: () => loop.consumer.resume(),
  };
}
