/**
 * AdminService.ExportPlayerData: everything the cluster holds of one player, as one answer (a data
 * subject's request; PlayFab's ExportMasterPlayerData).
 *
 * The player's shard lists what it holds of it in one read-only script (read-player.lua): its
 * entries of every board key, hidden ones included, with their metadata, and its count of
 * records (apply-records.lua). Each visible entry's rank is then read as GetRank reads it (the
 * shards' counts summed at that instant); an entry a write moves in between is answered as that
 * read finds it, one gone by then is left out. Keys of a board's older generation (a deleted
 * board whose keys are not removed yet) and of periods no longer kept are not the player's data
 * any more: left out too.
 */
import type { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { ExportedEntry } from "@ladder/proto/leaderboard/v1/export_pb";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ExportedEntrySchema } from "@ladder/proto/leaderboard/v1/export_pb";
import { Code, LadderError, invalidArgument } from "@ladder/model/errors";
import { decodeEntry } from "@ladder/model/score-encoding";
import { playerIdProblem } from "@ladder/model/validate";
import type { ImplOf } from "@ladder/platform/grpc-adapter";
import type { Queries } from "../read/queries.js";

/** A stored board name ("<board>[#<generation>][~<window>][@<period>]", model/src/board-spec.ts) taken apart. */
export function parseStored(stored: string): { board: string; window: string; period: string } | undefined {
  const m = /^([A-Za-z0-9_.:-]+)(?:#\d+)?(?:~([^@]+))?(?:@(.+))?$/.exec(stored);
  return m ? { board: m[1]!, window: m[2] ?? "", period: m[3] ?? "" } : undefined;
}

export function playerExport(queries: Queries): Pick<ImplOf<typeof AdminService>, "exportPlayerData"> {
  return {
    async exportPlayerData(req, ctx) {
      const bad = playerIdProblem(req.playerId);
      if (bad) throw invalidArgument(bad);
      const held = await queries.playerData(req.playerId, ctx.deadlineMs);
      const entries: Array<MessageInitShape<typeof ExportedEntrySchema>> = [];
      for (const e of held.entries) {
        const where = parseStored(e.stored);
        if (!where) continue;
        let target;
        try {
          target = queries.target(where.board, where);
        } catch (err) {
          if (err instanceof LadderError && (err.code === Code.NOT_FOUND || err.code === Code.INVALID_ARGUMENT)) continue;
          throw err;
        }
        if (target.stored !== e.stored) continue; // an older generation's key
        if (e.hidden) {
          const s = decodeEntry(target.spec, {
            playerId: req.playerId,
            key: e.key,
            ...(e.member !== undefined ? { member: e.member } : {}),
          });
          const entry = {
            playerId: req.playerId,
            score: s.columns ? s.columns[0]! : BigInt(s.points),
            reachedAtMs: BigInt(s.reachedAtMs),
            rank: 0n,
            metadata: e.metadata,
            ...(s.columns ? { columns: s.columns } : {}),
          };
          entries.push({ ...where, entry, hidden: true });
          continue;
        }
        try {
          const { entry: r } = await queries.rank(where.board, req.playerId, ctx.deadlineMs, where);
          const entry = {
            playerId: r.playerId,
            score: r.columns ? r.columns[0]! : BigInt(r.points),
            reachedAtMs: BigInt(r.reachedAtMs),
            rank: BigInt(r.rank),
            metadata: r.metadata,
            ...(r.columns ? { columns: r.columns } : {}),
          };
          entries.push({ ...where, entry, hidden: false });
        } catch (err) {
          if (!(err instanceof LadderError && err.code === Code.NOT_FOUND)) throw err; // gone (or hidden) since the listing
        }
      }
      const order = (x: Pick<ExportedEntry, "board" | "period" | "window">) => `${x.board}\n${x.period}\n${x.window}`;
      entries.sort((a, b) => (order(a as ExportedEntry) < order(b as ExportedEntry) ? -1 : 1));
      return { playerId: req.playerId, entries, records: BigInt(held.records) };
    },
  };
}
