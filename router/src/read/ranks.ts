/**
 * Ranks of many players at once (GetRanks, GetStanding, GetRank with a rank mode): every shard read
 * at ONE instant for the whole answer, so all the ranks, the ranks among the players asked, the tied
 * ranks and the total are exact against one board made of each shard as it stood then.
 *
 * ROUNDS. A player's global rank is 1 + the members ahead of it on its own shard (its ZRANK) + the
 * members ahead of its position (key, id) on every other shard. The other shards need the position
 * first, so:
 *   round 1   each shard owning some of the players reads their keys (read_ranks, one read per
 *             shard for all of its players);
 *   round k   every shard reads, in one script, the keys and ZRANKs of the players it owns AND the
 *             counts ahead of the other players' positions as round k-1 found them (and, with a
 *             rank mode, the counts below each player's points and the distinct points above).
 * Round k is the answer when every owned player's key is what round k-1 said: then the positions
 * counted on the other shards are where the players stand on their owners at that same round, and
 * the board "each shard as round k read it" holds every player once, at the position counted. A
 * player whose score moved between two rounds needs one more; after MAX_ROUNDS of movement the
 * read is refused (UNAVAILABLE), never answered from positions that disagree.
 *
 * TIES. competition = 1 + the entries with better points: every shard counts the keys below
 * points_idx × timeUnits (a position with player id "": nothing at that key ranks ahead of it).
 * dense = 1 + the distinct points better than the player's: the union of every shard's distinct
 * points indexes below the worst player's (read_distinct, at most MAX_DENSE_VALUES per shard, else
 * FAILED_PRECONDITION). Both come from the answering round, at the same instants.
 *
 * COST. Two rounds of one command per shard (the reads of one shard asked in one turn go as one
 * read-batch.lua call, store/src/reader.ts): O(k log n) on a shard for k players asked.
 *
 * FROM THE RANK INDEX (LADDER_RANK_INDEX_BOARDS; unique and competition ranks). The router holds a
 * copy of every shard's board, each exact as its shard stood at one instant within the index's lag
 * bound (router/src/rank-index). After round 1, if every shard's copy may answer and each copy of an
 * owner holds each of its players where round 1 read them live (or holds none where round 1 found
 * none), the answer is counted in the copies alone, in one turn: the board made of the copies holds
 * every player asked exactly where its owner stands now, so the ranks, the ranks among the players,
 * the tied ranks and the total are exact against it, as a replica's read within its lag bound is.
 * Any copy that may not answer, or stands elsewhere for one player asked, and the rounds above answer
 * instead (nothing read is wasted: round 1 is theirs). Cost: one command per owning shard; in the
 * router O(k × S log n) for k players over S shards.
 */
import { Code, LadderError, unavailable } from "@ladder/model/errors";
import type { BoardSpec } from "@ladder/model/board-spec";
import {
  compareMembers,
  compareTies,
  decodeEntry,
  pointsIndexOfKey,
  tieFloor,
  tieScaleOf,
  tieValueOf,
  type KeyedMember,
  type TieScale,
  type TieValue,
} from "@ladder/model/score-encoding";
import type { RanksResult, WindowResult, WindowTies } from "@ladder/store";
import { routerMetrics } from "../metrics.js";
import type { Scope, ShardReads, ShardStore } from "./shard-calls.js";

/** Rounds of reads a batch may take while its players' scores keep moving (each one command per shard; the call's deadline bounds them too). */
export const MAX_ROUNDS = 8;
/** Distinct points a dense rank may count from one shard. */
export const MAX_DENSE_VALUES = 10_000;

export type RankMode = "unique" | "competition" | "dense";

/** One shard's board outside Redis (a rank index copy): its entries as the shard held them at one instant. */
export interface BoardCopyView {
  readonly size: number;
  /** The entries strictly ahead of position (key, id). */
  countAhead(key: number, id: string): number;
  /** The sort key of `id`'s entry; undefined when the copy holds none. */
  keyOf(id: string): number | undefined;
  /** Whether the shard's board keeps metadata, which a copy does not hold. */
  readonly metadata: boolean;
  /** The shard's window at position (key, id) with `radius` entries each side, as ShardReader.window reads it (without metadata). */
  window(key: number, id: string, radius: number): WindowResult;
  /** What ShardReader.ties reads with a part of a page whose first entry is `first`, without distinct values (competition ranks). */
  ties(scale: TieScale, first: KeyedMember | undefined): WindowTies;
}

/** Copies of the shards' boards outside Redis (the rank index), each within the index's lag bound. */
export interface BoardCopies {
  /** The copies of `stored` of every store of `stores`, in their order, when every one may answer now; else undefined. */
  copiesOf(stores: readonly { shardId: string }[], stored: string): readonly BoardCopyView[] | undefined;
}

