/**
 * The placement topic, `<score topic>.placement` (one partition, compacted, key "placement"):
 * read whole before a process works, then followed (compacted-follower.ts); the first record is
 * written from LADDER_SHARDS by the first process that finds it empty. What the record holds
 * and why a change is safe: @ladder/model/placement-record.
 */
import type { Kafka } from "kafkajs";
import { decodePlacement, encodePlacement, placementOf, type ClusterPlacement } from "@ladder/model/placement-record";
import { LAUNCH_BACKOFF, RetryExhausted, retryUntil } from "@ladder/platform/backoff";
import type { Config } from "@ladder/platform/config";
import type { Logger } from "@ladder/platform/logger";
import { CompactedFollower } from "./compacted-follower.js";
import type { LogHandle } from "./log-handle.js";

export const placementTopicOf = (scoreTopic: string) => `${scoreTopic}.placement`;
const KEY = "placement";

/** The topic holds placements, but none usable by this process (another LADDER_SLOTS): a configuration error, final. */
export class PlacementUnusable extends Error {
  override readonly name = "PlacementUnusable";
}

type Seed = Pick<Config, "scoreTopic" | "numSlots" | "shards" | "topicReplication" | "topicMinInsync" | "fetchWaitMs">;

/** A connected writer of placements (PlacementLog.openPublisher). */
export interface PlacementPublisher {
  /** Writes `next` (acknowledged by every in-sync replica) and resolves once the follower has read it. */
  publish(next: ClusterPlacement): Promise<void>;
  close(): Promise<void>;
}

/** Follows the placement topic; `current` is the newest placement read. */
export class PlacementLog {
  private constructor(
    private readonly follower: CompactedFollower<ClusterPlacement | undefined>,
    private readonly kafka: Kafka,
    private readonly topic: string,
  ) {}

  /**
   * Reads the topic to its end (creating it, and writing epoch 1 from `seed.shards` when it is empty), then follows it.
   * Placements are written through `publisher` (the router's control login), `client` when not given.
   */
  static async start(seed: Seed, client: LogHandle, log: Logger, publisher: LogHandle = client): Promise<PlacementLog> {
    const { follower, topic } = await startFollower(seed, client, log);
    const p = new PlacementLog(follower, publisher.kafka, topic);
    if (!follower.state) {
      await p.publish(placementOf(1, seed.shards, seed.numSlots));
      log.info({ topic, shards: seed.shards.map((s) => s.id) }, "placement topic was empty: wrote epoch 1 from LADDER_SHARDS");
    }
    log.info({ topic, epoch: p.current.epoch, shards: p.current.shards.map((s) => s.id) }, "placement read");
    return p;
  }

  /** The newest placement read. */
  get current(): ClusterPlacement {
    return this.follower.state!;
  }

  /** Calls `listener` when a newer placement is read; returns a function that removes it. */
  onChange(listener: (next: ClusterPlacement, previous: ClusterPlacement) => void): () => void {
    return this.follower.onChange((next, previous) => {
      if (next && previous && next !== previous) listener(next, previous);
    });
  }

  /** Writes `next` (acknowledged by every in-sync replica) and resolves once this follower has read it. */
  async publish(next: ClusterPlacement): Promise<void> {
    const publisher = await this.openPublisher();
    try {
      await publisher.publish(next);
    } finally {
      await publisher.close();
    }
  }

