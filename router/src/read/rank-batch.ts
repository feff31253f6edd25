/**
 * GetRank's reads, gathered per turn of the event loop. The unique ranks asked of one board in
 * one turn are read together: one read of each owner for all of its players, then one read of
 * each other shard for all of them, instead of three reads per rank.
 *
 * A player's rank is 1 + the members ahead of it on its own shard (its ZRANK) + the members
 * ahead of its position (key, id) on every other shard (queries.ts). So, for the players of a
 * batch, grouped by the shard that owns them:
 *   round 1   each owner reads its players' keys, ZRANKs and metadata and its size, in one read
 *             (read_ranks of read-lists.lua), at one instant;
 *   round 2   as soon as an owner answered, every other shard counts, in one read at one
 *             instant, the members strictly ahead of the positions it found, and its size.
 * Each owner's group goes on alone: a slow owner delays its own players, not the others'. The
 * reads of one shard asked in the same turn (several groups' round 2, the next batch's round 1)
 * still leave as one command (store/src/reader.ts).
 *
 * A player's answer is exact against the board made of its owner as round 1 read it and every
 * other shard as round 2 read it: the owner gave the key, the count ahead and the size at one
 * instant, and no other shard holds the player. That is the board GetAround with radius 0 reads
 * (queries.ts: the owner's standing, then the other shards' windows at its key), so the answer
 * means what it always did; only the number of reads changes. On a board of the rank index
 * (router/src/rank-index), round 2 counts each other shard from the router's copy of it when that
 * copy may answer (current within LADDER_RANK_INDEX_MAX_LAG_MS): that shard then stands as it was at
 * an instant within that bound, as a replica's read does, and the rank costs one Redis read.
 *
 * WHY. Per rank, the router's CPU went to the plumbing of its three shard reads (a promise, a
 * deadline, a metric, a reply parsed each) as much as to gRPC; with a turn's ranks of a board in
 * one read per owner and shard, that plumbing is paid per turn. Nothing waits for company: the
 * batch of a turn is read at the end of that turn (platform/src/end-of-turn.ts), in the same pass
 * as the shard readers send their reads.
 *
 * FAILURES. An owner that fails round 1 fails its players; a shard that fails round 2 fails the
 * players it was counting for (as one shard failing fails a rank read alone). The shard calls run
 * under the per-shard timeout; each caller's own deadline bounds its wait (ShardReads.waitUntil).
 * A player asked twice in a turn is read once and both callers get the answer.
 */
import { atEndOfTurn } from "@ladder/platform/end-of-turn";
import type { KeyedMember } from "@ladder/model/score-encoding";
import type { RanksResult } from "@ladder/store";
import type { Scope, ShardReads, ShardStore } from "./shard-calls.js";

/** A player's unique rank on a board, as a batch read it. */
export interface RankRead {
  /** The player's sort key. */
  key: number;
  /** On a board with columns: the player's member (model/src/columns.ts). */
  member?: string;
  /** "" when none. */
  metadata: string;
  /** Global, 1-based. */
  rank: number;
  total: number;
}

interface Caller {
  resolve(read: RankRead | undefined): void;
  reject(err: unknown): void;
}

/** The players asked of one board in one turn, with their callers. */
interface Batch {
  scope: Scope<ShardStore>;
  stored: string;
  /** Where round 2 may count from instead of the shards, when the board is indexed. */
  local: LocalCounts | undefined;
  callers: Map<string, Caller[]>;
}

/**
 * Counts of one shard ahead of positions from a copy of it outside Redis (the rank index,
 * router/src/rank-index), or undefined when no copy may answer for it now: then the shard is read.
 */
export interface LocalCounts {
  ranks(store: { shardId: string }, stored: string, positions: readonly KeyedMember[]): RanksResult | undefined;
}

/** A player its owner found, through round 2: its position and what is summed so far. */
interface Counting {
  playerId: string;
  key: number;
  member?: string;
  metadata: string;
  ahead: number;
  total: number;
}

