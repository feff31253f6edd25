/**
 * Moderation actions (AdminService.HidePlayer, UnhidePlayer, DeleteEntry, WipeBoard; and the
 * retainer's trims and expiries, retention.ts): their record
 * in the score log (a ScoreEvent whose `moderation` is set, keyed and partitioned by the player; a
 * wipe's, one per partition) and their line in a shard's audit trail (store/src/lua/includes/
 * apply-moderation.lua keeps it as given).
 *
 * The audit line is JSON with the record's offset, so two actions never make the same line and
 * a replay of one makes the same line again (a sorted set member: kept once).
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { ScoreEventSchema } from "@ladder/proto/leaderboard/v1/events_pb";
import type { BoardRules } from "@ladder/proto/leaderboard/v1/common_pb";
import { ModerationAction, ModerationSchema, type Moderation } from "@ladder/proto/leaderboard/v1/moderation_pb";

/** The longest reason kept, in UTF-8 bytes. */
export const MAX_REASON_BYTES = 500;

/** What is wrong with a moderation reason (empty or too long), or undefined. */
export function reasonProblem(reason: string): string | undefined {
  if (reason.trim() === "") return "reason is empty: a moderation action says why (1 to 500 bytes)";
  const bytes = Buffer.byteLength(reason, "utf8");
  if (bytes > MAX_REASON_BYTES) return `reason is ${bytes} bytes long, more than ${MAX_REASON_BYTES}`;
  return undefined;
}

/** A moderation action's record value; `rules`: a defined board's (a wipe's record carries them, as a score's does). */
export function encodeModeration(m: Moderation, rules?: BoardRules): Buffer {
  const bytes = toBinary(
    ScoreEventSchema,
    create(ScoreEventSchema, { playerId: m.playerId, board: m.board, moderation: m, ingestedAtMs: m.atMs, ...(rules ? { rules } : {}) }),
  );
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The action names of audit lines and of the CLI's `audit`. */
export const MODERATION_ACTION_NAMES: Partial<Record<ModerationAction, string>> = {
  [ModerationAction.HIDE]: "hide",
  [ModerationAction.UNHIDE]: "unhide",
  [ModerationAction.DELETE_ENTRY]: "delete-entry",
  [ModerationAction.WIPE]: "wipe",
  [ModerationAction.HIDE_ABOVE]: "hide-above",
  [ModerationAction.TRIM]: "trim",
  [ModerationAction.EXPIRE]: "expire",
};

/** One line of a shard's audit trail, as stored. */
interface AuditLine {
  offset: string;
  action: string;
  playerId: string;
  board: string;
  period: string;
  ceiling?: number;
  floorKey?: number;
  floorPlayer?: string;
  count?: number;
  cutoffMs?: number;
  by: string;
  reason: string;
  atMs: number;
}

/** The audit line of action `m`, written at `offset` of the player's partition. */
export function moderationAuditLine(m: Moderation, offset: bigint): string {
  const line: AuditLine = {
    offset: String(offset),
    action: MODERATION_ACTION_NAMES[m.action] ?? String(m.action),
    playerId: m.playerId,
    board: m.board,
    period: m.period,
    ...(m.ceiling ? { ceiling: Number(m.ceiling) } : {}),
    ...(m.action === ModerationAction.TRIM ? { floorKey: Number(m.floorKey), floorPlayer: m.floorPlayer } : {}),
    ...(m.count ? { count: Number(m.count) } : {}),
    ...(m.cutoffMs ? { cutoffMs: Number(m.cutoffMs) } : {}),
    by: m.by,
    reason: m.reason,
    atMs: Number(m.atMs),
  };
  return JSON.stringify(line);
}

/** An audit line back as the action and its offset; undefined for a line that is not one. */
export function parseAuditLine(line: string): { action: Moderation; offset: bigint } | undefined {
  let l: AuditLine;
  try {
    l = JSON.parse(line) as AuditLine;
  } catch {
    return undefined;
  }
  const action = Object.entries(MODERATION_ACTION_NAMES).find(([, name]) => name === l.action)?.[0];
  if (action === undefined || typeof l.playerId !== "string") return undefined;
  return {
    offset: BigInt(l.offset),
    action: create(ModerationSchema, {
      action: Number(action) as ModerationAction,
      playerId: l.playerId,
      board: l.board,
      period: l.period ?? "",
      ceiling: BigInt(l.ceiling ?? 0),
      floorKey: BigInt(l.floorKey ?? 0),
      floorPlayer: l.floorPlayer ?? "",
      count: BigInt(l.count ?? 0),
      cutoffMs: BigInt(l.cutoffMs ?? 0),
      by: l.by,
      reason: l.reason,
      atMs: BigInt(l.atMs),
    }),
  };
}
