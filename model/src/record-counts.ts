/**
 * Where a shard keeps a player's count of records (AdminService.ExportPlayerData's `records`):
 * a field of one of the hashes "<prefix>count:records:<slot>:<bucket>", the slot being the
 * partition whose records it counts (the player's slot: the records keyed by it), the bucket a
 * hash of the player id with a seed of its own, so that the players of one slot spread evenly
 * over its buckets whatever the slot count.
 *
 * WHY BUCKETS. One hash field per player in one big hash costs Redis about 64 bytes a player
 * (a dict entry, the field and the value, each its own allocation). A hash of at most
 * hash-max-listpack-entries fields (128 by Redis's default) is one listpack instead, about 13
 * bytes a player: the id, a small integer and two bytes of framing. Finding a field there is a
 * scan of the listpack, so a bucket of about 64 players costs 1–2 µs more per record than
 * the big hash's look-up (store/bench/zset-floor.ts). A bucket past the listpack limit becomes an
 * ordinary hash: the memory of one big hash, never more.
 *
 * THE SIZE. `buckets` per slot (LADDER_RECORD_COUNT_BUCKETS) is part of every shard's stamp
 * (store/src/identity.ts): a reader with another value would look in the wrong hash, so it is
 * refused, and changing it means rebuilding the shards from the log. About players ÷ (slots ×
 * 100) keeps each bucket a listpack (a Poisson count of mean 100 passes 128 in 0.3% of them);
 * more buckets than players cost a key each (about 80 bytes). One bucket per slot keeps one
 * ordinary hash per slot: the least CPU per record, the most memory.
 */
import { murmur3String } from "./murmur3.js";

/** Buckets per slot when none is configured: listpacks up to about 6M players on 64 slots. */
export const DEFAULT_RECORD_COUNT_BUCKETS = 1024;
/** The most buckets per slot. */
export const MAX_RECORD_COUNT_BUCKETS = 65_536;

/** murmur3's seed for the bucket: any but the slot's (0), so that a slot's players use all its buckets. */
const BUCKET_SEED = 0x5eed_b0c5;

/** The bucket (0 ≤ bucket < `buckets`) of a player's count of records within its slot. */
export function recordCountBucket(playerId: string, buckets: number): number {
  return murmur3String(playerId, BUCKET_SEED) % buckets;
}
