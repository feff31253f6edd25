/**
 * The two ceilings the ingest path is compared with, each fed the same updates:
 *
 *   raw Kafka   the same client library configured as ingest's producer (kafkajs,
 *               idempotent, maxInFlightRequests 1, acks=all: log/src/kafka.ts's
 *               createScoreProducer), the same records (key = player id, value = the
 *               binary ScoreEvent, partition = slot), one send per batch, straight
 *               to a topic like the score topic. One send at a time, as ingest's
 *               group commit does.
 *   raw Redis   one ZADD per update (what the apply script does per SET, without its
 *               bookkeeping) on the shard that placement gives the player, one pipeline
 *               per shard per batch, several batches in flight, from Node with ioredis.
 */
import type { Redis } from "ioredis";
import type { RecordProducer } from "@ladder/log/record-producer";
import { shardOf, type Placement } from "@ladder/model/placement";
import { encodeSortKey } from "@ladder/model/score-encoding";
import { encodeScoreEvent } from "@ladder/model/score-event";
import { BENCH_SPEC } from "../infra/bench-board.js";
import { asSet, type BenchUpdate } from "./update-stream.js";

/** Produces one batch (on a producer of log/src/kafka.ts's createScoreProducer, as ingest's) as ingest would have encoded it (time stamped now, as ingest does for timestamp 0). */
export async function produceBatch(producer: RecordProducer, topic: string, batch: readonly BenchUpdate[]): Promise<void> {
  const now = Date.now();
  const messages = batch.map((u) => ({ key: u.playerId, partition: u.slot, value: encodeScoreEvent(asSet(u, now), now) }));
  await producer.send(topic, messages);
}

export interface RawRedisTarget {
  placement: Placement;
  /** Connection per shard id. */
  redis: ReadonlyMap<string, Redis>;
  key: string;
}

/** ZADDs one batch, one pipeline per shard, all shards at once. */
export async function zaddBatch(t: RawRedisTarget, batch: readonly BenchUpdate[]): Promise<void> {
  const now = Date.now();
  const byShard = new Map<string, BenchUpdate[]>();
  for (const u of batch) {
    const shard = shardOf(t.placement, u.playerId);
    const list = byShard.get(shard);
    if (list) list.push(u);
    else byShard.set(shard, [u]);
  }
  await Promise.all(
    [...byShard].map(async ([shard, updates]) => {
      const pipeline = t.redis.get(shard)!.pipeline();
      for (const u of updates) pipeline.zadd(t.key, encodeSortKey(BENCH_SPEC, u.points, now), u.playerId);
      const results = (await pipeline.exec()) ?? [];
      const failed = results.find(([err]) => err);
      if (failed) throw failed[0];
    }),
  );
}
