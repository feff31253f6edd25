/**
 * The placement as versioned data: which shards there are, where their Redis is, and which
 * shard owns each slot, with an epoch that grows by one at every change.
 *
 * WHERE IT LIVES. In a compacted Kafka topic, `<score topic>.placement` (one partition), as a
 * PlacementRecord keyed "placement": the newest record is the placement. Routers, shard nodes
 * and ingest read it whole before they work and follow it (compacted-follower.ts). Kafka is
 * already the cluster's durable truth, replicated as the score topic is, and every process
 * already talks to it: no other store to run. The first record (epoch 1) is written from
 * LADDER_SHARDS by the first process that finds the topic empty; from then on LADDER_SHARDS is
 * only that seed, and AdminService.Reshard writes each next epoch (router/src/reshard.ts).
 *
 * HOW A CHANGE IS SAFE. The table is plain data, replaced whole. What keeps reads exact while
 * it changes is not the record but the shards' stamps (store/src/identity.ts): a shard's stamp
 * names the slots it holds, every read checks it against the reader's placement in the same
 * atomic script as the data, and a shard rebuilt for a new slot set carries the new stamp. So
 * a read by epoch e answers only while every shard it asks holds exactly its epoch-e slots,
 * whatever the processes have heard of the topic so far; a reader, node or router still on an
 * older epoch is refused, never answered from a mix.
 *
 * Costs: one record of about 100 bytes plus 2 per slot; followers fetch only when it changes.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { Admin, Kafka } from "kafkajs";
import { PlacementRecordSchema } from "@ladder/proto/leaderboard/v1/events_pb";
import { LAUNCH_BACKOFF, RetryExhausted, retryUntil } from "./backoff.js";
import { CompactedFollower } from "./compacted-follower.js";
import type { Config, ShardAddress } from "./config.js";
import type { Logger } from "./logger.js";
import { buildPlacement, placementFromTable, type Placement } from "./placement.js";

export interface ClusterPlacement {
  readonly epoch: number;
  readonly shards: readonly ShardAddress[];
  readonly placement: Placement;
  readonly writtenAtMs: number;
}

export const placementTopicOf = (scoreTopic: string) => `${scoreTopic}.placement`;
const KEY = "placement";

/** The placement of `shards` at `epoch`: the balanced ring table of placement.ts. */
export function placementOf(epoch: number, shards: readonly ShardAddress[], numSlots: number, writtenAtMs = Date.now()): ClusterPlacement {
  return Object.freeze({ epoch, shards: Object.freeze([...shards]), placement: buildPlacement(shards.map((s) => s.id), numSlots), writtenAtMs });
}

export function encodePlacement(p: ClusterPlacement): Buffer {
  const index = new Map(p.shards.map((s, i) => [s.id, i]));
  return Buffer.from(toBinary(PlacementRecordSchema, create(PlacementRecordSchema, {
    epoch: BigInt(p.epoch), writtenAtMs: BigInt(p.writtenAtMs),
    shards: p.shards.map((s) => ({ id: s.id, redisUrl: s.redisUrl })),
    slotToShard: p.placement.slotToShard.map((id) => index.get(id)!),
  })));
}

/** A record's placement; throws on a record that is not one, or is of another number of slots. */
export function decodePlacement(value: Uint8Array, numSlots: number): ClusterPlacement {
  const r = fromBinary(PlacementRecordSchema, value);
  if (r.slotToShard.length !== numSlots) throw new Error(`a placement of ${r.slotToShard.length} slots, not ${numSlots} (LADDER_SLOTS)`);
  const shards = r.shards.map((s) => Object.freeze({ id: s.id, redisUrl: s.redisUrl }));
  return Object.freeze({ epoch: Number(r.epoch), shards: Object.freeze(shards), placement: placementFromTable(shards.map((s) => s.id), r.slotToShard), writtenAtMs: Number(r.writtenAtMs) });
}

/** The slots whose owner differs between two placements (from "" for a slot with none). */
export function movedSlots(from: Placement, to: Placement): Array<{ slot: number; from: string; to: string }> {
  return to.slotToShard.flatMap((owner, slot) => (from.slotToShard[slot] === owner ? [] : [{ slot, from: from.slotToShard[slot] ?? "", to: owner }]));
}

/** The topic holds placements, but none usable by this process (another LADDER_SLOTS): a configuration error, final. */
export class PlacementUnusable extends Error {
  override readonly name = "PlacementUnusable";
}

type Seed = Pick<Config, "scoreTopic" | "numSlots" | "shards" | "topicReplication" | "topicMinInsync" | "fetchWaitMs">;

/** Follows the placement topic; `current` is the newest placement read. */
export class PlacementLog {
  private constructor(private readonly follower: CompactedFollower<ClusterPlacement | undefined>, private readonly kafka: Kafka, private readonly topic: string) {}

  /** Reads the topic to its end (creating it, and writing epoch 1 from `seed.shards` when it is empty), then follows it. */
  static async start(seed: Seed, kafka: Kafka, admin: Admin, log: Logger): Promise<PlacementLog> {
    const topic = placementTopicOf(seed.scoreTopic);
    let unusable: string | undefined; // why the newest record could not be used, if it could not
    const follower = await CompactedFollower.start<ClusterPlacement | undefined>({
      kafka, admin, topic, what: "placement", initial: undefined, log, fetchWaitMs: seed.fetchWaitMs,
      ...(seed.topicReplication ? { replication: seed.topicReplication } : {}), ...(seed.topicMinInsync ? { minInsyncReplicas: seed.topicMinInsync } : {}),
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
    const p = new PlacementLog(follower, kafka, topic);
    if (unusable !== undefined) {
      // never write over a cluster's placement from a configuration that cannot read it
      await follower.stop();
      throw new PlacementUnusable(`the placement in ${topic} cannot be used: ${unusable}`);
    }
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
    const producer = this.kafka.producer({ allowAutoTopicCreation: false, idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      const [meta] = await producer.send({ topic: this.topic, acks: -1, messages: [{ key: KEY, value: encodePlacement(next), partition: 0 }] });
      await this.follower.waitFor(BigInt(meta!.baseOffset ?? meta!.offset ?? "-1"), 30_000);
    } finally {
      await producer.disconnect();
    }
  }

  stop(): Promise<void> {
    return this.follower.stop();
  }
}

/** How long a service waits at start for the placement (Kafka coming up). */
const START_WAIT_MS = 120_000;

/**
 * A service's placement log, retried while Kafka comes up. A topic whose placement this process
 * cannot use rejects with PlacementUnusable at once (waiting won't fix it): the service should
 * stop with EX_CONFIG (78), as for any other configuration mismatch.
 */
export async function followPlacement(seed: Seed, kafka: Kafka, admin: Admin, log: Logger): Promise<PlacementLog> {
  try {
    return await retryUntil(() => PlacementLog.start(seed, kafka, admin, log), {
      ...LAUNCH_BACKOFF, what: `the placement (${placementTopicOf(seed.scoreTopic)})`, timeoutMs: START_WAIT_MS,
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