export interface PlayerRank {
  playerId: string;
  points: number;
  reachedAtMs: number;
  /** On a board with columns: its values (points is then 0). */
  columns?: bigint[];
  metadata: string;
  /** Global, 1-based. */
  rank: number;
  /** Under the rank mode (0 for "unique"). */
  tiedRank: number;
  /** 1-based among the players found. */
  rankAmong: number;
}

export interface RanksAnswer {
  /** The players found, best first. */
  found: PlayerRank[];
  /** The players asked without an entry, in the order asked. */
  missing: string[];
  total: number;
}

/** The exact ranks of `players` (distinct) on the board stored as `stored`, decoded with `spec`. */
export async function ranksOf(
  pool: ShardReads,
  scope: Scope<ShardStore>,
  stored: string,
  spec: BoardSpec,
  players: readonly string[],
  mode: RankMode,
  deadlineMs: number,
  local?: BoardCopies,
): Promise<RanksAnswer> {
  const scale = tieScaleOf(spec);
  const owned = new Map<ShardStore, string[]>();
  // each player's owner, hashed once: every round asks it again for every shard
  const ownerOf = new Map<string, ShardStore>();
  for (const p of players) {
    const owner = scope.ownerOf(p);
    ownerOf.set(p, owner);
    const list = owned.get(owner);
    if (list) list.push(p);
    else owned.set(owner, [p]);
  }
  // round 1: the owners' keys
  const first = await pool.fanOut([...owned.keys()], (s) => s.ranks(stored, owned.get(s)!, []), deadlineMs);
  let known = new Map<string, KeyedMember>();
  [...owned.keys()].forEach((s, i) => collect(owned.get(s)!, first[i]!, known));
  if (local && mode !== "dense") {
    const fromCopies = counted(spec, players, known, ownerOf, scope.stores, local.copiesOf(scope.stores, stored), mode);
    routerMetrics()
      .rankIndexOf(fromCopies ? "index" : "shard")
      .inc(players.length * scope.stores.length);
    if (fromCopies) return fromCopies;
  }
  for (let round = 2; round <= MAX_ROUNDS + 1; round++) {
    const found = [...known.values()];
    const bounds = mode === "unique" ? [] : [...new Set(found.map((m) => tieValueOf(scale, m)))];
    const worst = bounds.length ? bounds.reduce((a, b) => (compareTies(a, b) >= 0 ? a : b)) : undefined;
    const reads = await pool.fanOut(
      scope.stores,
      (s) => {
        const own = owned.get(s) ?? [];
        const others = found.filter((m) => ownerOf.get(m.playerId) !== s);
        const positions = [...others, ...bounds.map((b) => tieFloor(scale, b))];
        return s
          .atOnce((r) =>
            Promise.all([
              r.ranks(stored, own, positions),
              mode === "dense" && worst !== undefined && worst !== 0
                ? r.distinct(stored, scale, worst, MAX_DENSE_VALUES)
                : Promise.resolve([] as TieValue[]),
            ]),
          )
          .then(([r, d]) => ({ s, own, others, r, d }));
      },
      deadlineMs,
    );
    const now = new Map<string, KeyedMember>();
    for (const { own, r } of reads) collect(own, r, now);
    if (!same(known, now)) {
      known = now;
      continue;
    }
    return answer(spec, players, now, reads, bounds, mode);
  }
  throw unavailable(
    `the scores of the players asked kept moving for ${MAX_ROUNDS} rounds of reads: no instant found at which to rank them all; retry`,
  );
}

/**
 * The answer counted in the copies (the essay's FROM THE RANK INDEX), or undefined when a copy may
 * not answer or does not hold a player asked where its owner's read `known` found it (or found none).
 */
function counted(
  spec: BoardSpec,
  players: readonly string[],
  known: ReadonlyMap<string, KeyedMember>,
  ownerOf: ReadonlyMap<string, ShardStore>,
  stores: readonly ShardStore[],
  copies: readonly BoardCopyView[] | undefined,
  mode: Exclude<RankMode, "dense">,
): RanksAnswer | undefined {
  if (!copies) return undefined;
  const copyOf = new Map(stores.map((s, i) => [s, copies[i]!]));
  for (const p of players) if (copyOf.get(ownerOf.get(p)!)!.keyOf(p) !== known.get(p)?.key) return undefined;
  const sumAhead = (key: number, id: string) => copies.reduce((n, c) => n + c.countAhead(key, id), 0);
  return ranked(
    spec,
    players,
    known,
    copies.reduce((n, c) => n + c.size, 0),
    (m) => 1 + sumAhead(m.key, m.playerId),
    // competition: 1 + the entries with better points, all keys below this points index's first (an id "" is ahead of every player)
    (m) => (mode === "unique" ? 0 : 1 + sumAhead(pointsIndexOfKey(spec, m.key) * spec.timeUnits, "")),
  );
}

interface RoundRead {
  s: ShardStore;
  own: string[];
  others: KeyedMember[];
  r: RanksResult;
  d: TieValue[];
}

