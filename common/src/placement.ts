/**
 * Placement: where a player's data lives.
 *
 * Two levels, both pure functions of configuration, so ingest, router and every shard
 * node compute the same answer without talking to each other:
 *
 *   player id --murmur3(utf8) mod S--> slot --consistent-hash ring--> shard
 *
 * A slot is a partition of the score topic. The number of slots S is fixed when the
 * topic is created (it can't shrink; growing it re-homes players, so choose it large:
 * 64 by default). All of a player's boards share one slot, so per-player work such as
 * ZUNIONSTORE of a player's period boards stays on one shard, and every update of one
 * player is ordered by one partition.
 *
 * Slots map to shards through a consistent-hash ring (the `consistent-hash` package):
 * each shard owns `VNODES` control points placed at murmur3("<shard>#<i>") mod RANGE,
 * and a slot belongs to the first control point at or after the ring position of
 * the slot's name (see ringName). Control points are derived from the shard id, not random, so every
 * process builds the same ring; adding a shard takes slots only from the shards its
 * points land next to, which is what lets a new shard be filled by replaying just
 * the partitions of the slots it takes.
 *
 * The ring is consulted only to build a table: `slotToShard[slot]` is plain data, built
 * once from the configured shard list when a process starts, and frozen. Lookups are O(1)
 * array reads. Today a process never changes its table: a different shard list means
 * restarting every process with the new configuration (and moving the slots' data, which
 * nothing does yet); online resharding will replace the table whole, never edit it.
 */
import ConsistentHash from "consistent-hash";
import { murmur3String } from "./murmur3.js";

/** Control points per shard: enough that 64 slots spread within a few slots of even. */
export const VNODES = 160;
/** Ring size; a prime well above VNODES times any plausible shard count. */
const RING_RANGE = 1_000_003;

export interface Placement {
  /** Number of slots (= partitions of the score topic). */
  readonly numSlots: number;
  /** Shard ids, sorted. */
  readonly shardIds: readonly string[];
  /** slotToShard[slot] is the id of the shard that owns the slot. */
  readonly slotToShard: readonly string[];
  /** The slots each shard owns, ascending. */
  readonly slotsOf: ReadonlyMap<string, readonly number[]>;
}

/** The slot (partition) of a player: murmur3 of the id's UTF-8 bytes mod numSlots. */
export function slotOf(playerId: string, numSlots: number): number {
  return murmur3String(playerId) % numSlots;
}

/** Builds the slot table for a set of shards. Throws on an empty or duplicated list. */
export function buildPlacement(shardIds: readonly string[], numSlots: number): Placement {
  if (shardIds.length === 0) throw new Error("placement needs at least one shard");
  if (new Set(shardIds).size !== shardIds.length) throw new Error("placement: duplicate shard id");
  if (!Number.isInteger(numSlots) || numSlots < 1) throw new Error("placement: numSlots must be a positive integer");
  const sorted = [...shardIds].sort();
  const ring = new ConsistentHash({ range: RING_RANGE });
  for (const id of sorted) ring.add(id, VNODES, controlPoints(id));
  const slotToShard = Array.from({ length: numSlots }, (_, slot) => ring.get(ringName(slot)) as string);
  const slotsOf = new Map<string, number[]>(sorted.map((id) => [id, []]));
  slotToShard.forEach((shard, slot) => slotsOf.get(shard)!.push(slot));
  return Object.freeze({ numSlots, shardIds: Object.freeze(sorted), slotToShard: Object.freeze(slotToShard), slotsOf });
}

/**
 * The name under which a slot is looked up on the ring. The package hashes names with a
 * PJW variant that clusters correlated strings ("slot:1", "slot:2", ... landed 10/0/54
 * on three shards), so the name handed to it is already well mixed: the decimal of
 * murmur3("slot:<n>") reduced to the ring's range.
 */
function ringName(slot: number): string {
  return String(murmur3String(`slot:${slot}`) % RING_RANGE);
}

function controlPoints(shardId: string): number[] {
  return Array.from({ length: VNODES }, (_, i) => murmur3String(`${shardId}#${i}`) % RING_RANGE);
}

/** The shard that holds a player's data. */
export function shardOf(placement: Placement, playerId: string): string {
  return placement.slotToShard[slotOf(playerId, placement.numSlots)]!;
}
