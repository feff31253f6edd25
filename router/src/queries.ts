/**
 * The three exact queries over all shards. Ranks are 1-based global positions in the
 * board's strict total order; see top-merge.ts for why merging shard prefixes is exact
 * and read-window.lua for how a shard counts the entries ahead of any position.
 *
 *   top(offset, limit)  one fan-out: each shard's first offset+limit and size, merged
 *   around(player, r)   the owner shard's standing of the player (read-standing.lua: its key,
 *                       the owner's members ahead of it, the owner's size and r entries each
 *                       side, in one script), then one fan-out to the OTHER shards: "count
 *                       ahead of that key, with r each side"; rank = 1 + the sum of the counts
 *   rank(player)        around with r = 0
 *
 * WHAT AN ANSWER MEANS WHILE THE BOARD CHANGES. Each shard is read at one instant: one
 * script per shard per question, and a script runs atomically in its Redis. Shards are not
 * read at one global instant, and need not be: writes of different players are applied by
 * independent partitions, so no global order of them exists to be faithful to. An answer
 * is exact against the board made of each shard's board at the moment that shard was
 * read. A player lives on exactly one shard, so it appears in that board once, as its
 * shard stood when read; hence, whatever the timing of writes:
 *   - no player appears twice in an answer, ranks are consecutive and entries sorted;
 *   - total is that board's size, and 1 <= rank <= total;
 *   - the rank returned is the exact rank, in that board, of the (score, time) returned;
 *   - the asked player is in its own neighbourhood, with r entries each side unless
 *     clipped at an end of that board.
 * The asked player's key, its owner's count and its owner's window come from the same
 * script, so the owner never counts the player against a stale position of itself (ZRANK
 * excludes the member), and the other shards do not hold the player. A read that asked
 * the owner twice (key, then count) could see the player move in between: listed twice,
 * rank off by one, even above total. test/motion.int.test.ts checks all of this on every
 * answer while players move.
 */
import { storedBoardName, type BoardResolver, type BoardSpec } from "@ladder/common/board-spec";
import { invalidArgument, notFound } from "@ladder/common/errors";
import { keptPeriods, periodAt, periodNamed, type Period } from "@ladder/common/periods";
import { decodeSortKey, type KeyedMember } from "@ladder/common/score-encoding";
import type { ShardPool } from "./shard-pool.js";
import { TopCache, type TopCacheOptions, type TopRead } from "./top-cache.js";
import { mergeTop, splitAround } from "./top-merge.js";

/** An entry of a board with its global rank, decoded. */
export interface RankedEntry {
  playerId: string;
  points: number;
  reachedAtMs: number;
  rank: number;
}

export interface Page {
  entries: RankedEntry[];
  total: number;
}

export interface QueriesOptions {
  /** Serve the live boards' first pages from memory (top-cache.ts); absent: every top reads the shards. */
  topCache?: { maxAgeMs: number; depth: number; count?: TopCacheOptions["count"] };
}

export class Queries {
  private readonly cache: TopCache | undefined;

  constructor(private readonly pool: ShardPool, private readonly boards: BoardResolver, o: QueriesOptions = {}) {
    this.cache = o.topCache && o.topCache.maxAgeMs > 0
      ? new TopCache({
        ...o.topCache,
        read: (stored, depth) => this.readTop(stored, depth, Infinity, ""),
        wait: (refresh, deadlineMs) => this.pool.waitUntil(refresh, deadlineMs),
      })
      : undefined;
  }

  /** A board's spec; NOT_FOUND for a board that is neither defined nor allowed without a definition. */
  specOf(board: string): BoardSpec {
    const spec = this.boards.forBoard(board);
    if (!spec) throw notFound(`board "${board}" is not defined (AdminService.CreateBoard), and this cluster takes no boards without a definition (LADDER_IMPLICIT_BOARDS)`);
    return spec;
  }

