// A brute-force model of a board: every acknowledged update applied in acknowledgement order, the
// whole board sorted on demand. The cluster's answers must equal it exactly.
import type { BoardSpec } from "@ladder/common/board-spec";
import { compareIds } from "@ladder/common/score-encoding";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";

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
      .sort((a, b) => b.score - a.score || a.reachedAtMs - b.reachedAtMs || compareIds(a.playerId, b.playerId))
      .map((e, i) => ({ ...e, rank: i + 1 }));
  }
}
