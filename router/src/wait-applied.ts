/**
 * Read your writes: before a read that carries a consistency token, wait until every shard
 * owning one of the token's partitions has applied at least the token's offset there.
 * Polls the shards' applied offsets (one HMGET per shard per round, backing off from 2 ms
 * to 25 ms); gives up with UNAVAILABLE (retriable) after `maxWaitMs` or at the caller's
 * deadline, whichever is first.
 */
import type { RequiredOffsets } from "@ladder/common/consistency-token";
import { unavailable } from "@ladder/common/errors";
import type { ShardReader } from "@ladder/store";
import type { ShardPool } from "./shard-pool.js";

export async function waitApplied(pool: ShardPool, required: RequiredOffsets, maxWaitMs: number, deadlineMs: number): Promise<void> {
  if (required.size === 0) return;
  const byShard = new Map<ShardReader, Array<[number, bigint]>>();
  for (const [partition, offset] of required) {
    const store = pool.ownerOfSlot(partition);
    byShard.set(store, [...(byShard.get(store) ?? []), [partition, offset]]);
  }
  const giveUpAt = Math.min(deadlineMs, Date.now() + maxWaitMs);
  await Promise.all([...byShard].map(([store, needs]) => waitShard(pool, store, needs, giveUpAt)));
}

async function waitShard(pool: ShardPool, store: ShardReader, needs: Array<[number, bigint]>, giveUpAt: number): Promise<void> {
  let delay = 2;
  for (;;) {
    if (Date.now() >= giveUpAt) throw notApplied(store);
    const applied = await pool.call(store, (s) => s.appliedOffsetsOf(needs.map(([p]) => p)), giveUpAt);
    if (needs.every(([, offset], i) => applied[i]! >= offset)) return;
    if (Date.now() + delay >= giveUpAt) throw notApplied(store);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(25, delay * 2);
  }
}

function notApplied(store: ShardReader) {
  return unavailable(`${store.shardId} has not applied the writes of the consistency token yet`);
}
