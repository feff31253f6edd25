/**
 * `export`: AdminService.ExportPlayerData through the router, printed as one JSON document.
 */
import type { ServiceSet } from "@ladder/client";
import type { Values } from "./flags.js";
import type { EXPORT } from "./tables/export.js";

export async function exportPlayer(c: ServiceSet, o: Values<typeof EXPORT.flags>): Promise<string> {
  const res = await c.admin.exportPlayerData({ playerId: o.player });
  const doc = {
    playerId: res.playerId,
    records: Number(res.records),
    entries: res.entries.map((e) => ({
      board: e.board,
      ...(e.period ? { period: e.period } : {}),
      ...(e.window ? { window: e.window } : {}),
      score: String(e.entry!.score),
      reachedAt: new Date(Number(e.entry!.reachedAtMs)).toISOString(),
      ...(e.hidden ? { hidden: true } : { rank: Number(e.entry!.rank) }),
      ...(e.entry!.metadata ? { metadata: e.entry!.metadata } : {}),
    })),
  };
  return JSON.stringify(doc, null, 2);
}