function answer(
  spec: BoardSpec,
  players: readonly string[],
  at: Map<string, KeyedMember>,
  reads: RoundRead[],
  bounds: TieValue[],
  mode: RankMode,
): RanksAnswer {
  const ahead = new Map<string, number>();
  const aheadOwn = new Map<string, number>();
  const ties = new TieTable(spec, mode, bounds);
  let total = 0;
  for (const { s, own, others, r, d } of reads) {
    total += r.card;
    own.forEach((p, i) => {
      const o = r.own[i];
      if (o) aheadOwn.set(p, o.ahead);
    });
    others.forEach((m, i) => ahead.set(m.playerId, (ahead.get(m.playerId) ?? 0) + r.aheadOf[i]!));
    ties.add(s.shardId, { below: r.aheadOf.slice(others.length), distinct: d });
  }
  return ranked(
    spec,
    players,
    at,
    total,
    (m) => 1 + aheadOwn.get(m.playerId)! + (ahead.get(m.playerId) ?? 0),
    (m) => ties.of(m)!,
  );
}

/** The answer: the players found in the board's order with their ranks and tied ranks, the missing ones as asked. */
function ranked(
  spec: BoardSpec,
  players: readonly string[],
  at: ReadonlyMap<string, KeyedMember>,
  total: number,
  rankOf: (m: KeyedMember) => number,
  tiedRankOf: (m: KeyedMember) => number,
): RanksAnswer {
  const found = [...at.values()].sort(compareMembers).map((m, i): PlayerRank => {
    const { points, reachedAtMs, columns } = decodeEntry(spec, m);
    return {
      playerId: m.playerId,
      points,
      reachedAtMs,
      ...(columns ? { columns } : {}),
      metadata: m.metadata ?? "",
      rank: rankOf(m),
      tiedRank: tiedRankOf(m),
      rankAmong: i + 1,
    };
  });
  return { found, missing: players.filter((p) => !at.has(p)), total };
}

/** What one shard counts for tied ranks, read at the instant of the rest of its answer. */
export interface TieCounts {
  /** Per points bound asked: the entries with better points (keys below bound × timeUnits). */
  below: number[];
  /** Dense only: the distinct tie values better than the worst bound (at most MAX_DENSE_VALUES + 1). */
  distinct: TieValue[];
}

/**
 * Tied ranks from every shard's TieCounts of one answer: competition = 1 + the entries with
 * better points, dense = 1 + the distinct better points over all shards (a points index counted
 * once however many shards hold it); unique: 0.
 */
export class TieTable {
  private readonly below = new Map<TieValue, number>();
  private readonly distinct = new Set<TieValue>();
  private sortedDistinct: TieValue[] | undefined;
  private readonly scale: TieScale;

  constructor(
    spec: BoardSpec,
    private readonly mode: RankMode,
    private readonly bounds: readonly TieValue[],
  ) {
    this.scale = tieScaleOf(spec);
  }

  add(shardId: string, counts: TieCounts): void {
    this.bounds.forEach((b, i) => this.below.set(b, (this.below.get(b) ?? 0) + counts.below[i]!));
    if (counts.distinct.length > MAX_DENSE_VALUES)
      throw new LadderError(
        Code.FAILED_PRECONDITION,
        `a dense rank here counts more than ${MAX_DENSE_VALUES} distinct scores above the player on ${shardId} alone (MAX_DENSE_VALUES): not answered; ask for competition ranks or the unique rank`,
      );
    for (const v of counts.distinct) this.distinct.add(v);
    this.sortedDistinct = undefined;
  }

  /** The tied rank of an entry; undefined when its tie value is not among the bounds counted. */
  of(m: KeyedMember): number | undefined {
    if (this.mode === "unique") return 0;
    const idx = tieValueOf(this.scale, m);
    if (!this.below.has(idx)) return undefined;
    if (this.mode === "competition") return 1 + this.below.get(idx)!;
    this.sortedDistinct ??= [...this.distinct].sort(compareTies);
    return 1 + countBelow(this.sortedDistinct, idx);
  }
}

/** The players of `asked` that the read found, by id, as KeyedMembers with their metadata. */
function collect(asked: readonly string[], r: RanksResult, into: Map<string, KeyedMember>): void {
  asked.forEach((p, i) => {
    const o = r.own[i];
    if (o) into.set(p, { playerId: p, key: o.key, metadata: o.metadata, ...(o.member !== undefined ? { member: o.member } : {}) });
  });
}

function same(a: Map<string, KeyedMember>, b: Map<string, KeyedMember>): boolean {
  if (a.size !== b.size) return false;
  for (const [p, m] of a) if (b.get(p)?.key !== m.key || b.get(p)?.member !== m.member) return false;
  return true;
}

/** How many of `sorted` (ascending) are below `v`. */
export function countBelow(sorted: readonly TieValue[], v: TieValue): number {
  let lo = 0;
  for (let hi = sorted.length; lo < hi; ) {
    const mid = (lo + hi) >> 1;
    if (compareTies(sorted[mid]!, v) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
