// A brute-force model of a board: every acknowledged update applied in acknowledgement order, the
// whole board sorted on demand. The cluster's answers must equal it exactly.
//
// The order is written here from its definition (docs/boards.md, "Scores, ties and order"), not imported from
// the code under test: a bug in model/score-encoding's comparator must not be able to agree with itself.
import type { BoardSpec } from "@ladder/model/board-spec";
import { Operation, type Entry } from "@ladder/proto/leaderboard/v1/common_pb";

export interface OracleUpdate {
  board: string;
  playerId: string;
  op: Operation;
  value: number;
  timestampMs: number;
}

export interface OracleEntry {
  playerId: string;
  score: number;
  reachedAtMs: number;
  rank: number;
}

/** An entry of an answer (the wire's Entry, 64-bit fields as bigint) as plain numbers, to compare with the oracle's. */
export const plainEntry = (e: Entry): OracleEntry => ({
  playerId: e.playerId,
  score: Number(e.score),
  reachedAtMs: Number(e.reachedAtMs),
  rank: Number(e.rank),
});

/** An entry as far as the order goes: what an answer carries, rank aside. */
export interface Standing {
  playerId: string;
  score: number;
  reachedAtMs: number;
}

/**
 * The board's order: negative if `a` ranks ahead of `b`. Points descending, then the time they were
 * reached ascending, then player id ascending by UTF-8 bytes.
 */
export function boardOrder(a: Standing, b: Standing): number {
  if (a.score !== b.score) return a.score > b.score ? -1 : 1;
  if (a.reachedAtMs !== b.reachedAtMs) return a.reachedAtMs < b.reachedAtMs ? -1 : 1;
  return Buffer.compare(Buffer.from(a.playerId, "utf8"), Buffer.from(b.playerId, "utf8"));
}

/**
 * What a page of consecutive entries (top, around) must satisfy even while the board changes under
 * the read: ranks consecutive (from `firstRank` when given), 1 ≤ rank ≤ total, no player twice, and
 * entries in the board's order. Returns the problems found, none if it holds.
 */
export function pageProblems(entries: ReadonlyArray<OracleEntry>, total: number, firstRank?: number): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    if (i === 0 && firstRank !== undefined && e.rank !== firstRank) problems.push(`first rank ${e.rank}, expected ${firstRank}`);
    if (i > 0 && e.rank !== entries[i - 1]!.rank + 1) problems.push(`rank ${e.rank} follows rank ${entries[i - 1]!.rank}`);
    if (e.rank < 1 || e.rank > total) problems.push(`rank ${e.rank} outside 1..${total}`);
    if (seen.has(e.playerId)) problems.push(`${e.playerId} twice`);
    seen.add(e.playerId);
    if (i > 0 && boardOrder(entries[i - 1]!, e) >= 0)
      problems.push(`${entries[i - 1]!.playerId} listed ahead of ${e.playerId} out of order`);
  });
  return problems;
}

export class Oracle {
  private readonly boards = new Map<string, Map<string, { score: number; reachedAtMs: number }>>();

  constructor(private readonly specFor: (board: string) => BoardSpec) {}

  apply(u: OracleUpdate): void {
    const spec = this.specFor(u.board);
    const board = this.boards.get(u.board) ?? new Map();
    this.boards.set(u.board, board);
    const cur = board.get(u.playerId);
    let score = u.value;
    if (cur && u.op === Operation.INCREMENT) score = cur.score + u.value;
    if (cur && u.op === Operation.BEST) score = Math.max(cur.score, u.value);
    score = Math.min(spec.maxPoints, Math.max(spec.minPoints, score));
    if (cur && cur.score === score) return;
    const reachedAtMs = u.timestampMs - ((u.timestampMs - spec.epochMs) % spec.resolutionMs);
    board.set(u.playerId, { score, reachedAtMs });
  }

  /** The whole board in rank order. */
  sorted(boardName: string): OracleEntry[] {
    const board = this.boards.get(boardName) ?? new Map();
    return [...board]
      .map(([playerId, s]) => ({ playerId, ...s, rank: 0 }))
      .sort(boardOrder)
      .map((e, i) => ({ ...e, rank: i + 1 }));
  }

  /** Each player's entry, rank included. */
  byPlayer(boardName: string): Map<string, OracleEntry> {
    return new Map(this.sorted(boardName).map((e) => [e.playerId, e]));
  }
}
