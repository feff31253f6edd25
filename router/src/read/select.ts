/**
 * The entry at a global rank (GetEntryAtRank: "the score at the top 10%"), exact, without reading
 * the board from the top: a search over the sort-key space with per-shard counts.
 *
 * SEARCH. The entry of rank k has the smallest key x such that k entries or more have keys <= x.
 * The router keeps an interval [lo, hi) of keys known to hold it, with the count of entries below
 * lo; each round asks every shard, in one script, how many of its entries lie below each of PROBES
 * keys spread evenly over the interval (read_ranks with positions (key, ""): a ZCOUNT each), sums
 * them, and keeps the one slice that holds rank k: the interval shrinks PROBES-fold per round, so
 * a 53-bit key space takes at most 9 rounds, and far fewer once the slice holds few entries. When
 * the slice holds at most FINAL entries, a last round asks every shard for the entries from lo on
 * (read_after) and the count below lo; the answer is picked from their merge.
 *
 * EXACT. Only the last round's reads make the answer: each shard is read there at one instant, and
 * the entry returned has rank k in the board made of each shard as it stood then (the count below
 * lo and the entries after it come from the same script). Earlier rounds only aim: if entries moved
 * since, the pick falls outside what the last round read and the search starts over (at most
 * MAX_SEARCHES times, else UNAVAILABLE).
 *
 * TIES. A slice cannot shrink below one key; if more than MAX_TIED entries share the one key the
 * rank falls on (points and time unit alike, across shards), the read is refused
 * (FAILED_PRECONDITION) rather than read them all.
 */
import { Code, LadderError, unavailable } from "@ladder/model/errors";
import type { KeyedMember } from "@ladder/model/score-encoding";
import type { Scope, ShardReads, ShardStore } from "./shard-calls.js";
import { mergeTop } from "./top-merge.js";

/** Keys probed per shard per round. */
const PROBES = 64;
/** Entries a slice may hold for the last round to read them. */
const FINAL = 512;
/** Entries sharing one key that a selection may read. */
export const MAX_TIED = 10_000;
/** Searches started over because entries moved under them. */
const MAX_SEARCHES = 4;
/** Above every key a board stores (2^53). */
const KEY_END = 2 ** 53;

export interface Selected {
  member: KeyedMember;
  /** Its rank (the one asked, or found from the size). */
  rank: number;
  total: number;
}

/**
 * The entry of global rank `rank` (1-based; or a function of the board's size, found by the first
 * round) of the board stored as `stored`; undefined when the board holds fewer.
 */
export async function entryAtRank(
  pool: ShardReads,
  scope: Scope<ShardStore>,
  stored: string,
  rank: number | ((total: number) => number),
  deadlineMs: number,
): Promise<Selected | undefined> {
  let k = typeof rank === "number" ? rank : NaN;
  for (let search = 0; search < MAX_SEARCHES; search++) {
    let lo = 0;
    let hi = KEY_END;
    let below = 0; // entries with keys < lo
    let inSlice = Infinity;
    for (let round = 0; inSlice > FINAL && hi - lo > 1; round++) {
      const step = (hi - lo) / PROBES;
      const probes = [...new Set(Array.from({ length: PROBES - 1 }, (_, j) => Math.floor(lo + step * (j + 1))))].filter(
        (p) => p > lo && p < hi,
      );
      const reads = await pool.fanOut(
        scope.stores,
        (s) =>
          s.ranks(
            stored,
            [],
            probes.map((key) => ({ playerId: "", key })),
          ),
        deadlineMs,
      );
      const total = reads.reduce((n, r) => n + r.card, 0);
      if (Number.isNaN(k)) k = (rank as (total: number) => number)(total);
      if (round === 0 && (k > total || k < 1)) return undefined;
      const counts = probes.map((_, j) => reads.reduce((n, r) => n + r.aheadOf[j]!, 0));
      // the first probe with k entries or more below it closes the slice
      let j = counts.findIndex((c) => c >= k);
      if (j < 0) j = probes.length;
      const newLo = j === 0 ? lo : probes[j - 1]!;
      const newBelow = j === 0 ? below : counts[j - 1]!;
      const newHi = j === probes.length ? hi : probes[j]!;
      const upTo = j === probes.length ? total : counts[j]!;
      if (round > 0 && newLo === lo && newHi === hi) break; // no probe strictly inside: one key left
      lo = newLo;
      hi = newHi;
      below = newBelow;
      inSlice = upTo - below;
      if (probes.length === 0) break;
    }
    if (inSlice > MAX_TIED)
      throw new LadderError(
        Code.FAILED_PRECONDITION,
        `more than ${MAX_TIED} entries tie on the score and time unit at rank ${k} (MAX_TIED): not read`,
      );
    // the last round: the entries from lo on and the count below lo, on every shard at one instant
    const count = Math.max(k - below, 1) + FINAL;
    const reads = await pool.fanOut(scope.stores, (s) => s.after(stored, { playerId: "", key: lo }, count, false), deadlineMs);
    const ahead = reads.reduce((n, r) => n + r.ahead, 0);
    const total = reads.reduce((n, r) => n + r.card, 0);
    if (k > total) return undefined;
    // the first m entries from lo on are exactly the merge's when no shard was asked for fewer than m
    const m = k - ahead;
    if (m >= 1 && m <= count) {
      const merged = mergeTop(
        reads.map((r) => r.members),
        m,
      );
      if (merged.length === m) return { member: merged[m - 1]!, rank: k, total };
    }
  }
  throw unavailable(`the entries around rank ${k} kept moving for ${MAX_SEARCHES} searches: retry`);
}
