/**
 * The live push endpoints: LeaderboardService.WatchTop and WatchPlayer as Server-Sent Events
 * (sse.ts), each message an event whose id is its resume token:
 *
 *   GET /api/boards/:board/watch/top?limit&interval_ms&period&window              event "top": WatchTopResponse
 *   GET /api/boards/:board/watch/player?player&top_k&interval_ms&period&window    event "player": WatchPlayerResponse
 *
 * RESUME. `Last-Event-ID` (what an EventSource sends when it reconnects by itself), or the
 * `resume_token` parameter (a page opening a new EventSource where an old one stopped; the header
 * wins when both are given), is passed to the router as the stream's resume_token: the sequence
 * goes on, and the first event comes once the state differs from what that token showed.
 *
 * Between the gateway and the router the client library's stream reconnects by itself on
 * UNAVAILABLE (a router restart), resuming by the last token (@ladder/client, server-stream.ts):
 * a browser sees nothing of it but a pause. Each stream holds one of its client's stream slots
 * (rate-limit.ts) while it is open.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { LadderClient } from "@ladder/client";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { Params } from "./params.js";
import { json, type ReadContext } from "./reads.js";
import { relay } from "./sse.js";

const M = LeaderboardService.method;
const WHERE = ["period", "window", "interval_ms", "resume_token"];

export interface WatchContext extends ReadContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** Headers every answer carries (CORS). */
  headers: Record<string, string>;
}

export type Watch = (ctx: WatchContext) => Promise<void>;

/** The watch endpoints by their path's last segment. */
export function watches(client: LadderClient, stallMs: number): Record<string, Watch> {
  const common = (c: WatchContext, p: Params) => ({
    board: c.board,
    period: p.text("period"),
    window: p.text("window"),
    intervalMs: p.uint32("interval_ms"),
    resumeToken: resumeTokenOf(c.req, p),
  });
  return {
    top: async (c) => {
      const p = new Params(c.search, ["limit", ...WHERE]);
      const stream = client.leaderboard.watchTop({ ...common(c, p), limit: p.uint32("limit") }, { token: c.token });
      await relay(c.res, stream, {
        event: "top",
        headers: c.headers,
        stallMs,
        idOf: (m) => m.resumeToken,
        dataOf: (m) => json(M.watchTop.output, m),
      });
    },
    player: async (c) => {
      const p = new Params(c.search, ["player", "top_k", ...WHERE]);
      const stream = client.leaderboard.watchPlayer(
        { ...common(c, p), playerId: p.player("player"), topK: p.uint32("top_k") },
        { token: c.token },
      );
      await relay(c.res, stream, {
        event: "player",
        headers: c.headers,
        stallMs,
        idOf: (m) => m.resumeToken,
        dataOf: (m) => json(M.watchPlayer.output, m),
      });
    },
  };
}

/** The stream's resume token: Last-Event-ID, else the resume_token parameter, else none. */
function resumeTokenOf(req: IncomingMessage, p: Params): string {
  const header = req.headers["last-event-id"];
  return (typeof header === "string" && header !== "" ? header : p.text("resume_token")).trim();
}
