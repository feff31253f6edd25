/**
 * Moderation: AdminService's HidePlayer and UnhidePlayer through the router.
 */
import type { ServiceSet } from "@ladder/client";
import type { Values } from "./flags.js";
import type { HIDE, UNHIDE } from "./tables/moderation.js";

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