export class RankBatches {
  /** This turn's batches, by the stores of their scope (a routing table's live boards, say) and stored board name. */
  private turn = new Map<readonly ShardStore[], Map<string, Batch>>();

  constructor(private readonly pool: ShardReads) {}

  /** The unique rank of `playerId` on the board stored as `stored`, read with the turn's others; undefined when it has no entry. */
  rank(scope: Scope<ShardStore>, stored: string, playerId: string, local?: LocalCounts): Promise<RankRead | undefined> {
    return new Promise((resolve, reject) => {
      if (this.turn.size === 0) atEndOfTurn(this.flush);
      let boards = this.turn.get(scope.stores);
      if (!boards) this.turn.set(scope.stores, (boards = new Map()));
      let batch = boards.get(stored);
      if (!batch) boards.set(stored, (batch = { scope, stored, local, callers: new Map() }));
      const waiting = batch.callers.get(playerId);
      if (waiting) waiting.push({ resolve, reject });
      else batch.callers.set(playerId, [{ resolve, reject }]);
    });
  }

  private readonly flush = (): void => {
    const turn = this.turn;
    this.turn = new Map();
    for (const boards of turn.values())
      for (const batch of boards.values())
        this.read(batch).catch((err: unknown) => {
          for (const waiting of batch.callers.values()) for (const c of waiting) c.reject(err); // settled callers ignore it
        });
  };

  private async read({ scope, stored, local, callers }: Batch): Promise<void> {
    const owned = new Map<ShardStore, string[]>();
    for (const playerId of callers.keys()) {
      const owner = scope.ownerOf(playerId);
      const list = owned.get(owner);
      if (list) list.push(playerId);
      else owned.set(owner, [playerId]);
    }
    const settle = (playerId: string, read: RankRead | undefined) => {
      for (const c of callers.get(playerId)!) c.resolve(read);
    };
    const fail = (playerId: string, err: unknown) => {
      for (const c of callers.get(playerId)!) c.reject(err);
    };
    await Promise.all([...owned].map(([owner, players]) => this.readOwned(scope, stored, local, owner, players, settle, fail)));
  }

  /** The ranks of `players`, all owned by `owner`: its read, then, as soon as it answered, one read of each other shard. */
  private async readOwned(
    scope: Scope<ShardStore>,
    stored: string,
    local: LocalCounts | undefined,
    owner: ShardStore,
    players: readonly string[],
    settle: (playerId: string, read: RankRead | undefined) => void,
    fail: (playerId: string, err: unknown) => void,
  ): Promise<void> {
    let first: RanksResult;
    try {
      first = await this.pool.call(owner, (s) => s.ranks(stored, players, []));
    } catch (err) {
      for (const p of players) fail(p, err);
      return;
    }
    const found: Counting[] = [];
    players.forEach((playerId, j) => {
      const own = first.own[j];
      if (own === undefined) settle(playerId, undefined);
      else
        found.push({
          playerId,
          key: own.key,
          ...(own.member !== undefined ? { member: own.member } : {}),
          metadata: own.metadata,
          ahead: own.ahead,
          total: first.card,
        });
    });
    if (found.length === 0) return;
    let others: RanksResult[];
    try {
      others = await Promise.all(
        scope.othersOf(owner).map((s) => local?.ranks(s, stored, found) ?? this.pool.call(s, (x) => x.ranks(stored, [], found))),
      );
    } catch (err) {
      for (const f of found) fail(f.playerId, err);
      return;
    }
    for (const r of others)
      found.forEach((f, i) => {
        f.ahead += r.aheadOf[i]!;
        f.total += r.card;
      });
    for (const f of found)
      settle(f.playerId, {
        key: f.key,
        ...(f.member !== undefined ? { member: f.member } : {}),
        metadata: f.metadata,
        rank: 1 + f.ahead,
        total: f.total,
      });
  }
}
