/**
 * LeaderboardService handlers: check the request, run the query, shape the answer.
 * Bad arguments are INVALID_ARGUMENT before any shard is asked.
 */
import { create } from "@bufbuild/protobuf";
import { GetTopResponseSchema, type GetTopResponse, type LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { encodeOnce, type ImplOf } from "@ladder/common/grpc-adapter";
import { invalidArgument } from "@ladder/common/errors";
import { boardProblem, playerIdProblem, viewProblem } from "@ladder/common/validate";
import type { Page, Queries, RankedEntry } from "./queries.js";

export const MAX_LIMIT = 1000;
export const MAX_DEPTH = 10_000;
export const MAX_RADIUS = 100;
const DEFAULT_LIMIT = 10;
const DEFAULT_RADIUS = 5;

/** Waits for a request's consistency token (see wait-applied.ts). */
export type TokenWaiter = (token: string, deadlineMs: number) => Promise<void>;

/**
 * `queries` answers reads; `primaryQueries` those that carry a consistency token: the token is
 * checked against the offsets applied on each shard's primary, so they read the primaries, not
 * a replica that may not have those writes yet (replicas.ts).
 */
export function leaderboardService(queries: Queries, waitFor: TokenWaiter, primaryQueries: Queries = queries): ImplOf<typeof LeaderboardService> {
  const by = (token: string) => (token === "" ? queries : primaryQueries);
  return {
    async getTop(req, ctx) {
      check("board", boardProblem(req.board));
      const limit = req.limit === 0 ? DEFAULT_LIMIT : req.limit;
      if (limit > MAX_LIMIT) throw invalidArgument(`limit ${limit} is above ${MAX_LIMIT}`);
      if (req.offset + BigInt(limit) > BigInt(MAX_DEPTH)) throw invalidArgument(`offset + limit is above ${MAX_DEPTH}: page by rank with GetAround instead`);
      await waitFor(req.consistencyToken, ctx.deadlineMs);
      return topResponse(await by(req.consistencyToken).top(req.board, Number(req.offset), limit, ctx.deadlineMs, view(req.view), req.period));
    },
    async getRank(req, ctx) {
      check("board", boardProblem(req.board));
      check("player_id", playerIdProblem(req.playerId));
      await waitFor(req.consistencyToken, ctx.deadlineMs);
      const { entry, total } = await by(req.consistencyToken).rank(req.board, req.playerId, ctx.deadlineMs, view(req.view), req.period);
      return { entry: toEntry(entry), total: BigInt(total) };
    },
    async getAround(req, ctx) {
      check("board", boardProblem(req.board));
      check("player_id", playerIdProblem(req.playerId));
      const radius = req.radius === 0 ? DEFAULT_RADIUS : req.radius;
      if (radius > MAX_RADIUS) throw invalidArgument(`radius ${radius} is above ${MAX_RADIUS}`);
      await waitFor(req.consistencyToken, ctx.deadlineMs);
      const page = await by(req.consistencyToken).around(req.board, req.playerId, radius, ctx.deadlineMs, view(req.view), req.period);
      return { entries: page.entries.map(toEntry), total: BigInt(page.total) };
    },
    async listPeriods(req) {
      check("board", boardProblem(req.board));
      return { periods: queries.periods(req.board).map((p) => ({ id: p.id, startMs: BigInt(p.startMs), endMs: BigInt(p.endMs), expireAtMs: BigInt(p.expireAtMs) })) };
    },
  };
}

/** A request's view name, checked like a board name ("" = the live boards). */
function view(name: string): string {
  if (name !== "") check("view", viewProblem(name));
  return name;
}

function check(field: string, problem: string | undefined): void {
  if (problem) throw invalidArgument(`${field}: ${problem}`);
}

/**
 * A page's response message, made and encoded once per page: the top cache (top-cache.ts) hands
 * the same Page to every caller of a hot page until it refreshes; the message is never changed.
 */
const topResponses = new WeakMap<Page, GetTopResponse>();
function topResponse(page: Page): GetTopResponse {
  let res = topResponses.get(page);
  if (res === undefined) topResponses.set(page, (res = encodeOnce(GetTopResponseSchema, create(GetTopResponseSchema, { entries: page.entries.map(toEntry), total: BigInt(page.total) }))));
  return res;
}

function toEntry(e: RankedEntry) {
  return { playerId: e.playerId, score: BigInt(e.points), rank: BigInt(e.rank), reachedAtMs: BigInt(e.reachedAtMs) };
}
