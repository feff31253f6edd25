/**
 * Moderation: AdminService's HidePlayer, UnhidePlayer, DeleteEntry and WipeBoard through the router.
 */
import type { ServiceSet } from "@ladder/client";
import type { Values } from "./flags.js";
import type { DELETE_ENTRY, HIDE, UNHIDE, WIPE } from "./tables/moderation.js";

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
