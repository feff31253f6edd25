/**
 * The PostgreSQL baseline's score column. The board's order (more points first, then
 * earlier time) is folded into one bigint where higher ranks first, so the textbook
 * queries `ORDER BY score DESC` and `count(*) WHERE score > s` follow the board's order:
 *
 *      score = maxKey − sortKey,   maxKey = (maxPoints − minPoints + 1) · timeUnits − 1   (≤ 2^53 − 1)
 *
 * with sortKey from model/src/score-encoding.ts. Only the last tie-break (player id,
 * among equal points reached in the same minute) is not in it: such players share a
 * rank in SQL, rare with these scores.
 */
import type { BoardSpec } from "@ladder/model/board-spec";
import { encodeSortKey } from "@ladder/model/score-encoding";

export function sqlScore(spec: BoardSpec, points: number, reachedAtMs: number): number {
  return (spec.maxPoints - spec.minPoints + 1) * spec.timeUnits - 1 - encodeSortKey(spec, points, reachedAtMs);
}
