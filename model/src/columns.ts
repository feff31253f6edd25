/**
 * Boards with several sort columns: points, then kills, then time, each an exact signed 64-bit
 * integer ranked by its own order, then the board's tie rule, then the player id.
 *
 * WHY NOT THE SORT KEY. A one-column board folds its order into one Redis score, a double that
 * holds integers exactly up to 2^53 (score-encoding.ts). Two to four 64-bit columns need up to
 * 256 bits: no score holds them. Redis orders the members of equal score by their bytes
 * (memcmp), so the order goes into the member instead, and every member of such a board has
 * score 0:
 *
 *      member = col_1 … col_k  time  "\x1f"  player id
 *      col_i  = 16 lower-case hex digits of idx_i, where
 *               idx_i = value + 2^63              (lower is better)
 *                       2^63 - 1 - value          (higher is better)
 *      time   = 12 hex digits of the time index  (earliest first: units; latest first:
 *               2^48 - 1 - units; player id only: no time part at all)
 *      units  = floor((reachedAtMs - epochMs) / resolutionMs), below 2^48
 *
 * Every index is 0 for what wins, fixed-width and hex (digits and a-f sort as their values), so
 * byte order of members is the board's order: columns in turn, then time, then the player id
 * after the separator (a control character, which player ids never hold: validate.ts). "Equal
 * points", for ties and rank modes, are equal column parts (the first 16k characters).
 *
 * WHAT STAYS THE SAME. Every read is by (score, member) position, as on every board: ZRANK,
 * ZRANGE by rank, the count of members ahead of a position (every member at score 0: one
 * ZLEXCOUNT, sorted-sets.lua's phys_ahead), the router's merge of shard prefixes by (key, member)
 * (top-merge.ts: key 0 everywhere, then member bytes). So top, pages, around and GetRanks are
 * exact across shards by the same argument as a one-column board's. Tied ranks compare column
 * parts where a one-column board compares points indexes (score-encoding.ts, TieValue). A move
 * copies members by their player's slot (playerOfMember), and snapshots page sorted sets by
 * (score, member) whatever members hold.
 *
 * THE COMPANION. A player's member changes with its values, so a read or write by player id
 * first finds it: "<board key>!cols" is a sorted set of "<player>\n<col_1 … time>" at score 0,
 * found by lexical range like metadata (sorted-sets.lua's COLS.member_of). A write costs that
 * lookup and three more sorted-set writes than a one-column board's (the old member and companion
 * entry out, the new ones in), on members of some 70 bytes; a read by player one lookup more; a
 * read by position nothing more in commands, but every comparison is of longer members.
 * `npm run bench -- columns` measures both against a one-column board (docs/performance.md).
 *
 * INCREMENT in Lua: Redis's Lua numbers are doubles, so a column's 64 bits are added as four
 * 16-bit limbs, with the value's bias undone per order (store/src/lua/includes/apply-columns.lua).
 * This file builds what the writer sends (the column part for SET and BEST, the signed deltas for
 * INCREMENT) and decodes members for the router.
 */

/** A board's column as the model uses it (BoardRules.columns). */
export interface Column {
  readonly name: string;
  readonly lowerIsBetter: boolean;
}

export const MIN_COLUMNS = 2;
export const MAX_COLUMNS = 4;
/** Hex digits of one column's index. */
export const COLUMN_HEX = 16;
/** Hex digits of the time index (48 bits of time units). */
export const TIME_HEX = 12;
/** Time units a board with columns covers from its epoch. */
export const COLUMN_TIME_UNITS = 2 ** 48;
/** Between a member's order part and its player id: a control character, never in a player id. */
export const COLUMN_SEPARATOR = "\x1f";

export const INT64_MIN = -(1n << 63n);
export const INT64_MAX = (1n << 63n) - 1n;
const BIAS = 1n << 63n;

const NAME = /^[a-z0-9_]{1,32}$/;

/** What is wrong with a board's columns, or undefined (the field named: rules.columns). */
export function columnsProblem(columns: readonly { name: string }[]): string | undefined {
  if (columns.length === 0) return undefined;
  if (columns.length < MIN_COLUMNS || columns.length > MAX_COLUMNS)
    return `rules.columns: a board with columns has ${MIN_COLUMNS} to ${MAX_COLUMNS} of them, got ${columns.length}`;
  const seen = new Set<string>();
  for (const [i, c] of columns.entries()) {
    if (!NAME.test(c.name)) return `rules.columns[${i}].name: 1 to 32 characters of a-z 0-9 _, got ${JSON.stringify(c.name)}`;
    if (seen.has(c.name)) return `rules.columns[${i}].name: "${c.name}" names two columns`;
    seen.add(c.name);
  }
  return undefined;
}

