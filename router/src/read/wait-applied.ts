/**
 * Read your writes: before a read that carries a consistency token, wait until every shard
 * owning one of the token's partitions has applied at least the token's offset there.
 * Polls the shards' applied offsets (one HMGET per shard per round, backing off with jitter
 * from 2 ms to 25 ms, platform/src/backoff.ts) on each shard's primary, asked again through a
 * failover (replicated-reader.ts); gives up with UNAVAILABLE (retriable) after `maxWaitMs` or at the
 * caller's deadline, whichever is first, with the reason: the shard's last refusal while it did not
 * answer, else that it has not applied the token's writes yet. Each wait is timed by outcome (ladder_router_consistency_wait_seconds).
 */
import type { RequiredOffsets } from "@ladder/model/consistency-token";
import { POLL_BACKOFF, RetryExhausted, retryUntil } from "@ladder/platform/backoff";
import { LadderError, unavailable } from "@ladder/model/errors";
import { secondsSince } from "@ladder/platform/metrics";
import type { ShardReader } from "@ladder/store";
import type { ShardPool } from "./shard-pool.js";
import { isNoAnswer } from "./shard-calls.js";
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

/**
 * Polls `store` (a shard's primary) until it applied `needs`. Given up, the refusal says why: that
 * the shard did not answer (the last reason it gave: "primary lost, failover in progress", say)
 * when its last call failed, else that it has not applied the token's writes yet.
 */
async function waitShard(pool: ShardPool, store: ShardReader, needs: Array<[number, bigint]>, giveUpAt: number): Promise<void> {
  const partitions = needs.map(([p]) => p);
  let refusal: LadderError | undefined;
  try {
    await retryUntil(
      async () => {
        let applied: bigint[];
        try {
          applied = await pool.call(store, (s) => s.appliedOffsetsOf(partitions), giveUpAt);
        } catch (err) {
          // a call cut short by the wait's own end says less than the reason the one before gave
          if (!(refusal && isNoAnswer(err))) refusal = LadderError.from(err);
          throw err;
        }
        refusal = undefined;
        if (!needs.every(([, offset], i) => applied[i]! >= offset)) throw notApplied(store);
      },
      { ...POLL_BACKOFF, what: store.shardId, timeoutMs: giveUpAt - Date.now() },
    );
  } catch (err) {
    if (err instanceof RetryExhausted) throw refusal ?? notApplied(store);
    throw err;
  }
}

function notApplied(store: ShardReader) {
  return unavailable(`${store.shardId} has not applied the writes of the consistency token yet`);
}
