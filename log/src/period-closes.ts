/**
 * The closes topic, `<score topic>.closes`: one close event (PeriodClose, model/src/close-record.ts)
 * per closed period, compacted by its key "<board>#<generation>@<period>", which a game's reward
 * service consumes. Routers follow it (compacted-follower.ts) and write to it.
 *
 * EXACTLY ONCE. Every closer writes with one transactional id, `<score topic>.closer`. A write
 * (writeCloseOnce) first begins a transaction, whose InitProducerId fences every other producer of
 * that id: the broker aborts a transaction they left open, and their later sends and commits fail.
 * Only then does it read the topic to its end, read_committed, and look for the key: an event
 * committed by anyone before the fence is seen, and none can be committed after it but this one.
 * So two closers at once, or a closer that died anywhere in the middle and its successor, write
 * one event per period; an event written twice is impossible, not merely tolerated. Readers of the
 * topic must read committed records only (kafkajs's default; an aborted event stays in the log).
 */
import type { Kafka } from "kafkajs";
import type { Logger } from "@ladder/platform/logger";
import type { Config } from "@ladder/platform/config";
import { LAUNCH_BACKOFF, retryUntil } from "@ladder/platform/backoff";
import { decodePeriodClose, type PeriodClose } from "@ladder/model/close-record";
import { CompactedFollower } from "./compacted-follower.js";
import { topicOffsets } from "./kafka.js";
import type { LogHandle } from "./log-handle.js";

export const closesTopicOf = (scoreTopic: string) => `${scoreTopic}.closes`;
/** The one transactional id of every closer of a cluster. */
export const closerTransactionalIdOf = (scoreTopic: string) => `${scoreTopic}.closer`;

/** How long a follower waits for the topic's end at start and before a write. */
const READ_TO_END_MS = 30_000;

/** The close events read, by key, and how many records of each key were read. */
interface CloseState {
  events: ReadonlyMap<string, PeriodClose>;
  written: ReadonlyMap<string, number>;
}

/** The close events read so far, by key; followed (compacted-follower.ts). */
export class PeriodCloses {
  private constructor(
    private readonly follower: CompactedFollower<CloseState>,
    private readonly client: LogHandle,
    private readonly topic: string,
  ) {}

  static async start(o: {
    client: LogHandle;
    topic: string;
    replication?: number;
    minInsyncReplicas?: number;
    /** Longest wait of a fetch at the broker when no record comes (LADDER_FETCH_WAIT_MS); stopping waits for it. */
    fetchWaitMs?: number;
    log: Logger;
  }) {
    const follower = await CompactedFollower.start<CloseState>({
      kafka: o.client.kafka,
      admin: o.client.admin,
      topic: o.topic,
      what: "period closes",
      initial: { events: new Map(), written: new Map() },
      ...(o.fetchWaitMs !== undefined ? { fetchWaitMs: o.fetchWaitMs } : {}),
      ...(o.replication ? { replication: o.replication } : {}),
      ...(o.minInsyncReplicas ? { minInsyncReplicas: o.minInsyncReplicas } : {}),
      apply: (state, records) => {
        const next = { events: new Map(state.events), written: new Map(state.written) };
        for (const r of records) {
          try {
            next.written.set(r.key, (next.written.get(r.key) ?? 0) + 1);
            if (r.value) next.events.set(r.key, decodePeriodClose(r.value));
            else next.events.delete(r.key);
          } catch (err) {
            o.log.error({ err, offset: r.offset.toString(), key: r.key }, "unusable close event: skipped");
          }
        }
        return next;
      },
      log: o.log,
    });
    return new PeriodCloses(follower, o.client, o.topic);
  }

  /** The close event of a key, as read so far. */
  get(key: string): PeriodClose | undefined {
    return this.follower.state.events.get(key);
  }

  /** How many committed records of `key` were read (a compacted topic may have dropped older ones). */
  timesWritten(key: string): number {
    return this.follower.state.written.get(key) ?? 0;
  }

  /** Every close event read so far. */
  all(): PeriodClose[] {
    return [...this.follower.state.events.values()];
  }

  /** Resolves once every record now in the topic (committed, or aborted and skipped) is read. */
  async readToEnd(): Promise<void> {
    const [end] = await topicOffsets(this.client.admin, this.topic);
    await this.follower.waitFor(end!.high - 1n, READ_TO_END_MS);
  }

  stop(): Promise<void> {
    return this.follower.stop();
  }
}

export type CloseWrite = "written" | "exists";

/**
 * Writes the close event of `key` unless the topic holds one (see above): fences the other closers,
 * reads the topic to its end, and writes `build()`'s value in a transaction. The value is built
 * first, outside the transaction (reading a large period must not outlast its timeout); built from
 * the frozen period, it is the same whoever builds it, but its written_at_ms. `beforeCommit` runs
 * between the send and the commit (a test's crash point). Throws when fenced by another closer.
 */
export async function writeCloseOnce(o: {
  kafka: Kafka;
  scoreTopic: string;
  closes: PeriodCloses;
  key: string;
  build: () => Promise<Buffer>;
  beforeCommit?: () => void;
}): Promise<CloseWrite> {
  const producer = o.kafka.producer({
    transactionalId: closerTransactionalIdOf(o.scoreTopic),
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
  });
  // built before the transaction begins: reading a large period must not outlast the transaction's timeout
  const value = await o.build();
  await producer.connect();
  try {
    const txn = await producer.transaction(); // InitProducerId: the other closers are fenced from here on
    try {
      await o.closes.readToEnd();
      if (o.closes.get(o.key)) {
        await txn.abort();
        return "exists";
      }
      await txn.send({ topic: closesTopicOf(o.scoreTopic), messages: [{ key: o.key, value, partition: 0 }] });
      o.beforeCommit?.();
      await txn.commit();
      return "written";
    } catch (err) {
      if (txn.isActive()) await txn.abort().catch(() => {});
      throw err;
    }
  } finally {
    await producer.disconnect().catch(() => {});
  }
}

/** How long a router waits at start for the closes topic (Kafka coming up). */
const START_WAIT_MS = 120_000;

/** A router's follower of the closes topic as its configuration says, retried while Kafka comes up. */
export function followPeriodCloses(
  config: Pick<Config, "scoreTopic" | "topicReplication" | "topicMinInsync" | "fetchWaitMs">,
  client: LogHandle,
  log: Logger,
): Promise<PeriodCloses> {
  const topic = closesTopicOf(config.scoreTopic);
  return retryUntil(
    () =>
      PeriodCloses.start({
        client,
        topic,
        log,
        fetchWaitMs: config.fetchWaitMs,
        ...(config.topicReplication ? { replication: config.topicReplication } : {}),
        ...(config.topicMinInsync ? { minInsyncReplicas: config.topicMinInsync } : {}),
      }),
    { ...LAUNCH_BACKOFF, what: `period closes (${topic})`, timeoutMs: START_WAIT_MS },
  );
}
