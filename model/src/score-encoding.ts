/**
 * Score encoding: how a board's order is folded into one Redis sorted-set score.
 *
 * THE ORDER. By default higher points rank first; among equal points the player who
 * reached them earlier ranks first; among equal points reached in the same time unit, the
 * smaller player id (UTF-8 byte order) ranks first. A defined board may reverse the points
 * (lower is better), reverse the time (latest first) or drop it (player id only). Each is a
 * strict total order: no two entries of a board compare equal, so top, rank and around agree.
 *
 * THE KEY. A member's Redis score is its "sort key", a non-negative integer where
 * smaller is better:
 *
 *      key = pointsIdx * 2^timeBits + timeIdx
 *      pointsIdx = maxPoints - points             (higher is better)
 *                  points - minPoints             (lower is better)
 *      timeIdx   = units                          (earliest first)
 *                  2^timeBits - 1 - units         (latest first)
 *                  0                              (player id only)
 *      units     = floor((reachedAtMs - epochMs) / resolutionMs)
 *
 * Both indexes are 0 for what wins, so one ascending order serves every board, and a
 * shard's reads and the router's merges never look at a board's rules (only decoding does).
 *
 * Boards are read with ZRANGE/ZRANK (ascending), never ZREVRANGE: Redis orders members
 * of equal score by memcmp of the member, ascending, which is exactly the player-id
 * tie-break. (ZREVRANGE would reverse that to descending ids.)
 *
 * THE BUDGET. A double holds integers exactly up to 2^53, so
 *      pointsBits = bit length of (maxPoints - minPoints),  timeBits = 53 - pointsBits,
 * (computed on integers: a floating-point log2 rounds 2^49 + 1 down and loses a bit),
 * and the board covers 2^timeBits time units from its epoch. The time field is a power
 * of two so that Lua can split a key with exact floating-point division. Each board's
 * range, resolution and epoch are declared in configuration (board-spec.ts) and must
 * never change for a board that holds data: its keys would decode wrongly. The default
 * board takes points 0..2^31-1 at 1-minute resolution from 2026-01-01 (22 time bits,
 * good until 2033-12-22); a daily board can take 1 ms resolution with 26 bits of points.
 * Ingest rejects values and times outside the declared ranges, and INCREMENT saturates
 * at the range's ends, so every stored key is inside the budget and the order is exact.
 *
 * THE COSTS. Update, ZRANK and ZCOUNT of "keys strictly below k" are O(log n). Counting
 * the members of another shard that rank ahead of a position (k, id) is ZCOUNT plus a
 * binary search, by rank, through the members whose key equals k exactly: O(log n) per
 * probe and log2(m) probes for m members sharing that exact key. Because the key holds
 * the time, m is 0 or 1 for nearly every query even when a million players have the
 * same points; it grows only with players tied on points within one time unit.
 */
import type { BoardSpec } from "./board-spec.js";
import { COLUMN_HEX, decodeColumnMember } from "./columns.js";

/** A decoded standing: points and the (resolution-rounded) time they were reached. */
export interface Standing {
  points: number;
  reachedAtMs: number;
}

type Encoding = Pick<BoardSpec, "minPoints" | "maxPoints" | "resolutionMs" | "epochMs" | "timeUnits" | "lowerIsBetter" | "tie">;

/** pointsIdx: 0 for the best points of the board's order. */
export function pointsIndex(spec: Encoding, points: number): number {
  return spec.lowerIsBetter ? points - spec.minPoints : spec.maxPoints - points;
}

/** timeIdx as stored: 0 for the time that wins a tie (earliest or latest), always 0 on a player-id-only board. */
export function timeIndex(spec: Encoding, reachedAtMs: number): number {
  if (spec.tie === "id") return 0;
  const units = Math.floor((reachedAtMs - spec.epochMs) / spec.resolutionMs);
  return spec.tie === "latest" ? spec.timeUnits - 1 - units : units;
}

/** The sort key of `points` reached at `reachedAtMs`. Inputs must be inside the spec. */
export function encodeSortKey(spec: Encoding, points: number, reachedAtMs: number): number {
  return pointsIndex(spec, points) * spec.timeUnits + timeIndex(spec, reachedAtMs);
}

