/**
 * LeaderboardService handlers: check the request, run the query, shape the answer.
 * Bad arguments are INVALID_ARGUMENT before any shard is asked.
 */
import { RankMode as ProtoRankMode, type GetTopResponse, type LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import type { ImplOf } from "@ladder/platform/grpc-adapter";
import { Code, invalidArgument, LadderError, notFound } from "@ladder/model/errors";
import { boardProblem, playerIdProblem, viewProblem } from "@ladder/model/validate";
import type { Page, Queries, RankedEntry, Where } from "./queries.js";
import type { RankMode } from "./ranks.js";
import { aroundResponse, rankResponse, topPageResponse } from "./rank-response.js";
import { bucketOfStored } from "@ladder/model/histogram";
import type { TournamentReads } from "./tournament-reads.js";
import type { LeagueReads } from "./league-reads.js";
import type { TeamReads } from "./team-reads.js";
import { toEntry } from "./entries.js";

export const MAX_LIMIT = 1000;
export const MAX_DEPTH = 10_000;
export const MAX_RADIUS = 100;
/** Players one GetRanks may name. */
export const MAX_RANKS = 1000;
/** Boards one GetStanding may name. */
export const MAX_STANDING_BOARDS = 16;
const DEFAULT_LIMIT = 10;
const DEFAULT_RADIUS = 5;

/** Waits for a request's consistency token (see wait-applied.ts). */
export type TokenWaiter = (token: string, deadlineMs: number) => Promise<void>;

/**
 * `queries` answers reads; `primaryQueries` those that carry a consistency token: the token is
 * checked against the offsets applied on each shard's primary, so they read the primaries, not
 * a replica that may not have those writes yet (replicated-reader.ts).
 */
export function leaderboardService(
  queries: Queries,
  waitFor: TokenWaiter,
  primaryQueries: Queries = queries,
  tournaments?: TournamentReads,
  leagues?: LeagueReads,
  teams?: TeamReads,
): Omit<ImplOf<typeof LeaderboardService>, "watchTop" | "watchPlayer"> {
  const by = (token: string) => (token === "" ? queries : primaryQueries);
  return {
    async getTop(req, ctx) {
      check("board", boardProblem(req.board));
      const w = where(req); // the view, checked before anything waits or reads
      const limit = req.limit === 0 ? DEFAULT_LIMIT : req.limit;
      if (limit > MAX_LIMIT) throw invalidArgument(`limit: must be 1..${MAX_LIMIT} (0: ${DEFAULT_LIMIT}), got ${limit}`);
      const mode = rankMode(req.rankMode);
      const q = by(req.consistencyToken);
      if (req.cursor !== "") {
        if (req.offset !== 0n)
          throw invalidArgument(`offset: must be 0 with a cursor (the cursor says where the page starts), got ${req.offset}`);
        await waitFor(req.consistencyToken, ctx.deadlineMs);
        const page = await q.pageAt(req.board, req.cursor, limit, ctx.deadlineMs, w, mode);
        return topPageResponse(page.entries, page.total, page.next, page.previous);
      }
      if (req.offset + BigInt(limit) > BigInt(MAX_DEPTH))
        throw invalidArgument(
          `offset: offset + limit must be at most ${MAX_DEPTH}, got ${req.offset + BigInt(limit)}; page deeper with a page's next_cursor`,
        );
      await waitFor(req.consistencyToken, ctx.deadlineMs);
      const page = await q.top(req.board, Number(req.offset), limit, ctx.deadlineMs, w, mode);
      return topResponse(page, () => q.cursorsOf(req.board, page, w));
    },
    async getRank(req, ctx) {
      check("board", boardProblem(req.board));
      const w = where(req); // the view, checked before anything waits or reads
      check("player_id", playerIdProblem(req.playerId));
      const mode = rankMode(req.rankMode);
      if (req.consistencyToken !== "") await waitFor(req.consistencyToken, ctx.deadlineMs);
      if (mode !== "unique") {
        const q = by(req.consistencyToken);
        const {
          found: [e],
          total,
          belowFloor,
        } = await q.ranks(req.board, [req.playerId], mode, ctx.deadlineMs, w);
        if (!e) throw q.notRanked(req.board, req.playerId, belowFloor.length > 0, w);
        return { entry: toEntry(e), total: BigInt(total) };
      }
      const { entry, total } = await by(req.consistencyToken).rank(req.board, req.playerId, ctx.deadlineMs, w);
      return rankResponse(entry, total);
    },
    async getRanks(req, ctx) {
      check("board", boardProblem(req.board));
      const w = where(req); // the view, checked before anything waits or reads
      const n = req.playerIds.length;
      if (n === 0 || n > MAX_RANKS) throw invalidArgument(`player_ids: must name 1..${MAX_RANKS} players, got ${n}`);
      req.playerIds.forEach((p, i) => check(`player_ids[${i}]`, playerIdProblem(p)));
      const twice = req.playerIds.find((p, i) => req.playerIds.indexOf(p) !== i);
      if (twice !== undefined) throw invalidArgument(`player_ids: must name each player once, got "${twice}" twice`);
      const mode = rankMode(req.rankMode);
      await waitFor(req.consistencyToken, ctx.deadlineMs);
      const res = await by(req.consistencyToken).ranks(req.board, req.playerIds, mode, ctx.deadlineMs, w);
      return {
        entries: res.found.map((e) => ({ entry: toEntry(e), rankAmong: e.rankAmong })),
        missing: res.missing,
        total: BigInt(res.total),
      };
    },
    async getStanding(req, ctx) {
      check("player_id", playerIdProblem(req.playerId));
      if (req.boards.length === 0 || req.boards.length > MAX_STANDING_BOARDS)
        throw invalidArgument(`boards: must name 1..${MAX_STANDING_BOARDS} boards, got ${req.boards.length}`);
      req.boards.forEach((b, i) => check(`boards[${i}].board`, boardProblem(b.board)));
      const mode = rankMode(req.rankMode);
      await waitFor(req.consistencyToken, ctx.deadlineMs);
      const q = by(req.consistencyToken);
      // asked together: the reads of each shard go as one command per round (store/src/reader.ts)
      const standings = await Promise.all(
        req.boards.map(async (b) => {
          const at = { period: b.period, window: b.window };
          const board = { board: b.board, period: b.period, window: b.window };
          const standing = (
            e: Pick<RankedEntry, "playerId" | "points" | "rank" | "reachedAtMs" | "metadata" | "tiedRank">,
            total: number,
          ) => ({
            board,
            found: true,
            entry: toEntry(e),
            total: BigInt(total),
            topPercent: (100 * e.rank) / total,
            percentile: (100 * (total - e.rank)) / total,
          });
          // the unique rank as GetRank reads it (rank-batch.ts: the owner, then each other shard, with the turn's other ranks of the board);
          // tied ranks, and the size of a board the player is not on, from a batch of one (ranks.ts)
          if (mode === "unique") {
            const got = await q.rank(b.board, req.playerId, ctx.deadlineMs, at).catch((err: unknown) => {
              if (err instanceof LadderError && err.code === Code.NOT_FOUND && err.message.startsWith("player ")) return undefined;
              throw err;
            });
            if (got) return standing(got.entry, got.total);
          }
          const res = await q.ranks(b.board, [req.playerId], mode, ctx.deadlineMs, at);
          const e = res.found[0];
          return e ? standing(e, res.total) : { board, found: false, total: BigInt(res.total) };
        }),
      );
      return { standings };
    },
    async getEntryAtRank(req, ctx) {
      check("board", boardProblem(req.board));
      const w = where(req); // the view, checked before anything waits or reads
      const at = req.at;
      let rank: number | ((total: number) => number);
      if (at.case === "rank") {
        if (at.value < 1n) throw invalidArgument(`rank: must be 1 or more, got ${at.value}`);
        // no board holds 2^53 entries: a larger rank is past every board's end, found as such (NOT_FOUND)
        rank = at.value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(at.value);
      } else if (at.case === "topPercent") {
        const p = at.value;
        if (!(p > 0 && p <= 100)) throw invalidArgument(`top_percent: must be above 0 and at most 100, got ${p}`);
        rank = (total) => Math.max(1, Math.ceil((p / 100) * total));
      } else throw invalidArgument("at: must be a rank or a top_percent, got neither");
      await waitFor(req.consistencyToken, ctx.deadlineMs);
      const got = await by(req.consistencyToken).entryAt(req.board, rank, ctx.deadlineMs, w);
      if (!got) throw notFound(`board "${req.board}" holds fewer entries than that rank`);
      return { entry: toEntry(got.entry), total: BigInt(got.total) };
    },
    async getHistogram(req, ctx) {
      check("board", boardProblem(req.board));
      const w = where(req); // the view, checked before anything waits or reads
      await waitFor(req.consistencyToken, ctx.deadlineMs);
      const h = await by(req.consistencyToken).histogram(req.board, ctx.deadlineMs, w);
      const buckets = h.counts
        .map((count, j) => ({ range: bucketOfStored(h.spec, h.bounds, j), count }))
        .sort((a, b) => a.range.min - b.range.min);
      return {
        buckets: buckets.map((b) => ({ minScore: BigInt(b.range.min), maxScore: BigInt(b.range.max), count: BigInt(b.count) })),
        total: BigInt(h.total),
        readAtMs: BigInt(h.readAtMs),
      };
    },
    async getApproximateRank(req, ctx) {
      check("board", boardProblem(req.board));
      const w = where(req); // the view, checked before anything waits or reads
      let of: { score: number } | { playerId: string };
      if (req.of.case === "score") of = { score: Number(req.of.value) };
      else if (req.of.case === "playerId") {
        check("player_id", playerIdProblem(req.of.value));
        of = { playerId: req.of.value };
      } else throw invalidArgument("of: must be a score or a player_id, got neither");
      await waitFor(req.consistencyToken, ctx.deadlineMs);
      const r = await by(req.consistencyToken).approximateRank(req.board, of, ctx.deadlineMs, w);
      return {
        rankEstimate: BigInt(r.estimate),
        rankAtLeast: BigInt(r.atLeast),
        rankAtMost: BigInt(r.atMost),
        total: BigInt(r.total),
        score: BigInt(r.points),
        bucket: {
          minScore: BigInt(r.range.min),
          maxScore: BigInt(r.range.max),
          count: BigInt(r.atMost - r.atLeast + ("playerId" in of ? 1 : 0)),
        },
        readAtMs: BigInt(r.readAtMs),
      };
    },
    async getCount(req, ctx) {
      check("board", boardProblem(req.board));
      const w = where(req); // the view, checked before anything waits or reads
      await waitFor(req.consistencyToken, ctx.deadlineMs);
      const bound = (v: bigint | undefined) => (v === undefined ? undefined : Number(v));
      const res = await by(req.consistencyToken).count(req.board, bound(req.minScore), bound(req.maxScore), ctx.deadlineMs, w);
      return { count: BigInt(res.count), total: BigInt(res.total) };
    },
    async getAround(req, ctx) {
      check("board", boardProblem(req.board));
      const w = where(req); // the view, checked before anything waits or reads
      check("player_id", playerIdProblem(req.playerId));
      const radius = req.radius === 0 ? DEFAULT_RADIUS : req.radius;
      if (radius > MAX_RADIUS) throw invalidArgument(`radius: must be 1..${MAX_RADIUS} (0: ${DEFAULT_RADIUS}), got ${radius}`);
      await waitFor(req.consistencyToken, ctx.deadlineMs);
      const q = by(req.consistencyToken);
      const mode = rankMode(req.rankMode);
      const page = await q.around(req.board, req.playerId, radius, ctx.deadlineMs, w, mode);
      return aroundResponse(page.entries, page.total);
    },
    async listTournaments(req, ctx) {
      if (!tournaments) throw new LadderError(Code.UNIMPLEMENTED, "this router lists no tournaments");
      return tournaments.list(req, ctx.deadlineMs);
    },
    async getTournament(req, ctx) {
      if (!tournaments) throw new LadderError(Code.UNIMPLEMENTED, "this router reads no tournaments");
      if (req.consistencyToken !== "") await waitFor(req.consistencyToken, ctx.deadlineMs);
      return tournaments.get(req, ctx.deadlineMs);
    },
    async getLeagueStanding(req, ctx) {
      if (!leagues) throw new LadderError(Code.UNIMPLEMENTED, "this router reads no leagues");
      check("board", boardProblem(req.board));
      check("player_id", playerIdProblem(req.playerId));
      if (req.consistencyToken !== "") await waitFor(req.consistencyToken, ctx.deadlineMs);
      return leagues.standing(req, ctx.deadlineMs);
    },
    async getLeague(req, ctx) {
      if (!leagues) throw new LadderError(Code.UNIMPLEMENTED, "this router reads no leagues");
      check("board", boardProblem(req.board));
      return leagues.league(req, ctx.deadlineMs);
    },
    async getTeam(req, ctx) {
      if (!teams) throw new LadderError(Code.UNIMPLEMENTED, "this router reads no teams");
      check("board", boardProblem(req.board));
      if (req.consistencyToken !== "") await waitFor(req.consistencyToken, ctx.deadlineMs);
      return teams.get(req, ctx.deadlineMs);
    },
    async listPeriods(req) {
      check("board", boardProblem(req.board));
      return {
        periods: queries
          .periods(req.board)
          .map((p) => ({ id: p.id, startMs: BigInt(p.startMs), endMs: BigInt(p.endMs), expireAtMs: BigInt(p.expireAtMs) })),
      };
    },
  };
}

/** Which board of the name a read asks for: its view (checked like a board name), period and window. */
function where(req: { view: string; period: string; window: string }): Where {
  return { view: view(req.view), period: req.period, window: req.window };
}

/** A request's view name, checked like a board name ("" = the live boards). */
function view(name: string): string {
  if (name !== "") check("view", viewProblem(name));
  return name;
}

/** INVALID_ARGUMENT naming `field` (a path such as `boards[2].board`) when there is a problem; a problem that starts with the field's own name ("board is empty") is not prefixed twice. */
function check(field: string, problem: string | undefined): void {
  if (!problem) return;
  const name = field.replace(/^.*[.\]]/, "");
  throw invalidArgument(problem.startsWith(`${name} `) ? `${field}${problem.slice(name.length)}` : `${field}: ${problem}`);
}

/**
 * A page's response message, made and encoded once per page: the top cache (top-cache.ts) hands
 * the same Page to every caller of a hot page until it refreshes; the message is never changed.
 */
const topResponses = new WeakMap<Page, GetTopResponse>();
function topResponse(page: Page, cursors: () => { next: string; previous: string }): GetTopResponse {
  let res = topResponses.get(page);
  if (res === undefined) {
    const { next, previous } = cursors();
    topResponses.set(page, (res = topPageResponse(page.entries, page.total, next, previous)));
  }
  return res;
}

const RANK_MODES: Record<number, RankMode> = {
  [ProtoRankMode.UNSPECIFIED]: "unique",
  [ProtoRankMode.COMPETITION]: "competition",
  [ProtoRankMode.DENSE]: "dense",
};

function rankMode(m: ProtoRankMode): RankMode {
  const mode = RANK_MODES[m];
  if (!mode) throw invalidArgument(`rank_mode: must be UNSPECIFIED (0), COMPETITION (1) or DENSE (2), got ${m}`);
  return mode;
}
