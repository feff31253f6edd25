/**
 * The three exact queries over all shards. Ranks are 1-based global positions in the
 * board's strict total order; see top-merge.ts for why merging shard prefixes is exact
 * and read-window.lua for how a shard counts the entries ahead of any position.
 *
 *   top(offset, limit)  one fan-out: each shard's first offset+limit, merged
 *   rank(player)        owner's ZSCORE, then one fan-out of "count ahead": rank = 1 + sum
 *   around(player, r)   owner's ZSCORE, then one fan-out of "count ahead + r each side"
 */
import type { BoardSpecs } from "@ladder/common/board-spec";
import { notFound } from "@ladder/common/errors";
import { decodeSortKey, type KeyedMember } from "@ladder/common/score-encoding";
import type { ShardPool } from "./shard-pool.js";
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

export class Queries {
  constructor(private readonly pool: ShardPool, private readonly boards: BoardSpecs) {}

  async top(board: string, offset: number, limit: number, deadlineMs = Infinity, view = ""): Promise<Page> {
    const tops = await this.pool.fanOut(this.pool.scope(view), (s) => s.top(board, offset + limit), deadlineMs);
    const merged = mergeTop(tops.map((t) => t.members), offset + limit).slice(offset);
    return { entries: merged.map((m, i) => this.ranked(board, m, offset + i + 1)), total: sum(tops.map((t) => t.card)) };
  }

  async rank(board: string, playerId: string, deadlineMs = Infinity, view = ""): Promise<{ entry: RankedEntry; total: number }> {
    const page = await this.around(board, playerId, 0, deadlineMs, view);
    return { entry: page.entries[0]!, total: page.total };
  }

  async around(board: string, playerId: string, radius: number, deadlineMs = Infinity, view = ""): Promise<Page> {
    const scope = this.pool.scope(view);
    const key = await this.pool.call(scope.ownerOf(playerId), (s) => s.entry(board, playerId), deadlineMs);
    if (key === undefined) throw notFound(`player "${playerId}" has no score on board "${board}"`);
    const pivot: KeyedMember = { playerId, key };
    const windows = await this.pool.fanOut(scope, (s) => s.window(board, key, playerId, radius), deadlineMs);
    const rank = 1 + sum(windows.map((w) => w.ahead));
    const { above, below } = splitAround(windows.map((w) => w.members), pivot, radius);
    const entries = [
      ...above.map((m, i) => this.ranked(board, m, rank - above.length + i)),
      this.ranked(board, pivot, rank),
      ...below.map((m, i) => this.ranked(board, m, rank + 1 + i)),
    ];
    return { entries, total: sum(windows.map((w) => w.card)) };
  }

  private ranked(board: string, m: KeyedMember, rank: number): RankedEntry {
    const { points, reachedAtMs } = decodeSortKey(this.boards.forBoard(board), m.key);
    return { playerId: m.playerId, points, reachedAtMs, rank };
  }
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
