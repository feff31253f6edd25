/**
 * How many records the shard nodes have applied since a starting point: each shard's
 * Redis holds the last applied offset of each of its partitions (store/src/keys.ts, `offsets`),
 * moved in the same atomic call as the effects, so a record counted here is visible in
 * Redis. Partitions are read from every shard and merged (seed/apply-watch.ts).
 */
import type { Redis } from "ioredis";
import { readApplied, type Offsets } from "../../seed/apply-watch.js";

/** Records after `start` (per partition, the next offset at the start) up to `applied` (last applied, inclusive). */
export function appliedAfter(start: Offsets, applied: Offsets): number {
  let n = 0n;
  for (const [p, last] of applied) {
    const done = last + 1n - (start.get(p) ?? 0n);
    if (done > 0n) n += done;
  }
  return Number(n);
}

export function appliedCounter(shards: readonly Redis[], offsetsKey: string, start: Offsets): () => Promise<number> {
  return async () => appliedAfter(start, await readApplied(shards, offsetsKey));
}
