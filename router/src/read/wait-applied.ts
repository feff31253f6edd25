/**
 * Read your writes: before a read that carries a consistency token, wait until every shard
 * owning one of the token's partitions has applied at least the token's offset there.
 * Polls the shards' applied offsets (one HMGET per shard per round, backing off with jitter
 * from 2 ms to 25 ms, platform/src/backoff.ts); gives up with UNAVAILABLE (retriable) after `maxWaitMs` or at the caller's
 * deadline, whichever is first. Each wait is timed by outcome (ladder_router_consistency_wait_seconds).
 */
import type { RequiredOffsets } from "@ladder/model/consistency-token";
import { POLL_BACKOFF, RetryExhausted, retryUntil } from "@ladder/platform/backoff";
import { LadderError, unavailable } from "@ladder/model/errors";
import { secondsSince } from "@ladder/platform/metrics";
import type { ShardReader } from "@ladder/store";
import type { ShardPool } from "./shard-pool.js";
import { codeName, routerMetrics } from "../metrics.js";

export async function waitApplied(pool: ShardPool, required: RequiredOffsets, maxWaitMs: number, deadlineMs: number): Promise<void> {
  if (required.size === 0) return;
  const byShard = new Map<ShardReader, Array<[number, bigint]>>();
  for (const [partition, offset] of required) {
    const store = pool.ownerOfSlot(partition);
    byShard.set(store, [...(byShard.get(store) ?? []), [partition, offset]]);
  }
  const giveUpAt = Math.min(deadlineMs, Date.now() + maxWaitMs);
  const startedAt = performance.now();
  let code = "OK";
  try {
    await Promise.all([...byShard].map(([store, needs]) => waitShard(pool, store, needs, giveUpAt)));
  } catch (err) {
    code = codeName(LadderError.from(err).code);
    throw err;
  } finally {
    routerMetrics().tokenWait.observe({ code }, secondsSince(startedAt));
  }
}

async function waitShard(pool: ShardPool, store: ShardReader, needs: Array<[number, bigint]>, giveUpAt: number): Promise<void> {
  const partitions = needs.map(([p]) => p);
  try {
    await retryUntil(
      async () => {
        const applied = await pool.call(store, (s) => s.appliedOffsetsOf(partitions), giveUpAt);
        if (!needs.every(([, offset], i) => applied[i]! >= offset)) throw notApplied(store);
      },
      { ...POLL_BACKOFF, what: store.shardId, timeoutMs: giveUpAt - Date.now() },
    );
  } catch (err) {
    if (err instanceof RetryExhausted) throw notApplied(store);
    throw err;
  }
}

function notApplied(store: ShardReader) {
  return unavailable(`${store.shardId} has not applied the writes of the consistency token yet`);
}
