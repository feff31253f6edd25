/**
 * Top-N merge: the global order of a board from each shard's own order.
 *
 * Players are sharded by id, so every shard holds a sorted slice of the board and any
 * prefix of the global order is made only of prefixes of the shards' orders: the global
 * top n can only come from the shards' top n. The router fetches each shard's first n
 * (n = offset + limit) and merges.
 *
 * The merge is a k-way merge over the shards' lists (k = shard count, small), stopping
 * after n entries: O(n * k) comparisons, no sort of the whole union. Comparison is the
 * board's strict total order (sort key ascending, then player id bytes ascending), the
 * same order Redis keeps inside each shard, so the merge is exact and ties between
 * shards resolve exactly as they would on one Redis.
 *
 * WHILE PLAYERS MOVE. Each list comes from one script on one shard, so it is that shard's
 * board at one instant; shards are read at different instants. A player lives on exactly
 * one shard (placement by id), so it comes from one list only, as it stood at that
 * shard's instant: the merged answer is exact against the board made of each shard's
 * board at the moment it was read: no player twice, strictly sorted, consecutive ranks.
 * A player id in two lists would mean a shard holds a player that is not its own (a
 * placement that changed under stored data): the merge refuses it rather than answer.
 */
import { Code, LadderError } from "@ladder/model/errors";
import { compareMembers, type KeyedMember } from "@ladder/model/score-encoding";

/** The first `n` entries of the union of sorted lists (one per shard), in order. */
export function mergeTop(lists: ReadonlyArray<readonly KeyedMember[]>, n: number): KeyedMember[] {
  const heads = lists.map(() => 0);
  const out: KeyedMember[] = [];
  const seen = new Set<string>();
  while (out.length < n) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      const candidate = lists[i]![heads[i]!];
      if (candidate && (best < 0 || compareMembers(candidate, lists[best]![heads[best]!]!) < 0)) best = i;
    }
    if (best < 0) break;
    const next = lists[best]![heads[best]!++]!;
    if (seen.has(next.playerId)) throw onTwoShards(next.playerId);
    seen.add(next.playerId);
    out.push(next);
  }
  return out;
}

/**
 * Splits shard windows around a pivot into the `radius` closest entries ranked ahead of
 * it and the `radius` closest behind it, both in rank order. The pivot's player is
 * dropped wherever it appears (by id, whatever its key): the answer lists it once, at the
 * pivot. The windows must come one per shard, the owner's from the same instant as the
 * pivot (read-standing.lua); a player id in two windows is refused (see above).
 */
export function splitAround(
  windows: ReadonlyArray<readonly KeyedMember[]>,
  pivot: KeyedMember,
  radius: number,
): { above: KeyedMember[]; below: KeyedMember[] } {
  const above: KeyedMember[] = [];
  const below: KeyedMember[] = [];
  const seen = new Set<string>();
  for (const w of windows) {
    for (const m of w) {
      if (m.playerId === pivot.playerId) continue;
      if (seen.has(m.playerId)) throw onTwoShards(m.playerId);
      seen.add(m.playerId);
      if (compareMembers(m, pivot) < 0) above.push(m);
      else below.push(m);
    }
  }
  above.sort(compareMembers);
  below.sort(compareMembers);
  return { above: above.slice(Math.max(0, above.length - radius)), below: below.slice(0, radius) };
}

function onTwoShards(playerId: string): LadderError {
  return new LadderError(
    Code.INTERNAL,
    `player "${playerId}" answered by two shards: a shard holds a player the placement gives to another`,
  );
}