  /**
   * The spec and stored name of what a read asks for: on a board with periods, the period named
   * (or the current one, by this router's clock); INVALID_ARGUMENT for a name that is no period
   * of the board, NOT_FOUND for a period no longer kept.
   */
  private target(board: string, period: string): { spec: BoardSpec; stored: string } {
    const spec = this.specOf(board);
    if (spec.period.kind === "none") {
      if (period !== "") throw invalidArgument(`period: board "${board}" has no periods (it is all-time)`);
      return { spec, stored: storedBoardName(board, spec) };
    }
    const now = Date.now();
    const p = period === "" ? periodAt(spec.period, now) : periodNamed(spec.period, period);
    if (!p) throw invalidArgument(`period: "${period}" is not a ${spec.period.kind} period of board "${board}" (ListPeriods names them)`);
    if (now >= p.expireAtMs) throw notFound(`period ${p.id} of board "${board}" is no longer kept (the board keeps the current period and ${spec.period.keep} before it)`);
    return { spec, stored: storedBoardName(board, spec, p.id) };
  }

  /** The periods a board keeps now, the current one first (none for an all-time board). */
  periods(board: string): Period[] {
    return keptPeriods(this.specOf(board).period, Date.now());
  }

  async top(board: string, offset: number, limit: number, deadlineMs = Infinity, view = "", period = ""): Promise<Page> {
    const { spec, stored } = this.target(board, period);
    if (this.cache && view === "" && offset + limit <= this.cache.depth) {
      return this.cache.page(stored, offset, limit, deadlineMs, (read) => this.page(spec, read, offset, limit));
    }
    return this.page(spec, await this.readTop(stored, offset + limit, deadlineMs, view), offset, limit);
  }

  /** The number of entries under a stored board name (storedBoardName), on the live shards. */
  async size(stored: string, deadlineMs = Infinity): Promise<number> {
    return (await this.readTop(stored, 1, deadlineMs, "")).total;
  }

  /** The merged first `n` entries of a board (by its stored name) and its size: one fan-out. */
  private async readTop(stored: string, n: number, deadlineMs: number, view: string): Promise<TopRead> {
    const tops = await this.pool.fanOut(this.pool.scope(view).stores, (s) => s.top(stored, n), deadlineMs);
    return { members: mergeTop(tops.map((t) => t.members), n), total: sum(tops.map((t) => t.card)) };
  }

  private page(spec: BoardSpec, read: TopRead, offset: number, limit: number): Page {
    return { entries: read.members.slice(offset, offset + limit).map((m, i) => ranked(spec, m, offset + i + 1)), total: read.total };
  }

  async rank(board: string, playerId: string, deadlineMs = Infinity, view = "", period = ""): Promise<{ entry: RankedEntry; total: number }> {
    const page = await this.around(board, playerId, 0, deadlineMs, view, period);
    return { entry: page.entries[0]!, total: page.total };
  }

  async around(board: string, playerId: string, radius: number, deadlineMs = Infinity, view = "", period = ""): Promise<Page> {
    const { spec, stored } = this.target(board, period);
    const scope = this.pool.scope(view);
    const owner = scope.ownerOf(playerId);
    const own = await this.pool.call(owner, (s) => s.standing(stored, playerId, radius), deadlineMs);
    if (own === undefined) throw notFound(`player "${playerId}" has no score on board "${board}"`);
    const pivot: KeyedMember = { playerId, key: own.key };
    const others = await this.pool.fanOut(scope.othersOf(owner), (s) => s.window(stored, own.key, playerId, radius), deadlineMs);
    const rank = 1 + own.ahead + sum(others.map((w) => w.ahead));
    const { above, below } = splitAround([own.members, ...others.map((w) => w.members)], pivot, radius);
    const entries = [
      ...above.map((m, i) => ranked(spec, m, rank - above.length + i)),
      ranked(spec, pivot, rank),
      ...below.map((m, i) => ranked(spec, m, rank + 1 + i)),
    ];
    return { entries, total: own.card + sum(others.map((w) => w.card)) };
  }
}

function ranked(spec: BoardSpec, m: KeyedMember, rank: number): RankedEntry {
  const { points, reachedAtMs } = decodeSortKey(spec, m.key);
  return { playerId: m.playerId, points, reachedAtMs, rank };
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
