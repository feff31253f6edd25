/**
 * Validation of score updates: the rules ingest enforces before anything reaches the
 * log, and shard nodes re-check on every record they read (a record that fails is
 * skipped and reported, never applied). One function per rule; each returns the
 * problem as text, or undefined when the value is fine.
 */
import type { BoardSpec } from "./board-spec.js";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { trimmedOpProblem } from "./retention.js";
import { valuesProblem } from "./columns.js";

export const MAX_BOARD_LENGTH = 64;
export const MAX_PLAYER_ID_BYTES = 128;
export const MAX_EVENT_ID_BYTES = 128;
/** The most bytes of metadata any board may keep with an entry (BoardDefinition.max_metadata_bytes). */
export const MAX_METADATA_BYTES = 4096;
const BOARD_PATTERN = /^[A-Za-z0-9_.:-]+$/;
const BOARD_CHARACTERS = "A-Z a-z 0-9 _ - . :";
// C0 and C1 control characters, and lone surrogates (which UTF-8 cannot carry).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function boardProblem(board: string): string | undefined {
  if (board.length === 0) return `board is empty: it must be 1 to ${MAX_BOARD_LENGTH} of ${BOARD_CHARACTERS}`;
  if (board.length > MAX_BOARD_LENGTH) return `board is ${board.length} characters long, more than ${MAX_BOARD_LENGTH}`;
  if (!BOARD_PATTERN.test(board)) return `board may contain only ${BOARD_CHARACTERS}, got "${board}"`;
  return undefined;
}

/** What is wrong with a ListBoards prefix (empty, or the start of a board name), or undefined. */
export function boardPrefixProblem(prefix: string): string | undefined {
  if (prefix === "") return undefined;
  return boardProblem(prefix)?.replace(/^board/, "prefix");
}

/** What is wrong with a view name (same rules as a board name), or undefined. */
export function viewProblem(view: string): string | undefined {
  return boardProblem(view)?.replace(/^board/, "view");
}

/**
 * THE PLAYER ID POLICY, applied alike by ingest (writes, erasures), the router (every read and
 * watch naming a player) and the gateway (before it asks the router). A player id is 1-128 bytes
 * of valid UTF-8 whose characters are all visible or plain spaces, so that two ids that look
 * alike are the same id:
 *
 *   - no control characters (Unicode category Cc: C0, DEL, C1);
 *   - no format characters (Cf): zero-width space, non-joiner and joiner U+200B-U+200D, word
 *     joiner U+2060, the BOM U+FEFF, bidi marks and controls U+200E, U+200F, U+202A-U+202E,
 *     U+2066-U+2069, soft hyphen U+00AD, and the others of the category;
 *   - no line or paragraph separator (U+2028, U+2029);
 *   - not only whitespace, and no whitespace (any Unicode White_Space) at its start or end.
 *
 * Refused, never normalized: an id means exactly its bytes. Spaces inside an id ("Ann Lee") are
 * fine. Records already in the score log are applied by the shard nodes under the log's own rule
 * (loggedPlayerIdProblem), so a rebuild replays what ingest accepted when it was written.
 */
export function playerIdProblem(playerId: string): string | undefined {
  const logged = loggedPlayerIdProblem(playerId);
  if (logged) return logged;
  const invisible = INVISIBLE.exec(playerId);
  if (invisible) return `player_id contains ${codePoint(invisible[0])}, an invisible (format or separator) character`;
  if (playerId.trim() === "") return "player_id is only whitespace";
  if (playerId.trim() !== playerId) return "player_id starts or ends with whitespace";
  return undefined;
}

/** What is wrong with a team id (teams.ts), naming `field`, or undefined: the rules of a player id. */
export function teamIdProblem(team: string, field = "team_id"): string | undefined {
  return playerIdProblem(team)?.replace(/^player_id|^player id/, field);
}

/** The rule of a player id in a score record: 1-128 bytes of UTF-8 without control characters. */
export function loggedPlayerIdProblem(playerId: string): string | undefined {
  if (playerId.length === 0) return `player_id is empty: it must be 1 to ${MAX_PLAYER_ID_BYTES} bytes of UTF-8`;
  const bytes = Buffer.byteLength(playerId, "utf8");
  if (bytes > MAX_PLAYER_ID_BYTES) return `player_id is ${bytes} bytes long, more than ${MAX_PLAYER_ID_BYTES}`;
  // Invalid UTF-8 on the wire fails decoding already; a JS caller can still pass lone surrogates.
  if (LONE_SURROGATE.test(playerId)) return "player_id is not valid UTF-8";
  const control = CONTROL.exec(playerId);
  if (control) return `player_id contains control characters (${codePoint(control[0])}): it must have none (U+0000-001F, U+007F-009F)`;
  return undefined;
}