/** What is wrong with a write's column values for a board of `count` columns (0: a board without columns), or undefined. */
export function valuesProblem(values: readonly bigint[], count: number, field = "columns"): string | undefined {
  if (count === 0) return values.length ? `${field}: the board has no columns, got ${values.length} values` : undefined;
  if (values.length !== count) return `${field}: the board has ${count} columns, got ${values.length} values`;
  for (const [i, v] of values.entries())
    if (v < INT64_MIN || v > INT64_MAX) return `${field}[${i}]: must be a signed 64-bit integer, got ${v}`;
  return undefined;
}

function hex(n: bigint, digits: number): string {
  return n.toString(16).padStart(digits, "0");
}

/** idx of `value` in a column: 0 for the best value. */
export function columnIndex(column: Column, value: bigint): bigint {
  return column.lowerIsBetter ? value + BIAS : BIAS - 1n - value;
}

/** The value of a column index. */
export function columnValue(column: Column, idx: bigint): bigint {
  return column.lowerIsBetter ? idx - BIAS : BIAS - 1n - idx;
}

/** The column part of a member: 16 hex digits per column. */
export function encodeColumns(columns: readonly Column[], values: readonly bigint[]): string {
  let out = "";
  for (let i = 0; i < columns.length; i++) out += hex(columnIndex(columns[i]!, values[i]!), COLUMN_HEX);
  return out;
}

/** The time part of a member: '' on a player-id-only board. `units` counts resolution units from the epoch. */
export function encodeTimePart(tie: "earliest" | "latest" | "id", units: number): string {
  if (tie === "id") return "";
  const idx = tie === "latest" ? COLUMN_TIME_UNITS - 1 - units : units;
  return idx.toString(16).padStart(TIME_HEX, "0");
}

/**
 * An INCREMENT's argument to the apply script: per column, its order ('l' lower is better, 'h'
 * higher), the delta's sign ('+', '-') and 16 hex digits of its magnitude.
 */
export function encodeDeltas(columns: readonly Column[], deltas: readonly bigint[]): string {
  let out = "";
  for (let i = 0; i < columns.length; i++) {
    const d = deltas[i]!;
    out += (columns[i]!.lowerIsBetter ? "l" : "h") + (d < 0n ? "-" : "+") + hex(d < 0n ? -d : d, COLUMN_HEX);
  }
  return out;
}

/** The player id of a board member: the member itself, or on a board with columns what follows the separator. */
export function playerOfMember(member: string): string {
  const at = member.indexOf(COLUMN_SEPARATOR);
  return at < 0 ? member : member.slice(at + 1);
}

/** The column part of a member of a board with `count` columns: equal for equal values. */
export function columnPartOf(member: string, count: number): string {
  return member.slice(0, count * COLUMN_HEX);
}

export interface ColumnEntry {
  playerId: string;
  values: bigint[];
  /** When the values were reached, rounded down to the resolution (0 on a player-id-only board). */
  reachedAtMs: number;
}

/** Decodes a member of a board with columns. */
export function decodeColumnMember(
  spec: { columns: readonly Column[]; tie: "earliest" | "latest" | "id"; epochMs: number; resolutionMs: number },
  member: string,
): ColumnEntry {
  const values: bigint[] = [];
  let at = 0;
  for (const c of spec.columns) {
    values.push(columnValue(c, BigInt(`0x${member.slice(at, at + COLUMN_HEX)}`)));
    at += COLUMN_HEX;
  }
  let reachedAtMs = 0;
  if (spec.tie !== "id") {
    const idx = Number.parseInt(member.slice(at, at + TIME_HEX), 16);
    const units = spec.tie === "latest" ? COLUMN_TIME_UNITS - 1 - idx : idx;
    reachedAtMs = spec.epochMs + units * spec.resolutionMs;
    at += TIME_HEX;
  }
  return { playerId: member.slice(at + 1), values, reachedAtMs };
}

/** The member of `player` with these values reached at time index part `time` (encodeTimePart). */
export function columnMember(columns: readonly Column[], values: readonly bigint[], time: string, player: string): string {
  return encodeColumns(columns, values) + time + COLUMN_SEPARATOR + player;
}
