/**
 * Tied ranks of a page (GetAround and cursor pages with a rank mode) from the page's own reads: each
 * shard reads its part of the page and, in the same command (ShardReader.atOnce + ties()), what ranks
 * the ties of ANY points value the page can hold. No second round, so movement on the board between the
 * shards' reads never refuses the page; it is exact against the board made of each shard as it stood
 * when read, like the page's ranks.
 *
 * THE RULE. competition(p) = 1 + the entries with better points than p, summed over the shards;
 * dense(p) = 1 + the distinct points better than p over all shards (a value held by several shards
 * counted once). Points are compared by their index (model/score-encoding.ts: key = index × units +
 * time; a smaller index is better), so "better than p" = "key below p × units". On a board with
 * columns (model/src/columns.ts) the tie value is a member's column part instead, compared by its
 * bytes: "better than p" = "member below p". Below, "index" is either (TieValue).
 *
 * WHAT ONE SHARD'S READ GIVES. A shard S returns its window W (members in order), `start` (its
 * members before W[0]), and from ties(): an ANCHOR index a with `below` = its members with index < a,
 * and (dense) its distinct indexes <= a. The anchor is W[0]'s index (around, backward pages), or the
 * cursor's own position (forward pages: every member before W is at or ahead of it). Either way every
 * member of S before W has index <= a. Then for a value p of the page:
 *   p = a   the entries of S better than p are `below`;
 *   p > a   they are the `start` members before W (all have index <= a < p) and the members of W
 *           with index < p, PROVIDED W reaches p: every member of S with key below p × units is
 *           before W or in it (`coveredBelow`: W's last key, W's position for backward pages, or
 *           Infinity when W reaches S's end);
 *   p < a   none, when W starts at S's first member (start = 0: every member of S has index >= a);
 *           else it cannot be read from S, and is never asked (below).
 * And the distinct values of S better than p are its distinct indexes <= a plus W's own, under the
 * same proviso: any member with index < p is before W (index <= a) or in W.
 *
 * WHY THE PAGES MEET THE PROVISO. A page takes `radius` (or `limit`) entries from a merge of windows
 * each holding that many from its shard: the page's first entry is at or after every W[0] that has
 * members before it (such a window reaches back at least as far; one that does not starts at its
 * shard's first member), or after a forward page's position; and its last is at or before the end of every window
 * that has entries left after the page — a window wholly inside the page's tail IS that tail, so it
 * holds the page's last entry. A backward page ends at its cursor, and W holds every member of S up to
 * it. A value the proviso does not cover is a bug, answered INTERNAL, never guessed.
 *
 * COST. One read per shard more in the page's command: one count (O(log n)), and for dense ranks one
 * ZRANGE per distinct value up to the anchor (at most MAX_DENSE_VALUES, else FAILED_PRECONDITION).
 * In the router, O(log w) per entry and shard for a window of w (a binary search of its indexes).
 */
import type { BoardSpec } from "@ladder/model/board-spec";
import { Code, LadderError } from "@ladder/model/errors";
import { compareTies, tieScaleOf, tieValueOf, type KeyedMember, type TieScale, type TieValue } from "@ladder/model/score-encoding";
import type { WindowTies } from "@ladder/store";
import { countBelow, MAX_DENSE_VALUES, type RankMode } from "./ranks.js";

/** One shard's part of a page and its ties, read at one instant. */
export interface ShardPart {
  shardId: string;
  /** The shard's members before members[0]. */
  start: number;
  /** The shard's window, in the board's order. */
  members: readonly KeyedMember[];
  /**
   * The position up to which the window covers its shard: every member ahead of it is before the
   * window or in it (undefined: the window reaches the shard's end).
   */
  coveredUpTo: KeyedMember | undefined;
  ties: WindowTies;
}

/** The position up to which a window covers its shard: its last entry, or undefined when it reaches the shard's end (start + members = card). */
export function coveredUpTo(w: { start: number; card: number; members: readonly KeyedMember[] }): KeyedMember | undefined {
  const last = w.members[w.members.length - 1];
  return !last || w.start + w.members.length >= w.card ? undefined : last;
}

/** The tied ranks of the entries of one page, from every shard's part of it (the rule above). */
export class PageTies {
  /** Each part's members' tie values, ascending (a window is in the board's order): counted by binary search. */
  private readonly indexes: TieValue[][];
  /** Dense: every distinct value the parts hold (up to their anchors, and their windows'), ascending. */
  private readonly values: TieValue[] = [];
  private readonly scale: TieScale;

  constructor(
    spec: BoardSpec,
    private readonly mode: Exclude<RankMode, "unique">,
    private readonly parts: readonly ShardPart[],
  ) {
    const scale = (this.scale = tieScaleOf(spec));
    this.indexes = parts.map((part) => part.members.map((m) => tieValueOf(scale, m)));
    if (mode !== "dense") return;
    const all = new Set<TieValue>();
    parts.forEach((part, i) => {
      if (part.ties.distinct.length > MAX_DENSE_VALUES)
        throw new LadderError(
          Code.FAILED_PRECONDITION,
          `a dense rank here counts more than ${MAX_DENSE_VALUES} distinct scores above the page on ${part.shardId} alone (MAX_DENSE_VALUES): not answered; ask for competition ranks or the unique rank`,
        );
      for (const v of part.ties.distinct) all.add(v);
      for (const v of this.indexes[i]!) all.add(v);
    });
    this.values = [...all].sort(compareTies);
  }

  /** The tied rank of a page entry. */
  of(m: KeyedMember): number {
    const p = tieValueOf(this.scale, m);
    let better = 0;
    this.parts.forEach((part, i) => {
      const { anchor, below } = part.ties;
      if (p === anchor) better += below;
      else if (anchor !== -1 && compareTies(p, anchor) < 0) {
        if (part.start !== 0) throw notCovered(part, p);
      } else if (part.coveredUpTo && compareTies(p, tieValueOf(this.scale, part.coveredUpTo)) > 0) throw notCovered(part, p);
      else better += part.start + countBelow(this.indexes[i]!, p);
    });
    return 1 + (this.mode === "competition" ? better : countBelow(this.values, p));
  }
}

function notCovered(part: ShardPart, p: TieValue): LadderError {
  const upTo = part.coveredUpTo
    ? `${part.coveredUpTo.key} ${JSON.stringify(part.coveredUpTo.member ?? part.coveredUpTo.playerId)}`
    : "its end";
  return new LadderError(
    Code.INTERNAL,
    `tied ranks: the read of ${part.shardId} does not cover tie value ${JSON.stringify(p)} (anchor ${JSON.stringify(part.ties.anchor)}, ${part.start} members before its window, covered up to ${upTo}); a page the rule of page-ties.ts does not hold for`,
  );
}
