/**
 * A compacted Kafka topic followed as a whole: the board definitions (board-definitions.ts) and
 * the placement (placement-log.ts) are each one such topic, one partition, where the latest
 * record of a key is that key's value.
 *
 * A process reads the topic to its end before it uses the state (start), then keeps following
 * it: each batch of records is applied to the current state by `apply`, which returns the next
 * state, swapped in whole (a reader holds one consistent state; listeners hear each change).
 * The fetch waits at the broker until a record arrives (at most `fetchWaitMs`, which bounds
 * only idle polling), so a change is known everywhere within a fraction of a second. The
 * follower joins a consumer group of its own (random id, never committed) and deletes it when
 * it stops.
 */
import { randomUUID } from "node:crypto";
import type { Admin, Consumer, Kafka } from "kafkajs";
import { createTopic, durability, topicOffsets } from "./kafka.js";
import type { Logger } from "@ladder/platform/logger";

/** One record of the topic: its key, its value (null: a tombstone), its offset. */
export interface FollowedRecord {
  key: string;
  value: Buffer | null;
  offset: bigint;
}

export interface CompactedFollowerOptions<S> {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  /** What the topic holds, in words, for messages ("board definitions"). */
  what: string;
  initial: S;
  /** The state after `records` (in offset order) are applied to `state`; must not change `state`. */
  apply(state: S, records: readonly FollowedRecord[]): S;
  replication?: number;
  minInsyncReplicas?: number;
  /** Longest wait of a fetch at the broker when no record comes (ms; default 5 s). */
  fetchWaitMs?: number;
  log: Logger;
}

export class CompactedFollower<S> {
  private current: S;
  /** The next offset to read (everything before it is in `current`). */
  private next = 0n;
  private readonly waiters = new Set<{ offset: bigint; resolve: () => void }>();
  private readonly listeners = new Set<(state: S, previous: S) => void>();
  private consumer: Consumer | undefined;
  private readonly groupId: string;

  private constructor(private readonly o: CompactedFollowerOptions<S>) {
    this.current = o.initial;
    this.groupId = `${o.topic}.follower.${randomUUID()}`;
  }

  /** The state as of every record read so far. */
  get state(): S {
    return this.current;
  }

  /** Creates the topic if needed, reads it to its end, then follows it. */
  static async start<S>(o: CompactedFollowerOptions<S>): Promise<CompactedFollower<S>> {
    const f = new CompactedFollower(o);
    await ensureCompactedTopic(o.admin, o.topic, o);
    const [end] = await topicOffsets(o.admin, o.topic);
    try {
      await f.run();
      await f.waitFor(end!.high - 1n, 60_000);
    } catch (err) {
      await f.stop();
      throw err;
    }
    return f;
  }

  /** Calls `listener` after each change (a batch of records applied), with the state before it; returns a function that removes it. */
  onChange(listener: (state: S, previous: S) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async run(): Promise<void> {
    const consumer = this.o.kafka.consumer({
      groupId: this.groupId,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: this.o.fetchWaitMs ?? 5_000,
      sessionTimeout: 30_000,
      heartbeatInterval: 3_000,
    });
    this.consumer = consumer;
    // a batch's last offset may be a transaction's control record (period-closes.ts), which eachBatch
    // never sees: the end of each batch processed moves `next` past it all the same
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      if (payload.topic === this.o.topic) this.advance(BigInt(payload.lastOffset) + 1n);
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [this.o.topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const records = batch.messages.map((m) => ({ key: m.key?.toString("utf8") ?? "", value: m.value, offset: BigInt(m.offset) }));
        if (records.length === 0) return;
        const previous = this.current;
        this.current = this.o.apply(previous, records); // swapped whole
        this.advance(records.at(-1)!.offset + 1n);
        for (const l of this.listeners) {
          try {
            l(this.current, previous);
          } catch (err) {
            this.o.log.error({ err, topic: this.o.topic }, `a listener of the ${this.o.what} failed`);
          }
        }
      },
    });
  }

  private advance(next: bigint): void {
    if (next <= this.next) return;
    this.next = next;
    for (const w of this.waiters) if (w.offset < this.next) this.waiters.delete(w), w.resolve();
  }

  /** Resolves once the state holds every record up to `offset` (-1: at once); rejects after `timeoutMs`. */
  waitFor(offset: bigint, timeoutMs: number): Promise<void> {
    if (offset < this.next) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const w = { offset, resolve: () => (clearTimeout(timer), resolve()) };
      const timer = setTimeout(
        () => (this.waiters.delete(w), reject(new Error(`${this.o.what} not read up to offset ${offset} within ${timeoutMs} ms`))),
        timeoutMs,
      );
      this.waiters.add(w);
    });
  }

  async stop(): Promise<void> {
    this.listeners.clear();
    await this.consumer?.disconnect().catch(() => {});
    await this.o.admin.deleteGroups([this.groupId]).catch(() => {});
  }
}

/** Creates a compacted topic of one partition if it does not exist, durable as the score topic. */
export async function ensureCompactedTopic(
  admin: Admin,
  topic: string,
  wanted: { replication?: number; minInsyncReplicas?: number },
): Promise<void> {
  if ((await admin.listTopics()).includes(topic)) return;
  const { replication, minInsyncReplicas } = await durability(admin, wanted);
  await createTopic(admin, {
    topic,
    numPartitions: 1,
    replicationFactor: replication,
    configEntries: [
      { name: "cleanup.policy", value: "compact" },
      { name: "min.insync.replicas", value: String(minInsyncReplicas) },
    ],
  });
}
