/** Walking and deleting the keys under a prefix of a shard's Redis (SCAN, never KEYS). */
import type { Redis } from "ioredis";

/** `prefix` as a literal in a Redis glob pattern. */
export const globEscape = (prefix: string) => prefix.replace(/[*?[\]\\]/g, "\\$&");

/** Calls `fn` with each non-empty SCAN page of the keys under `prefix`. */
export async function forEachKey(redis: Redis, prefix: string, fn: (keys: string[]) => Promise<void>): Promise<void> {
  await forEachMatch(redis, `${globEscape(prefix)}*`, fn);
}

/** Calls `fn` with each non-empty SCAN page of the keys matching the glob `pattern`. */
export async function forEachMatch(redis: Redis, pattern: string, fn: (keys: string[]) => Promise<void>): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = next;
    if (keys.length) await fn(keys);
  } while (cursor !== "0");
}

/** Every key under `prefix` (one SCAN walk). */
export async function listKeys(redis: Redis, prefix: string): Promise<string[]> {
  const out: string[] = [];
  await forEachKey(redis, prefix, async (keys) => void out.push(...keys));
  return out;
}

/** Deletes every key under `prefix` in the connection's database. */
export async function unlinkPrefix(redis: Redis, prefix: string): Promise<void> {
  await forEachKey(redis, prefix, async (keys) => void (await redis.unlink(...keys)));
}
