/**
 * Memory figures of the shards' Redis for the seed report: used memory and the board's
 * size on each shard, so bytes per member can be read off a before/after pair.
 */
import type { Redis } from "ioredis";

export async function shardMemory(shards: ReadonlyArray<{ id: string; redis: Redis }>, boardKey: string) {
  return Promise.all(
    shards.map(async ({ id, redis }) => {
      const [info, card] = await Promise.all([redis.info("memory"), redis.zcard(boardKey)]);
      return { shard: id, usedMemoryBytes: usedMemory(info), boardMembers: card };
    }),
  );
}

export type ShardMemory = Awaited<ReturnType<typeof shardMemory>>[number];

/** used_memory from the text of INFO memory. */
export function usedMemory(info: string): number {
  const m = /^used_memory:(\d+)\r?$/m.exec(info);
  if (!m) throw new Error("INFO memory has no used_memory line");
  return Number(m[1]);
}

/** Bytes per member added between two readings (undefined when no member was added). */
export function bytesPerMember(before: readonly ShardMemory[], after: readonly ShardMemory[]): number | undefined {
  const sum = (xs: readonly ShardMemory[], f: (s: ShardMemory) => number) => xs.reduce((a, s) => a + f(s), 0);
  const members = sum(after, (s) => s.boardMembers) - sum(before, (s) => s.boardMembers);
  if (members <= 0) return undefined;
  return Math.round((sum(after, (s) => s.usedMemoryBytes) - sum(before, (s) => s.usedMemoryBytes)) / members);
}
