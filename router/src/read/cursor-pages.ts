/**
 * Deep paging by cursor (GetTop with `cursor`): a page continues from a POSITION in the board's
 * order, not from a rank, so its cost does not grow with depth.
 *
 * A cursor holds the position (sort key, player id) of the last entry of a page (forward) or of
 * its first (backward), with the board, period, window and view it belongs to, base64url-encoded.
 * The next page is, on every shard at one instant, the `limit` members strictly after the
 * position (read_after in read-header.lua: a count of the members ahead of the position, then a
 * ZRANGE from there), merged; the first of them is the global entry right after the position, so
 * its rank is 1 + the members at or ahead of the position summed over the shards. Backward: the
 * `limit` members strictly before the position on every shard, merged, the last `limit` of them;
 * the last one's rank is the members strictly ahead of the position, summed. Cost per page:
 * O(S log n + S × limit) whatever the depth.
 *
 * WHILE ENTRIES MOVE. An entry that keeps its position is on exactly one side of any position,
 * so paging forward (or back) never repeats nor skips it. An entry that moves across the position
 * between two pages shows on the side it moved to: it may appear twice over the pages (it moved
 * down past the cursor) or never (it moved up past it). Each page is exact as any top page: no
 * player twice, consecutive ranks, each rank the entry's rank in the board made of each shard as
 * read.
 */
import { invalidArgument } from "@ladder/model/errors";
import { COLUMN_SEPARATOR, playerOfMember } from "@ladder/model/columns";
import type { KeyedMember } from "@ladder/model/score-encoding";
import type { AfterResult, InstantReads } from "@ladder/store";
import type { Scope, ShardReads, ShardStore } from "./shard-calls.js";
import { mergeTop } from "./top-merge.js";

interface Cursor {
  /** The board's stored name (board, generation, period, window). */
  s: string;
  /** The view ("" = live). */
  v: string;
  k: number;
  /** The position's member: the player id, or on a board with columns the entry's member. */
  p: string;
  /** true: the page before the position. */
  b: boolean;
}

export function encodeCursor(stored: string, view: string, at: KeyedMember, backward: boolean): string {
  const c: Cursor = { s: stored, v: view, k: at.key, p: at.member ?? at.playerId, b: backward };
  return Buffer.from(JSON.stringify(c)).toString("base64url");
}

/** The position and direction of a cursor made for `stored` in `view`; INVALID_ARGUMENT otherwise. */
export function decodeCursor(cursor: string, stored: string, view: string): { at: KeyedMember; backward: boolean } {
  let c: Partial<Cursor>;
  try {
    c = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Partial<Cursor>;
  } catch {
    throw invalidArgument("cursor is not a cursor of GetTop");
  }
  if (typeof c.k !== "number" || !Number.isSafeInteger(c.k) || c.k < 0 || typeof c.p !== "string" || typeof c.b !== "boolean")
    throw invalidArgument("cursor is not a cursor of GetTop");
  if (c.s !== stored || c.v !== view) throw invalidArgument("cursor belongs to another board, period, window or view");
  // on a board with columns the position is the entry's member (model/src/columns.ts)
  return {
    at: c.p.includes(COLUMN_SEPARATOR) ? { key: c.k, playerId: playerOfMember(c.p), member: c.p } : { key: c.k, playerId: c.p },
    backward: c.b,
  };
}

export interface CursorPage {
  /** The page's entries in order, with the rank of the first. */
  members: KeyedMember[];
  firstRank: number;
  total: number;
}

/**
 * The page of `limit` entries after (or before) `at` on the board stored as `stored`, with each
 * shard's read of it (`shards`, in the scope's order); with `also`, each shard's read and `also`'s
 * reads at one instant (ShardReader.atOnce), their answers in the same order.
 */
export async function cursorPage<X = never>(
  pool: ShardReads,
  scope: Scope<ShardStore>,
  stored: string,
  at: KeyedMember,
  backward: boolean,
  limit: number,
  deadlineMs: number,
  also?: (r: InstantReads) => Promise<X>,
): Promise<CursorPage & { shards: AfterResult[]; also: X[] }> {
  const read = (r: InstantReads) => r.after(stored, at, limit, backward);
  const got = await pool.fanOut(
    scope.stores,
    async (s) => {
      if (!also) return { page: await read(s), x: [] as X[] };
      const [page, x] = await s.atOnce((r) => Promise.all([read(r), also(r)]));
      return { page, x: [x] };
    },
    deadlineMs,
  );
  const reads = got.map((g) => g.page);
  const extra = got.flatMap((g) => g.x);
  const total = reads.reduce((n, r) => n + r.card, 0);
  if (!backward) {
    const members = mergeTop(
      reads.map((r) => r.members),
      limit,
    );
    return { members, firstRank: 1 + reads.reduce((n, r) => n + r.start, 0), total, shards: reads, also: extra };
  }
  const all = mergeTop(
    reads.map((r) => r.members),
    Infinity,
  );
  const members = all.slice(Math.max(0, all.length - limit));
  const ahead = reads.reduce((n, r) => n + r.ahead, 0);
  return { members, firstRank: ahead - members.length + 1, total, shards: reads, also: extra };
}
