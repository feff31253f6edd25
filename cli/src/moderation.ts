/**
 * Moderation: AdminService's HidePlayer, UnhidePlayer, DeleteEntry, WipeBoard and ListModerationActions
 * through the router.
 */
import type { ServiceSet } from "@ladder/client";
import type { Values } from "./flags.js";
import { ModerationAction } from "@ladder/proto/leaderboard/v1/moderation_pb";
import { MODERATION_ACTION_NAMES } from "@ladder/model/moderation";
import type { AUDIT, DELETE_ENTRY, HIDE, HIDE_ABOVE, UNHIDE, WIPE } from "./tables/moderation.js";

type Written = { offset?: { partition: number; offset: bigint }; consistencyToken: string };

const where = (board: string | undefined) => (board ? `on ${board}` : "on every board");
const logged = (res: Written) =>
  `written at partition ${res.offset!.partition} offset ${res.offset!.offset}; its shard applies it in order with the player's scores (consistency token ${res.consistencyToken})`;

export async function hide(c: ServiceSet, o: Values<typeof HIDE.flags>): Promise<string> {
  const res = await c.admin.hidePlayer({ playerId: o.player, board: o.board ?? "", reason: o.reason });
  return `hid ${o.player} ${where(o.board)}: ${logged(res)}`;
}

export async function unhide(c: ServiceSet, o: Values<typeof UNHIDE.flags>): Promise<string> {
  const res = await c.admin.unhidePlayer({ playerId: o.player, board: o.board ?? "", reason: o.reason });
  return `lifted the hide of ${o.player} ${o.board ? `on ${o.board}` : "on every board and each board"}: ${logged(res)}`;
}

export async function deleteEntry(c: ServiceSet, o: Values<typeof DELETE_ENTRY.flags>): Promise<string> {
  const res = await c.admin.deleteEntry({ playerId: o.player, board: o.board, reason: o.reason });
  return `deleted the entries of ${o.player} on ${o.board}: ${logged(res)}`;
}

export async function wipe(c: ServiceSet, o: Values<typeof WIPE.flags>): Promise<string> {
  const res = await c.admin.wipeBoard({ board: o.board, period: o.period ?? "", reason: o.reason });
  const what = res.action!.period ? `period ${res.action!.period} of ${o.board}` : o.board;
  return `wiped ${what}: ${res.markers.length} records written, one per partition; each shard removes its players' entries as it applies them (consistency token ${res.consistencyToken})`;
}

/** One line per action, newest first: "2026-12-04T20:31:05.123Z hide cheater-1 on speedrun by ops-alice: impossible times (partition 3 offset 41)". */
export async function audit(c: ServiceSet, o: Values<typeof AUDIT.flags>): Promise<string> {
  const res = await c.admin.listModerationActions({ playerId: o.player ?? "", board: o.board ?? "", limit: o.limit });
  if (res.actions.length === 0) return "no moderation actions";
  return res.actions
    .map(({ action: a, record: r }) => {
      const who = a!.playerId ? ` ${a!.playerId}` : "";
      const where = a!.board ? ` on ${a!.board}${a!.period ? ` period ${a!.period}` : ""}` : " on every board";
      const when = new Date(Number(a!.atMs)).toISOString();
      const floor = a!.action === ModerationAction.TRIM ? `, floor ${a!.floorPlayer} (sort key ${a!.floorKey})` : "";
      return `${when} ${MODERATION_ACTION_NAMES[a!.action] ?? a!.action}${who}${where} by ${a!.by}: ${a!.reason}${floor} (partition ${r!.partition} offset ${r!.offset})`;
    })
    .join("\n");
}

export async function hideAbove(c: ServiceSet, o: Values<typeof HIDE_ABOVE.flags>): Promise<string> {
  const res = await c.admin.hideAboveCeiling({ board: o.board, reason: o.reason });
  return `hiding the players above ${res.action!.ceiling} on ${o.board}: ${res.markers.length} records written, one per partition (consistency token ${res.consistencyToken})`;
}
