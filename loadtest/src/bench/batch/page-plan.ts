/**
 * Which pages the batch benchmark measures, and what each must hold. Per page size: the top page
 * (offset 0), a page by cursor at each depth of cursorDepths (one page of the walk in, about half
 * way, one page before the end), and the deepest offset page allowed (offset + limit = 10,000).
 * The walk (batch-bench.ts) keeps the next_cursor of its pages ending at those depths.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { GetTopRequestSchema } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { size } from "../output/format.js";

/** The deepest an offset page may reach (router/src/leaderboard-service.ts MAX_DEPTH). */
export const MAX_OFFSET_DEPTH = 10_000;

/** The walk through next_cursor: its page size, pages, the ranks it saw and how long it took. */
export interface WalkFigures {
  limit: number;
  pages: number;
  ranks: number;
  seconds: number;
}

export interface Walk {
  figures: WalkFigures;
  /** The next_cursor of the walk's pages ending at each depth. */
  kept: Map<number, string>;
  depths: number[];
}

/** A page measured: its request and first rank. */
export interface PageAsk {
  limit: number;
  kind: "top" | "cursor" | "offset";
  label: string;
  firstRank: number;
  request: MessageInitShape<typeof GetTopRequestSchema>;
}

/** The cursor depths measured: one walk page in, about half way, one walk page before the end (multiples of the walk's page). */
export function cursorDepths(players: number, walkLimit: number): number[] {
  if (players < 3 * walkLimit || players < MAX_OFFSET_DEPTH + walkLimit)
    throw new RangeError(
      `${players} players are too few for pages at depth: at least ${Math.max(3 * walkLimit, MAX_OFFSET_DEPTH + walkLimit)}`,
    );
  return [walkLimit, Math.round(players / 2 / walkLimit) * walkLimit, Math.floor((players - walkLimit) / walkLimit) * walkLimit];
}

export const pageLabel = (a: { label: string; limit: number }) => `${a.label}, limit ${a.limit}`;

export function pageAsks(
  board: string,
  walk: Pick<Walk, "kept" | "depths">,
  p: { pageLimits: readonly number[]; walkLimit: number },
): PageAsk[] {
  const at = (end: number) => {
    const next = walk.kept.get(end);
    if (next === undefined) throw new Error(`the walk kept no page ending at rank ${end}`);
    return next;
  };
  const out: PageAsk[] = [];
  for (const limit of p.pageLimits) {
    if (limit > p.walkLimit) throw new RangeError(`page limit ${limit} is above the walk's ${p.walkLimit}`);
    out.push({
      limit,
      kind: "top",
      label: "top (offset 0)",
      firstRank: 1,
      request: { board, limit },
    });
    for (const d of walk.depths)
      out.push({
        limit,
        kind: "cursor",
        label: `cursor at depth ${size(d)}`,
        firstRank: d + 1,
        request: { board, limit, cursor: at(d) },
      });
    const offset = MAX_OFFSET_DEPTH - limit;
    out.push({
      limit,
      kind: "offset",
      label: `offset ${offset.toLocaleString("en-US")}`,
      firstRank: offset + 1,
      request: { board, limit, offset: BigInt(offset) },
    });
  }
  return out;
}
