/**
 * Which pages the batch benchmark measures, and what each must hold. Per page size: the top page
 * (offset 0), a page by cursor at each depth of cursorDepths (one page of the walk in, about half
 * way, one page before the end), and the deepest offset page allowed (offset + limit = 10,000).
 * The walk (batch-bench.ts) keeps its pages ending at the ranks of keptEnds; every page measured
 * is expected to equal the walk's entries at its ranks, and a cursor page's previous page the
 * walk's entries just before it.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { GetTopRequestSchema } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { size } from "../output/format.js";
import type { PlainEntry } from "./answer-checks.js";
import type { WalkFigures } from "./batch-tables.js";

/** The deepest an offset page may reach (router/src/leaderboard-service.ts MAX_DEPTH). */
export const MAX_OFFSET_DEPTH = 10_000;

export interface Walk {
  figures: WalkFigures;
  /** Pages kept, by the rank of their last entry: entries and next_cursor. */
  kept: Map<number, { entries: PlainEntry[]; next: string }>;
  depths: number[];
}

/** A page measured: its request, first rank and the entries the walk saw at its ranks. */
export interface PageAsk {
  limit: number;
  kind: "top" | "cursor" | "offset";
  label: string;
  firstRank: number;
  request: MessageInitShape<typeof GetTopRequestSchema>;
  expected: PlainEntry[];
  /** For a cursor page: the walk's entries just before it (its previous page of the same limit). */
  before?: PlainEntry[];
}

/** The cursor depths measured: one walk page in, about half way, one walk page before the end (multiples of the walk's page). */
export function cursorDepths(players: number, walkLimit: number): number[] {
  if (players < 3 * walkLimit || players < MAX_OFFSET_DEPTH + walkLimit)
    throw new RangeError(
      `${players} players are too few for pages at depth: at least ${Math.max(3 * walkLimit, MAX_OFFSET_DEPTH + walkLimit)}`,
    );
  return [walkLimit, Math.round(players / 2 / walkLimit) * walkLimit, Math.floor((players - walkLimit) / walkLimit) * walkLimit];
}

/** The last ranks of the walk's pages to keep: the first page, the page ending at 10,000, and the pages ending at and after each depth. */
export function keptEnds(depths: readonly number[], walkLimit: number): Set<number> {
  return new Set([walkLimit, MAX_OFFSET_DEPTH, ...depths, ...depths.map((d) => d + walkLimit)]);
}

export const pageLabel = (a: { label: string; limit: number }) => `${a.label}, limit ${a.limit}`;

export function pageAsks(
  board: string,
  walk: Pick<Walk, "kept" | "depths">,
  p: { pageLimits: readonly number[]; walkLimit: number },
): PageAsk[] {
  const at = (end: number) => {
    const page = walk.kept.get(end);
    if (!page) throw new Error(`the walk kept no page ending at rank ${end}`);
    return page;
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
      expected: at(p.walkLimit).entries.slice(0, limit),
    });
    for (const d of walk.depths) {
      const before = at(d).entries;
      out.push({
        limit,
        kind: "cursor",
        label: `cursor at depth ${size(d)}`,
        firstRank: d + 1,
        request: { board, limit, cursor: at(d).next },
        expected: at(d + p.walkLimit).entries.slice(0, limit),
        before: before.slice(before.length - limit),
      });
    }
    const offset = MAX_OFFSET_DEPTH - limit;
    out.push({
      limit,
      kind: "offset",
      label: `offset ${offset.toLocaleString("en-US")}`,
      firstRank: offset + 1,
      request: { board, limit, offset: BigInt(offset) },
      expected: at(MAX_OFFSET_DEPTH).entries.slice(p.walkLimit - limit),
    });
  }
  return out;
}
