/**
 * Retention (BoardRules.keep_top, keep_margin, expire_inactive_ms): what a board declares, what
 * is refused, and the order a trim's floor is compared in.
 *
 * THE RULES. A trimmed board keeps its best keep_top entries, plus a margin of keep_margin
 * (default keep_top) that backfills removals until the next trim. A router's retainer
 * (router/src/control/retainer.ts) finds a period past keep_top + keep_margin entries, reads the
 * entry at that position (its sort key and player: the "floor") with the exact top-N merge, and
 * writes one TRIM record with the floor to every partition of the score log. The shard applying
 * partition p's record (store/src/lua/includes/apply-retention.lua) removes the entries worse than
 * the floor of the players whose slot is p, and keeps the floor for (period, p): a later write of
 * that partition whose entry is worse is not kept. Replays see the same records at the same
 * offsets of each partition, so a rebuild gives the same boards whatever order the shard's
 * partitions are interleaved in. EXPIRE records do the same with a cut-off of event time: a
 * partition's players whose latest event (timestamp_ms, not the clock) is older go.
 *
 * WHAT IS REFUSED, AND WHY. keep_top on a board with an INCREMENT or DECREMENT default operation,
 * and INCREMENT or DECREMENT writes to a board with keep_top: a trimmed entry written again would
 * restart from zero, so the board would show a total that is not the player's. SET and BEST stay
 * honest: a trimmed player's entry is worse than the floor, and so is every later write that
 * does not bring it back above. Both rules are refused on a board with windows: the windows would
 * keep the scores a trim or an expiry removed from the periods.
 *
 * WHAT A TRIMMED BOARD ANSWERS. The entries at or above the floor: every such entry's rank is its
 * rank among every write of the board (every better entry is above the floor too, so none was
 * trimmed). A player below the floor has no entry: its rank is NOT_FOUND.
 */
import { Operation, type BoardRules } from "@ladder/proto/leaderboard/v1/common_pb";

/** The most entries keep_top, and keep_margin, may declare. */
export const MAX_KEEP_TOP = 10_000;
export const MAX_KEEP_MARGIN = 10_000;
/** expire_inactive_ms bounds: a minute to ten years. */
export const MIN_EXPIRE_INACTIVE_MS = 60_000;
export const MAX_EXPIRE_INACTIVE_MS = 10 * 365 * 86_400_000;

/** A board's retention, as its spec holds it (0: none). */
export interface Retention {
  keepTop: number;
  /** The margin, its default (keep_top) resolved; 0 without keep_top. */
  keepMargin: number;
  expireInactiveMs: number;
}

/** The retention of rules (whose values retentionProblem accepted). */
export function retentionOf(rules: Pick<BoardRules, "keepTop" | "keepMargin" | "expireInactiveMs">): Retention {
  const keepTop = rules.keepTop;
  return { keepTop, keepMargin: keepTop === 0 ? 0 : rules.keepMargin || keepTop, expireInactiveMs: Number(rules.expireInactiveMs) };
}

/** The entries a trim leaves: keep_top + keep_margin (0: the board is not trimmed). */
export function keptSize(r: Retention): number {
  return r.keepTop === 0 ? 0 : r.keepTop + r.keepMargin;
}

/** What is wrong with rules' retention fields, or undefined. `defaultOp`: a definition's (unset for a record's rules). */
export function retentionProblem(
  rules: Pick<BoardRules, "keepTop" | "keepMargin" | "expireInactiveMs" | "windows">,
  defaultOp?: Operation,
): string | undefined {
  const { keepTop, keepMargin, expireInactiveMs } = rules;
  if (keepTop > MAX_KEEP_TOP) return `rules.keep_top must be 0 (keep every entry) to ${MAX_KEEP_TOP}, got ${keepTop}`;
  if (keepMargin > MAX_KEEP_MARGIN) return `rules.keep_margin must be 0 (as keep_top) to ${MAX_KEEP_MARGIN}, got ${keepMargin}`;
  if (keepMargin > 0 && keepTop === 0) return `rules.keep_margin is ${keepMargin} without rules.keep_top: a margin needs a top to keep`;
  if (expireInactiveMs !== 0n && (expireInactiveMs < BigInt(MIN_EXPIRE_INACTIVE_MS) || expireInactiveMs > BigInt(MAX_EXPIRE_INACTIVE_MS)))
    return `rules.expire_inactive_ms must be 0 (never) or ${MIN_EXPIRE_INACTIVE_MS} to ${MAX_EXPIRE_INACTIVE_MS} (10 years), got ${expireInactiveMs}`;
  const which = [keepTop > 0 ? "rules.keep_top" : "", expireInactiveMs !== 0n ? "rules.expire_inactive_ms" : ""].filter(Boolean);
  if (which.length > 0 && rules.windows.length > 0)
    return `${which.join(" and ")}: not on a board with windows (its windows would keep the scores removed from its periods)`;
  if (keepTop > 0 && (defaultOp === Operation.INCREMENT || defaultOp === Operation.DECREMENT))
    return `rules.keep_top: not on a board whose default_op is ${Operation[defaultOp]} (a trimmed entry written again would restart from zero, so its total could not be kept honestly): use SET or BEST`;
  return undefined;
}

/** What is wrong with operation `op` on a board that keeps its top `keepTop` (0: nothing), or undefined. */
export function trimmedOpProblem(board: string, op: Operation, keepTop: number): string | undefined {
  if (keepTop === 0 || (op !== Operation.INCREMENT && op !== Operation.DECREMENT)) return undefined;
  return `op ${Operation[op]}: board "${board}" keeps only its top ${keepTop} (keep_top), where a trimmed entry written again would restart from zero: it takes SET and BEST only`;
}

/** A trim's floor: the last entry kept. */
export interface Floor {
  key: number;
  playerId: string;
}

/** Whether the entry (key, playerId) is worse than `floor` (it goes): a greater key, or an equal key and a greater id by UTF-8 bytes. */
export function belowFloor(key: number, playerId: string, floor: Floor): boolean {
  if (key !== floor.key) return key > floor.key;
  return Buffer.compare(Buffer.from(playerId, "utf8"), Buffer.from(floor.playerId, "utf8")) > 0; // score-encoding.ts compareIds
}

/** What a NOT_FOUND of a player adds on a trimmed board: a player below the retained top has no entry, so no rank. */
export function notKeptNote(r: Retention): string {
  if (r.keepTop === 0) return "";
  return ` (it keeps its top ${r.keepTop} and a margin of ${r.keepMargin} (keep_top): a player below its retained top ${keptSize(r)} is not ranked)`;
}
