/**
 * The read-only JSON endpoints over LeaderboardService: one per question, each the router's gRPC
 * answer to the same question in proto3's canonical JSON mapping (field names in lowerCamelCase,
 * 64-bit integers as strings, enums by name, every field present: `alwaysEmitImplicit`), so a
 * web client reads what a gRPC client would:
 *
 *   GET /api/boards/:board/periods                                      ListPeriods
 *   GET /api/boards/:board/top?limit&offset|cursor&period&window&rank_mode   GetTop
 *   GET /api/boards/:board/rank?player&period&window&rank_mode          GetRank
 *   GET /api/boards/:board/around?player&radius&period&window&rank_mode GetAround
 *   GET /api/boards/:board/histogram?period&window                      GetHistogram
 *   GET /api/boards/:board/league?player&period                         GetLeagueStanding
 *   GET /api/boards/:board/team?team                                    GetTeam
 *   GET /api/standing?player&boards=b1,b2@period,b3~window&rank_mode    GetStanding
 *
 * Every call carries the caller's token (caller.ts) and is cancelled when the caller goes away.
 */
import { toJson, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import type { LadderClient } from "@ladder/client";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { boardRef, Params } from "./params.js";

/** What a read is given: the board of its path (if any), its query, the caller's token, a signal. */
export interface ReadContext {
  board: string;
  search: URLSearchParams;
  token: string | undefined;
  signal: AbortSignal;
}

export type Read = (ctx: ReadContext) => Promise<unknown>;

const WHERE = ["period", "window"];
const M = LeaderboardService.method;

/** proto3 JSON of an answer, every field present. */
export const json = <D extends DescMessage>(schema: D, message: MessageShape<D>) => toJson(schema, message, { alwaysEmitImplicit: true });

/** The reads by their path's last segment (board reads) or name (standing). */
export function reads(client: LadderClient): { board: Record<string, Read>; standing: Read } {
  const lb = client.leaderboard;
  const opts = (c: ReadContext) => ({ token: c.token, signal: c.signal });
  const where = (p: Params) => ({ period: p.text("period"), window: p.text("window") });
  return {
    board: {
      periods: async (c) => {
        new Params(c.search, []);
        return json(M.listPeriods.output, await lb.listPeriods({ board: c.board }, opts(c)));
      },
      top: async (c) => {
        const p = new Params(c.search, ["limit", "offset", "cursor", "rank_mode", ...WHERE]);
        const req = {
          board: c.board,
          limit: p.uint32("limit"),
          offset: p.uint64("offset"),
          cursor: p.text("cursor"),
          rankMode: p.rankMode(),
          ...where(p),
        };
        return json(M.getTop.output, await lb.getTop(req, opts(c)));
      },
      rank: async (c) => {
        const p = new Params(c.search, ["player", "rank_mode", ...WHERE]);
        return json(
          M.getRank.output,
          await lb.getRank({ board: c.board, playerId: p.player("player"), rankMode: p.rankMode(), ...where(p) }, opts(c)),
        );
      },
      around: async (c) => {
        const p = new Params(c.search, ["player", "radius", "rank_mode", ...WHERE]);
        const req = { board: c.board, playerId: p.player("player"), radius: p.uint32("radius"), rankMode: p.rankMode(), ...where(p) };
        return json(M.getAround.output, await lb.getAround(req, opts(c)));
      },
      histogram: async (c) => {
        const p = new Params(c.search, WHERE);
        return json(M.getHistogram.output, await lb.getHistogram({ board: c.board, ...where(p) }, opts(c)));
      },
      league: async (c) => {
        const p = new Params(c.search, ["player", "period"]);
        const req = { board: c.board, playerId: p.player("player"), period: p.text("period") };
        return json(M.getLeagueStanding.output, await lb.getLeagueStanding(req, opts(c)));
      },
      team: async (c) => {
        const p = new Params(c.search, ["team"]);
        return json(M.getTeam.output, await lb.getTeam({ board: c.board, teamId: p.required("team") }, opts(c)));
      },
    },
    standing: async (c) => {
      const p = new Params(c.search, ["player", "boards", "rank_mode"]);
      const boards = p
        .required("boards")
        .split(",")
        .map((b) => b.trim())
        .filter(Boolean)
        .map(boardRef);
      return json(M.getStanding.output, await lb.getStanding({ playerId: p.player("player"), boards, rankMode: p.rankMode() }, opts(c)));
    },
  };
}