// Format characters (Cf) and the line and paragraph separators (Zl, Zp).
const INVISIBLE = /[\p{Cf}\p{Zl}\p{Zp}]/u;
const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

/**
 * What is wrong with an update's metadata for a board that keeps at most `maxBytes` of it, or
 * undefined ("" is always fine: it keeps what the entry holds).
 */
export function metadataProblem(metadata: string, maxBytes: number): string | undefined {
  if (metadata === "") return undefined;
  if (maxBytes === 0) return "metadata: the board keeps no metadata (its max_metadata_bytes is 0)";
  const bytes = Buffer.byteLength(metadata, "utf8");
  if (bytes > maxBytes) return `metadata is ${bytes} bytes, more than the board's max_metadata_bytes ${maxBytes}`;
  if (LONE_SURROGATE.test(metadata)) return "metadata is not valid UTF-8";
  return undefined;
}

/** An update as it is checked: the fields of ScoreUpdate / ScoreEvent. */
export interface UpdateFields {
  board: string;
  playerId: string;
  op: Operation;
  value: bigint;
  timestampMs: bigint;
  eventId: string;
  /** The values of a board with columns (ScoreUpdate.columns); none on every other board. */
  columns?: readonly bigint[];
}

/**
 * The first problem of an update, or undefined. `timestampMs` must already be resolved
 * (0 replaced by now). `nowMs`/`maxSkewMs` bound timestamps from the future. `playerRule`: the
 * player id policy (ingest), or the log's rule (loggedPlayerIdProblem: shard nodes replaying records).
 */
export function updateProblem(
  u: UpdateFields,
  spec: BoardSpec,
  nowMs: number,
  maxSkewMs: number,
  playerRule: (playerId: string) => string | undefined = playerIdProblem,
): string | undefined {
  const basic = boardProblem(u.board) ?? playerRule(u.playerId);
  if (basic) return basic;
  const eventIdBytes = Buffer.byteLength(u.eventId, "utf8");
  if (eventIdBytes > MAX_EVENT_ID_BYTES) return `event_id is ${eventIdBytes} bytes long, more than ${MAX_EVENT_ID_BYTES}`;
  const min = BigInt(spec.minPoints);
  const max = BigInt(spec.maxPoints);
  const values = valuesProblem(u.columns ?? [], spec.columns?.length ?? 0);
  if (values) return values;
  switch (spec.columns ? "columns" : u.op) {
    case "columns":
      if (u.value !== 0n) return `value: a board with columns takes its values in columns, so value must be 0, got ${u.value}`;
      if (u.op !== Operation.SET && u.op !== Operation.BEST && u.op !== Operation.INCREMENT && u.op !== Operation.DECREMENT)
        return `op ${u.op} is not a valid operation (SET, INCREMENT, DECREMENT or BEST)`;
      break;
    case Operation.SET:
    case Operation.BEST:
      if (u.value < min || u.value > max) return `value ${u.value} is outside the board's range [${min}, ${max}]`;
      break;
    case Operation.INCREMENT:
    case Operation.DECREMENT: {
      const width = max - min;
      if (u.value < -width || u.value > width)
        return `${u.op === Operation.INCREMENT ? "increment" : "decrement"} ${u.value} is larger than the board's range width ${width}`;
      break;
    }
    default:
      return `op ${u.op} is not a valid operation (SET, INCREMENT, DECREMENT or BEST)`;
  }
  const trimmed = trimmedOpProblem(u.board, u.op, spec.retention.keepTop);
  if (trimmed) return trimmed;
  if (u.timestampMs < BigInt(spec.epochMs) || u.timestampMs >= BigInt(spec.horizonMs))
    return `timestamp_ms ${u.timestampMs} is outside the board's time range [${spec.epochMs}, ${spec.horizonMs})`;
  if (u.timestampMs > BigInt(nowMs + maxSkewMs)) return `timestamp_ms ${u.timestampMs} is more than ${maxSkewMs} ms in the future`;
  return undefined;
}

/**
 * The operation an update applies: the one it names, or on a defined board its default when it
 * names none. A defined board that does not allow overrides refuses any other (the text says why).
 */
export function resolveOp(op: Operation, spec: BoardSpec): { op: Operation } | { problem: string } {
  if (spec.generation < 0) return { op };
  if (op === Operation.UNSPECIFIED) return { op: spec.defaultOp };
  if (op !== spec.defaultOp && !spec.allowOpOverride)
    return { problem: `board "${spec.prefix}" takes only its default operation ${Operation[spec.defaultOp]} (allow_op_override is off)` };
  return { op };
}
