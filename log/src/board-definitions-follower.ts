/**
 * The board definitions topic (`<score topic>.boards`: one partition, compacted, key = board
 * name, value = a BoardDefinition, encoded by @ladder/model/board-definitions): writing a
 * definition or its tombstone, and following the topic (compacted-follower.ts) into the
 * catalog a router or ingest serves from. What a definition means, and why shard nodes need
 * not follow it, is said in @ladder/model/board-definitions.
 */
import type { RecordProducer } from "./record-producer.js";
import type { BoardDefinition } from "@ladder/proto/leaderboard/v1/admin_pb";
import { BoardCatalog, decodeDefinition, encodeDefinition } from "@ladder/model/board-definitions";
import type { BoardSpecs } from "@ladder/model/board-spec";
import { LAUNCH_BACKOFF, retryUntil } from "@ladder/platform/backoff";
import type { Config } from "@ladder/platform/config";
import type { Logger } from "@ladder/platform/logger";
import { CompactedFollower, ensureCompactedTopic } from "./compacted-follower.js";
import type { LogHandle } from "./log-handle.js";

export const boardsTopicOf = (scoreTopic: string) => `${scoreTopic}.boards`;

/** Creates the definitions topic if it does not exist: one partition, compacted, durable as the score topic. */
export const ensureBoardsTopic = ensureCompactedTopic;

/** Writes a definition; resolves with its offset once the topic has it (acks from all in-sync replicas). */
export async function publishDefinition(producer: RecordProducer, topic: string, d: BoardDefinition): Promise<bigint> {
  const [meta] = await producer.send(topic, [{ key: d.name, value: encodeDefinition(d), partition: 0 }]);
  return BigInt(meta!.baseOffset);
}

/** Removes a board's definition (a tombstone of its name; compaction drops the name); resolves with the tombstone's offset. */
export async function removeDefinition(producer: RecordProducer, topic: string, name: string): Promise<bigint> {
  const [meta] = await producer.send(topic, [{ key: name, value: null, partition: 0 }]);
  return BigInt(meta!.baseOffset);
}

export interface FollowerOptions {
  /** The caller's LogClient. */
  client: LogHandle;
  topic: string;
  /** Specs of boards without a definition; undefined: such boards are refused. */
  implicit: BoardSpecs | undefined;
  replication?: number;
  minInsyncReplicas?: number;
  /** Longest wait of a fetch at the broker when no definition comes (ms; default 5 s). */
  fetchWaitMs?: number;
  log: Logger;
}

/** Follows the definitions topic (compacted-follower.ts); `catalog` is always the latest whole catalog read. */
export class BoardDefinitions {
  private constructor(private readonly follower: CompactedFollower<BoardCatalog>) {}

  get catalog(): BoardCatalog {
    return this.follower.state;
  }

  /** Creates the topic if needed, reads it to its end, then follows it. */
  static async start(o: FollowerOptions): Promise<BoardDefinitions> {
    const { client, ...rest } = o;
    const follower = await CompactedFollower.start<BoardCatalog>({
      ...rest,
      kafka: client.kafka,
      admin: client.admin,
      what: "board definitions",
      initial: new BoardCatalog(o.implicit),
      apply: (catalog, records) => {
        const next = catalog.clone();
        for (const r of records) {
          try {
            next.apply(r.key, r.value ? decodeDefinition(r.value) : undefined);
          } catch (err) {
            o.log.error({ err, offset: r.offset.toString(), board: r.key }, "unusable board definition record: skipped");
          }
        }
        return next;
      },
    });
    o.log.info({ topic: o.topic, boards: follower.state.size }, "board definitions read");
    return new BoardDefinitions(follower);
  }

  /** Resolves once the catalog holds every record up to `offset` (-1: at once); rejects after `timeoutMs`. */
  waitFor(offset: bigint, timeoutMs: number): Promise<void> {
    return this.follower.waitFor(offset, timeoutMs);
  }

  stop(): Promise<void> {
    return this.follower.stop();
  }
}

/** How long a service waits at start for the definitions (Kafka coming up). */
const START_WAIT_MS = 120_000;

/** A service's follower as its configuration says, retried while Kafka comes up: what router and ingest serve from. */
export function followBoardDefinitions(
  config: Pick<Config, "scoreTopic" | "implicitBoards" | "boards" | "topicReplication" | "topicMinInsync" | "fetchWaitMs">,
  client: LogHandle,
  log: Logger,
): Promise<BoardDefinitions> {
  const topic = boardsTopicOf(config.scoreTopic);
  return retryUntil(
    () =>
      BoardDefinitions.start({
        client,
        topic,
        implicit: config.implicitBoards ? config.boards : undefined,
        log,
        fetchWaitMs: config.fetchWaitMs,
        ...(config.topicReplication ? { replication: config.topicReplication } : {}),
        ...(config.topicMinInsync ? { minInsyncReplicas: config.topicMinInsync } : {}),
      }),
    { ...LAUNCH_BACKOFF, what: `board definitions (${topic})`, timeoutMs: START_WAIT_MS },
  );
}
