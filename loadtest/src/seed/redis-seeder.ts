/**
 * The Redis path: players go straight into each shard's sorted set of the board with
 * variadic ZADD (`batch` members per command, `parallel` commands in flight per shard,
 * every shard at once), member = player id, score = the board's sort key
 * (score-encoding.ts), on the shard placement gives the player.
 *
 * This skips the score log: nothing is in Kafka, and a shard rebuilt from the log will not
 * have these players. It is for benchmarks of reads at scale, where producing and
 * applying hundreds of millions of records first would take hours.
 */
import type { Redis } from "ioredis";
import type { BoardSpec } from "@ladder/model/board-spec";
import type { Placement } from "@ladder/model/placement";
import { encodeSortKey } from "@ladder/model/score-encoding";
import { InFlightLimit } from "./in-flight-limit.js";
import type { SeededPlayer } from "./population.js";

export interface RedisShard {
  id: string;
  redis: Redis;
}

export interface RedisSeedDeps {
  shards: readonly RedisShard[];
  placement: Placement;
  /** The board's sorted-set key (the same on every shard). */
  key: string;
  spec: BoardSpec;
  batch: number;
  parallel: number;
  players: Iterable<SeededPlayer[]>;
  /** Members written so far. */
  onProgress(written: number): void;
}

/** Members written, ZADD commands sent, and members written per shard id. */
export async function seedRedis(d: RedisSeedDeps) {
  const index = new Map(d.shards.map((s, i) => [s.id, i]));
  const shardOfSlot = d.placement.slotToShard.map((id) => {
    const i = index.get(id);
    if (i === undefined) throw new Error(`placement names shard ${id}, which has no Redis configured`);
    return i;
  });
  const lanes = d.shards.map((s) => ({ shard: s, args: [] as Array<string | number>, limit: new InFlightLimit(d.parallel), written: 0 }));
  let written = 0;
  let commands = 0;
  const flush = async (lane: (typeof lanes)[number]) => {
    const args = lane.args;
    lane.args = [];
    commands++;
    await lane.limit.run(async () => {
      await lane.shard.redis.zadd(d.key, ...args);
      lane.written += args.length / 2;
      written += args.length / 2;
      d.onProgress(written);
    });
  };
  for (const chunk of d.players) {
    for (const p of chunk) {
      const lane = lanes[shardOfSlot[p.slot]!]!;
      lane.args.push(encodeSortKey(d.spec, p.points, p.reachedAtMs), p.playerId);
      if (lane.args.length >= 2 * d.batch) await flush(lane);
    }
  }
  for (const lane of lanes) if (lane.args.length) await flush(lane);
  await Promise.all(lanes.map((l) => l.limit.drain()));
  if (d.spec.ttlSeconds > 0) await Promise.all(d.shards.map((s) => s.redis.call("EXPIRE", d.key, d.spec.ttlSeconds, "NX")));
  return { written, commands, perShard: Object.fromEntries(lanes.map((l) => [l.shard.id, l.written])) };
}