  /**
   * A connected writer of placements, for a caller that publishes at a moment that counts: a reshard
   * opens it before its cut-over, so that publishing then costs one send, not a producer's start
   * (a connection and an idempotent producer's id: about 100 ms, while reads wait for the placement).
   */
  async openPublisher(): Promise<PlacementPublisher> {
    const producer = this.kafka.producer({ allowAutoTopicCreation: false, idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    return {
      publish: async (next) => {
        const [meta] = await producer.send({
          topic: this.topic,
          acks: -1,
          messages: [{ key: KEY, value: encodePlacement(next), partition: 0 }],
        });
        await this.follower.waitFor(BigInt(meta!.baseOffset ?? meta!.offset ?? "-1"), 30_000);
      },
      close: () => producer.disconnect(),
    };
  }

  stop(): Promise<void> {
    return this.follower.stop();
  }
}

/**
 * The placement topic read to its end, then followed. A newest record this process cannot use (another
 * LADDER_SLOTS) rejects with PlacementUnusable, the follower stopped: nothing may write over it.
 */
async function startFollower(seed: Seed, client: LogHandle, log: Logger) {
  const topic = placementTopicOf(seed.scoreTopic);
  let unusable: string | undefined; // why the newest record could not be used, if it could not
  const follower = await CompactedFollower.start<ClusterPlacement | undefined>({
    kafka: client.kafka,
    admin: client.admin,
    topic,
    what: "placement",
    initial: undefined,
    log,
    fetchWaitMs: seed.fetchWaitMs,
    ...(seed.topicReplication ? { replication: seed.topicReplication } : {}),
    ...(seed.topicMinInsync ? { minInsyncReplicas: seed.topicMinInsync } : {}),
    apply: (current, records) => {
      let next = current;
      for (const r of records) {
        if (r.key !== KEY || !r.value) continue;
        try {
          next = decodePlacement(r.value, seed.numSlots);
          unusable = undefined;
        } catch (err) {
          unusable = (err as Error).message;
          log.error({ err, offset: r.offset.toString(), topic }, "unusable placement record: skipped");
        }
      }
      return next;
    },
  });
  if (unusable !== undefined) {
    await follower.stop();
    throw new PlacementUnusable(`the placement in ${topic} cannot be used: ${unusable}`);
  }
  return { follower, topic };
}

/**
 * The cluster's placement as its placement topic holds it now, read once and never written (a tool's
 * view of which shards own which slots: the seeder's); undefined while the topic holds none (no
 * process of the cluster has started). Rejects with PlacementUnusable as followPlacement does.
 */
export async function readPlacement(seed: Seed, client: LogHandle, log: Logger): Promise<ClusterPlacement | undefined> {
  if (!(await client.admin.listTopics()).includes(placementTopicOf(seed.scoreTopic))) return undefined;
  const { follower } = await startFollower(seed, client, log);
  const placement = follower.state;
  await follower.stop();
  return placement;
}

/** How long a service waits at start for the placement (Kafka coming up). */
const START_WAIT_MS = 120_000;

/**
 * A service's placement log, retried while Kafka comes up. A topic whose placement this process
 * cannot use rejects with PlacementUnusable at once (waiting won't fix it): the service should
 * stop with EX_CONFIG (78), as for any other configuration mismatch.
 */
export async function followPlacement(seed: Seed, client: LogHandle, log: Logger, publisher?: LogHandle): Promise<PlacementLog> {
  try {
    return await retryUntil(() => PlacementLog.start(seed, client, log, publisher), {
      ...LAUNCH_BACKOFF,
      what: `the placement (${placementTopicOf(seed.scoreTopic)})`,
      timeoutMs: START_WAIT_MS,
      giveUp: (err) => (err instanceof PlacementUnusable ? err.message : undefined),
    });
  } catch (err) {
    throw err instanceof RetryExhausted && err.lastError instanceof PlacementUnusable ? err.lastError : err;
  }
}

/** `placement`, or exits with EX_CONFIG (78) after logging why when this process cannot use the cluster's placement. */
export function placementOrExit(placement: Promise<PlacementLog>, log: Logger): Promise<PlacementLog> {
  return placement.catch((err: unknown) => {
    if (!(err instanceof PlacementUnusable)) throw err;
    log.fatal({ err: err.message }, "this process's configuration cannot read the cluster's placement (LADDER_SLOTS?); exiting");
    process.exit(78); // EX_CONFIG
  });
}
