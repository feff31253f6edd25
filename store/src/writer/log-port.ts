/**
 * What the write side needs of the log, in store's own types: store touches a shard's Redis
 * only and imports no Kafka. @ladder/log's LogClient (log-client.ts) has this shape; the
 * service that runs an apply loop, a snapshot or a rebuild passes its LogClient in (the shard
 * node's applier and snapshots, the router's rebuilds), and so composes the two.
 */

/** A record as fetched: its offset (a decimal string), its timestamp, key and value. */
export interface LogRecord {
  readonly offset: string;
  /** Milliseconds since the epoch as a decimal string: when its producer (ingest) made it, on the producer's clock. */
  readonly timestamp: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
}

/** What a batch's handler may do with the consumer (log's partition-consumer.ts). */
export interface BatchControl {
  /** False once the consumer stops or the batch went stale: handle no more of it. */
  isRunning(): boolean;
  /** Fetches `partition` from `offset` on (after this batch). */
  seek(partition: number, offset: bigint): void;
  /** Records up to `offset` are consumed: the next commit covers them. */
  resolve(offset: string): void;
  heartbeat(): Promise<void>;
  /** Commits the resolved offsets when the interval has passed and no commit is in flight (a hint only: Redis holds the truth). */
  commitIfDue(): Promise<void>;
}

export interface ConsumeOptions {
  topic: string;
  groupId: string;
  slots: readonly number[];
  settings: {
    sessionTimeoutMs?: number;
    heartbeatIntervalMs?: number;
    maxWaitMs?: number;
    maxBytesPerPartition?: number;
    maxBytes?: number;
  };
  /** Per partition, the last offset already applied (-1: none): fetching starts right after it. */
  startAfter?: ReadonlyMap<number, bigint>;
  commitEveryMs?: number;
  onBatch(partition: number, records: readonly LogRecord[], control: BatchControl): Promise<void>;
  onFatal?(err: Error): void;
  onCommit?(): void;
}

export interface PartitionConsumer {
  seek(partition: number, offset: bigint): void;
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

/** What the apply loop needs: a consumer of partitions whose offsets it owns. */
export interface ApplyLog {
  consume(o: ConsumeOptions): Promise<PartitionConsumer>;
}

/** What snapshots need: the snapshot topic's shape and offsets, and reading ranges of it. */
export interface SnapshotLog {
  partitionsOf(topic: string): Promise<number | undefined>;
  offsets(topic: string): Promise<Array<{ partition: number; low: bigint; high: bigint }>>;
  readRange(o: {
    topic: string;
    partition: number;
    from: bigint;
    until: bigint;
    onRecord(record: LogRecord): Promise<void> | void;
    signal?: AbortSignal;
  }): Promise<void>;
}

/** Where a snapshot is written: each send waits for acks=all and answers each partition's base offset. */
export interface SnapshotWriter {
  send(
    topic: string,
    records: ReadonlyArray<{ key: string; value: Buffer | null; partition: number }>,
  ): Promise<Array<{ partition: number; baseOffset: string }>>;
}

/** What a rebuild needs: the apply loop's and snapshots' needs, the log's ends, and deleting its throwaway group. */
export interface RebuildLog extends ApplyLog, SnapshotLog {
  endOffsets(topic: string): Promise<Map<number, bigint>>;
  deleteGroup(groupId: string): Promise<void>;
}
