/**
 * Brings a freshly seeded sorted set to its steady state before its memory is read.
 * Seeding leaves the set's hash table in the middle of an incremental rehash at some
 * sizes (10M members: the 8M-bucket table and the 16M-bucket one both allocated, ~6.7
 * bytes per member more than once it completes; see finish-rehash.lua). A set under
 * real traffic finishes it within a few million operations, so the bench finishes it
 * too, with server-side lookups in chunks, until the old table is freed or enough
 * lookups were made to be sure none is left.
 */
import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";
import { usedMemory } from "../../seed/shard-memory.js";

const LUA = readFileSync(new URL("./finish-rehash.lua", import.meta.url), "utf8");
const CHUNK = 1_000_000; // lookups per script call: well under a second of a blocked Redis

interface WithFinishRehash {
  benchFinishRehash(key: string, lookups: number): Promise<number>;
}

/** Lookups made until the rehash of `key` is surely over (returns how many). */
export async function finishRehash(redis: Redis, key: string): Promise<number> {
  if (!("benchFinishRehash" in redis)) redis.defineCommand("benchFinishRehash", { lua: LUA, numberOfKeys: 1 });
  const r = redis as Redis & WithFinishRehash;
  const members = await r.zcard(key);
  const freedWhenDone = 2 * members; // the old table holds >= members/2 buckets of 8 bytes: freeing it drops used_memory by >= 4 bytes per member
  let made = 0;
  let before = usedMemory(await r.info("memory"));
  while (made < members) {
    made += await r.benchFinishRehash(key, Math.min(CHUNK, members - made));
    const after = usedMemory(await r.info("memory"));
    if (before - after > freedWhenDone) break;
    before = after;
  }
  return made;
}