/** The points index of a sort key (its time part dropped): equal for equal points, lower for better ones. */
export function pointsIndexOfKey(spec: Pick<Encoding, "timeUnits">, key: number): number {
  return Math.floor(key / spec.timeUnits);
}

/** Splits a sort key back into points and reached-at time (rounded down to the resolution; 0 on a player-id-only board). */
export function decodeSortKey(spec: Encoding, key: number): Standing {
  const pointsIdx = pointsIndexOfKey(spec, key);
  const timeIdx = key - pointsIdx * spec.timeUnits;
  const points = spec.lowerIsBetter ? spec.minPoints + pointsIdx : spec.maxPoints - pointsIdx;
  if (spec.tie === "id") return { points, reachedAtMs: 0 };
  const units = spec.tie === "latest" ? spec.timeUnits - 1 - timeIdx : timeIdx;
  return { points, reachedAtMs: spec.epochMs + units * spec.resolutionMs };
}

/**
 * An entry as read, decoded: its points and time, or on a board with columns (columns.ts: the values
 * are in its member) its values, points being 0.
 */
export function decodeEntry(spec: Encoding & Pick<BoardSpec, "columns">, m: KeyedMember): Standing & { columns?: bigint[] } {
  if (spec.columns && m.member !== undefined) {
    const c = decodeColumnMember(
      { columns: spec.columns, tie: spec.tie, epochMs: spec.epochMs, resolutionMs: spec.resolutionMs },
      m.member,
    );
    return { points: 0, reachedAtMs: c.reachedAtMs, columns: c.values };
  }
  return decodeSortKey(spec, m.key);
}

/**
 * What equal entries share for tied ranks (competition, dense): the points index of a one-column
 * board's key, or on a board with columns the column part of the member (columns.ts: 16 hex digits
 * a column, equal for equal values). Smaller is better either way (numbers by value, column parts by
 * their bytes: hex digits sort as their values, so JavaScript's `<` on them is byte order).
 */
export type TieValue = number | string;

/** How a board's entries tie: by points index (key ÷ units), or by a member's first `width` bytes (a board with columns). */
export type TieScale = { units: number } | { width: number };

export function tieScaleOf(spec: Pick<BoardSpec, "timeUnits" | "columns">): TieScale {
  return spec.columns ? { width: spec.columns.length * COLUMN_HEX } : { units: spec.timeUnits };
}

/** An entry's tie value under `scale`. */
export function tieValueOf(scale: TieScale, m: KeyedMember): TieValue {
  return "width" in scale ? (m.member ?? m.playerId).slice(0, scale.width) : Math.floor(m.key / scale.units);
}

/** The position just before every entry of tie value `v`: the entries strictly ahead of it are those with a smaller value. */
export function tieFloor(scale: TieScale, v: TieValue): KeyedMember {
  return "width" in scale ? { playerId: "", key: 0, member: v as string } : { playerId: "", key: (v as number) * scale.units };
}

/** -1, 0 or 1 as tie value a is better than, equal to or worse than b (both of one board). */
export function compareTies(a: TieValue, b: TieValue): number {
  // both numbers or both strings: `<` compares numbers by value and strings by UTF-16 units, here ASCII
  const [x, y] = [a as number, b as number];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** An entry as stored on a shard: the member and its sort key. */
export interface KeyedMember {
  playerId: string;
  key: number;
  /** The metadata kept with the entry (ScoreUpdate.metadata), when the board keeps any. */
  metadata?: string;
  /**
   * The entry's member in Redis when it is not the player id: on a board with columns (columns.ts),
   * whose keys are all 0, the member holding the values is the entry's position.
   */
  member?: string;
}

/**
 * Total order of a board: -1 if a ranks ahead of b, 1 if behind, 0 only for the same
 * member. Player ids compare by UTF-8 bytes like Redis's memcmp.
 */
export function compareMembers(a: KeyedMember, b: KeyedMember): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  return compareIds(a.member ?? a.playerId, b.member ?? b.playerId);
}

/**
 * Byte-order comparison of two player ids, the tie-break Redis applies to equal scores: -1, 0 or 1.
 * UTF-8 byte order is code point order; JavaScript compares UTF-16 code units, which agrees with it
 * except where a surrogate (half of a character above U+FFFF) meets a unit in U+E000..FFFF: that
 * case is corrected here rather than encoding both ids (no allocation: merges and the router's
 * rank index compare ids in their inner loops).
 */
export function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}
