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
 */
import { compareMembers, type KeyedMember } from "@ladder/common/score-encoding";

/** The first `n` entries of the union of sorted lists, in order. */
export function mergeTop(lists: ReadonlyArray<readonly KeyedMember[]>, n: number): KeyedMember[] {
  const heads = lists.map(() => 0);
  const out: KeyedMember[] = [];
  while (out.length < n) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      const candidate = lists[i]![heads[i]!];
      if (candidate && (best < 0 || compareMembers(candidate, lists[best]![heads[best]!]!) < 0)) best = i;
    }
    if (best < 0) break;
    out.push(lists[best]![heads[best]!++]!);
  }
  return out;
}

/**
 * Splits shard windows around a pivot into the `radius` closest entries ranked ahead of
 * it and the `radius` closest behind it, both in rank order. The pivot itself is dropped.
 */
export function splitAround(
  windows: ReadonlyArray<readonly KeyedMember[]>,
  pivot: KeyedMember,
  radius: number,
): { above: KeyedMember[]; below: KeyedMember[] } {
  const above: KeyedMember[] = [];
  const below: KeyedMember[] = [];
  for (const w of windows) {
    for (const m of w) {
      const c = compareMembers(m, pivot);
      if (c < 0) above.push(m);
      else if (c > 0) below.push(m);
    }
  }
  above.sort(compareMembers);
  below.sort(compareMembers);
  return { above: above.slice(Math.max(0, above.length - radius)), below: below.slice(0, radius) };
}
