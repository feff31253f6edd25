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
 * Slots map to shards through a consistent-hash ring (the `consistent-hash` package)
 * with bounded loads. Each shard owns `VNODES` control points placed at
 * murmur3("<shard>#<i>") mod RANGE; a slot's name (see ringName) has a ring position, and
 * walking the ring from there gives the slot's preference list: every shard, in the order
 * its first control point comes after the slot's position. A plain ring gives the slot to
 * the first shard of that list. With only 64 slots that is badly uneven whatever VNODES is,
 * because the slots' own positions are random: the plain ring gave 64 slots over 5 shards
 * 5/13/16/13/17, over 8 shards 3 to 11 (and 18/22/24 over 3, which the 50M-player run saw).
 * So each shard may hold at most its fair share: floor(S/N) slots, or floor(S/N) + 1 for
 * the first S mod N shards to reach that many. Slots are walked in index order, and each
 * goes to the first shard of its preference list that still has room. Every shard ends
 * with floor(S/N) or ceil(S/N) slots: 64 slots over 2..8 shards give 32/32, 21-22, 16,
 * 12-13, 10-11, 9-10, 8 (placement.test.ts checks every N up to 8, at 64 and 1,024 slots).
 *
 * Control points are derived from the shard id, not random, so every process builds the
 * same ring and the same table. Adding a shard moves few slots, but not only to the new
 * shard: the new shard takes the slots it now comes first for (up to its share), and
 * because every share shrinks, a few slots that overflowed elsewhere settle differently.
 * Measured from N to N+1 shards (N = 2..8), 64 slots: 24, 16, 16, 12, 14, 12, 10 slots move
 * (at most 1.53/(N+1) of them, against the 1/(N+1) the new shard must take), 0 to 5 of
 * them between old shards; 1,024 slots: at most 1.22/(N+1). Removing one shard of N+1
 * moves at most 2.1/(N+1) of 64 slots. The test bounds both. A new shard is therefore
 * filled mostly, not only, by replaying the partitions of the slots it takes.
 *
 * The ring is consulted only to build a table: `slotToShard[slot]` is plain data, built
 * once per shard list and frozen. Lookups are O(1) array reads. The table in force is
 * versioned data itself (placement-log.ts): written to a compacted topic with an epoch,
 * followed by every process, replaced whole by AdminService.Reshard, never edited.
 */
import ConsistentHash from "consistent-hash";
import { murmur3String } from "./murmur3.js";

/**
 * Control points per shard. They make the preference lists (and so which slots stay put
 * when shards come and go) close to even; the bounded loads, not VNODES, make the shares
 * even.
 */
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
  const floor = Math.floor(numSlots / sorted.length);
  let bigSharesLeft = numSlots - floor * sorted.length; // shares of floor + 1 not yet taken
  const owned = new Map<string, number>(sorted.map((id) => [id, 0]));
  const slotToShard = Array.from({ length: numSlots }, (_, slot) => {
    const room = (id: string) => owned.get(id)! < floor || (owned.get(id)! === floor && bigSharesLeft > 0);
    const shard = preferenceList(ring, ringName(slot), sorted.length).find(room)!;
    if (owned.get(shard) === floor) bigSharesLeft--;
    owned.set(shard, owned.get(shard)! + 1);
    return shard;
  });
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

/**
 * Every shard, in ring order from `name`'s position: the package's get(name, count) (its
 * type declaration in consistent-hash.d.ts has only get(name)).
 */
function preferenceList(ring: ConsistentHash, name: string, shards: number): string[] {
  const list = (ring as unknown as { get(name: string, count: number): string[] | null }).get(name, shards);
  if (!list || list.length !== shards) throw new Error(`placement: the ring listed ${list?.length ?? 0} of ${shards} shards`);
  return list;
}

function controlPoints(shardId: string): number[] {
  return Array.from({ length: VNODES }, (_, i) => murmur3String(`${shardId}#${i}`) % RING_RANGE);
}

/** A placement from an explicit table (a placement record's): `slotToShard[slot]` indexes `shardIds`. Throws on a bad table. */
export function placementFromTable(shardIds: readonly string[], slotToShard: readonly number[]): Placement {
  if (shardIds.length === 0) throw new Error("placement needs at least one shard");
  if (new Set(shardIds).size !== shardIds.length) throw new Error("placement: duplicate shard id");
  if (slotToShard.length === 0 || slotToShard.some((i) => !Number.isInteger(i) || i < 0 || i >= shardIds.length))
    throw new Error("placement: a slot names no shard of the list");
  const owners = slotToShard.map((i) => shardIds[i]!);
  const slotsOf = new Map<string, number[]>([...shardIds].sort().map((id) => [id, []]));
  owners.forEach((shard, slot) => slotsOf.get(shard)!.push(slot));
  return Object.freeze({
    numSlots: slotToShard.length,
    shardIds: Object.freeze([...shardIds].sort()),
    slotToShard: Object.freeze(owners),
    slotsOf,
  });
}

/** The shard that holds a player's data. */
export function shardOf(placement: Placement, playerId: string): string {
  return placement.slotToShard[slotOf(playerId, placement.numSlots)]!;
}
