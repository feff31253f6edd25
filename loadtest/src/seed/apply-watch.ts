/**
 * Waiting for the shard nodes to apply what the Kafka path produced. Each shard's Redis
 * holds, per partition, the last offset applied (the `offsets` hash of keys.ts), moved
 * atomically with the effects; the seeder knows each partition's end offset before and
 * after producing. Progress = the seeded records at or below the applied offsets.
 */
import type { Redis } from "ioredis";

/** Partition -> offset. */
export type Offsets = ReadonlyMap<number, bigint>;

/**
 * Records of [before, after) (end offsets, exclusive) applied per `applied` (last applied
 * offset, inclusive; a partition missing from it has applied nothing).
 */
export function appliedSince(before: Offsets, after: Offsets, applied: Offsets): number {
  let done = 0n;
  for (const [p, end] of after) {
    const start = before.get(p) ?? 0n;
    const upto = (applied.get(p) ?? -1n) + 1n;
    const clamped = upto < start ? start : upto > end ? end : upto;
    done += clamped - start;
  }
  return Number(done);
}

/** Records between the end offsets `before` and `after`. */
export function seededCount(before: Offsets, after: Offsets): number {
  let n = 0n;
  for (const [p, end] of after) n += end - (before.get(p) ?? 0n);
  return Number(n);
}

/** The applied offsets of every partition, merged over the shards' Redis. */
export async function readApplied(shards: readonly Redis[], offsetsKey: string): Promise<Map<number, bigint>> {
  const merged = new Map<number, bigint>();
  for (const raw of await Promise.all(shards.map((r) => r.hgetall(offsetsKey)))) {
    for (const [p, o] of Object.entries(raw)) {
      const offset = BigInt(o);
      const partition = Number(p);
      if (offset > (merged.get(partition) ?? -1n)) merged.set(partition, offset);
    }
  }
  return merged;
}

export interface WatchDeps {
  before: Offsets;
  after: Offsets;
  read(): Promise<Offsets>;
  onProgress(applied: number): void;
  pollMs: number;
  /** Give up after this long without progress. */
  stallMs: number;
  sleep(ms: number): Promise<void>;
  clock(): number;
}

/** Polls until everything is applied (true) or nothing moved for stallMs (false). */
export async function watchApplied(d: WatchDeps): Promise<boolean> {
  const total = seededCount(d.before, d.after);
  let last = -1;
  let lastMoveMs = d.clock();
  for (;;) {
    const done = appliedSince(d.before, d.after, await d.read());
    d.onProgress(done);
    if (done >= total) return true;
    if (done > last) {
      last = done;
      lastMoveMs = d.clock();
    } else if (d.clock() - lastMoveMs > d.stallMs) {
      return false;
    }
    await d.sleep(d.pollMs);
  }
}

/** Records after `start` (per partition, the next offset at the start) up to `applied` (last applied, inclusive), with no end: what the benches count. */
export function appliedAfter(start: Offsets, applied: Offsets): number {
  let n = 0n;
  for (const [p, last] of applied) {
    const done = last + 1n - (start.get(p) ?? 0n);
    if (done > 0n) n += done;
  }
  return Number(n);
}

/** A reading of the records every shard applied after `start`. */
export function appliedCounter(shards: readonly Redis[], offsetsKey: string, start: Offsets): () => Promise<number> {
  return async () => appliedAfter(start, await readApplied(shards, offsetsKey));
}

/**
 * Polls the shards every 100 ms until every partition of `target` is applied: the ms waited; throws
 * (naming the partitions behind) when no partition caught up for `stallMs`.
 */
export async function untilApplied(shards: readonly Redis[], offsetsKey: string, target: Offsets, stallMs: number): Promise<number> {
  const t0 = performance.now();
  for (let left = -1, since = t0; ; await new Promise((r) => setTimeout(r, 100))) {
    const applied = await readApplied(shards, offsetsKey);
    const behind = [...target].filter(([p, o]) => (applied.get(p) ?? -1n) < o).map(([p]) => p);
    if (behind.length === 0) return performance.now() - t0;
    if (behind.length !== left) [left, since] = [behind.length, performance.now()];
    if (performance.now() - since > stallMs)
      throw new Error(`the shard nodes applied nothing more for ${stallMs / 1000} s; partitions behind: ${behind.join(", ")}`);
  }
}
