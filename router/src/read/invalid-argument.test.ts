/**
 * Every INVALID_ARGUMENT the read handlers (leaderboard-service.ts) and the watch streams
 * (push/watch-streams.ts) answer before they read anything: each row sends one bad request and
 * expects the exact words, which name the proto field and the rule or limit, and the value given.
 * The queries behind the handlers throw if they are reached at all, so a row also shows that a
 * refused request read nothing. The answers that need a board's definition (a period, a score
 * outside its range) and the same refusals through gRPC are in test/invalid-argument.int.test.ts.
 */
import { describe, expect, it } from "vitest";
import { Code, LadderError } from "@ladder/model/errors";
import type { StreamContext } from "@ladder/platform/grpc-adapter";
import { CallerSlots } from "../push/caller-slots.js";
import { ResumeTokens } from "../push/resume-token.js";
import { watchStreams } from "../push/watch-streams.js";
import type { WatchHub } from "../push/watch-hub.js";
import { leaderboardService } from "./leaderboard-service.js";
import type { Queries } from "./queries.js";

/** Queries that fail the test when a handler reaches them. */
const unreachable = new Proxy({} as Queries, {
  get: (_, name) => {
    throw new Error(`a refused request reached the queries (${String(name)})`);
  },
});
const hub = new Proxy({} as WatchHub, {
  get: (_, name) => {
    throw new Error(`a refused request reached the watch hub (${String(name)})`);
  },
});
const reads = leaderboardService(unreachable, async () => {
  throw new Error("a refused request waited for its consistency token");
});
const watches = watchStreams(
  hub,
  unreachable,
  { bufferBytes: 1 << 18, stallMs: 10_000, slots: new CallerSlots(10), callerOf: () => "test" },
  new ResumeTokens("test-stream-secret-0123456789abcdef"),
);
const ctx = { deadlineMs: Date.now() + 60_000, signal: new AbortController().signal } as unknown as StreamContext;

type Call = () => Promise<unknown>;
/** A request with a decoded message's defaults ("" for strings, 0 for numbers) under `fields`. */
const req = (fields: Record<string, unknown>) =>
  ({
    view: "",
    period: "",
    window: "",
    consistencyToken: "",
    cursor: "",
    rankMode: 0,
    offset: 0n,
    limit: 0,
    radius: 0,
    ...fields,
  }) as never;
const B = "b";
const long = "x".repeat(65);

const ROWS: Array<[string, Call, string]> = [
  ["GetTop limit", () => reads.getTop(req({ board: B, limit: 5000 }), ctx), "limit: must be 1..1000 (0: 10), got 5000"],
  [
    "GetTop offset with a cursor",
    () => reads.getTop(req({ board: B, limit: 10, cursor: "c", offset: 3n, rankMode: 0 }), ctx),
    "offset: must be 0 with a cursor (the cursor says where the page starts), got 3",
  ],
  [
    "GetTop depth",
    () => reads.getTop(req({ board: B, limit: 100, offset: 9950n, cursor: "", rankMode: 0 }), ctx),
    "offset: offset + limit must be at most 10000, got 10050; page deeper with a page's next_cursor",
  ],
  [
    "GetTop rank_mode",
    () => reads.getTop(req({ board: B, limit: 1, cursor: "", offset: 0n, rankMode: 7 }), ctx),
    "rank_mode: must be UNSPECIFIED (0), COMPETITION (1) or DENSE (2), got 7",
  ],
  ["GetTop board empty", () => reads.getTop(req({ board: "" }), ctx), "board is empty: it must be 1 to 64 of A-Z a-z 0-9 _ - . :"],
  ["GetTop board long", () => reads.getTop(req({ board: long }), ctx), "board is 65 characters long, more than 64"],
  ["GetTop board characters", () => reads.getTop(req({ board: "a b" }), ctx), 'board may contain only A-Z a-z 0-9 _ - . :, got "a b"'],
  [
    "GetRank player_id",
    () => reads.getRank(req({ board: B, playerId: "" }), ctx),
    "player_id is empty: it must be 1 to 128 bytes of UTF-8",
  ],
  [
    "GetRank player_id long",
    () => reads.getRank(req({ board: B, playerId: "p".repeat(129) }), ctx),
    "player_id is 129 bytes long, more than 128",
  ],
  ["GetRanks none", () => reads.getRanks(req({ board: B, playerIds: [] }), ctx), "player_ids: must name 1..1000 players, got 0"],
  [
    "GetRanks too many",
    () => reads.getRanks(req({ board: B, playerIds: Array.from({ length: 1001 }, (_, i) => `p${i}`) }), ctx),
    "player_ids: must name 1..1000 players, got 1001",
  ],
  [
    "GetRanks one bad",
    () => reads.getRanks(req({ board: B, playerIds: ["a", ""] }), ctx),
    "player_ids[1]: player_id is empty: it must be 1 to 128 bytes of UTF-8",
  ],
  [
    "GetRanks twice",
    () => reads.getRanks(req({ board: B, playerIds: ["a", "b", "a"] }), ctx),
    'player_ids: must name each player once, got "a" twice',
  ],
  ["GetStanding none", () => reads.getStanding(req({ playerId: "p", boards: [] }), ctx), "boards: must name 1..16 boards, got 0"],
  [
    "GetStanding too many",
    () => reads.getStanding(req({ playerId: "p", boards: Array.from({ length: 17 }, () => ({ board: B })) }), ctx),
    "boards: must name 1..16 boards, got 17",
  ],
  [
    "GetStanding a bad board",
    () => reads.getStanding(req({ playerId: "p", boards: [{ board: B }, { board: "" }] }), ctx),
    "boards[1].board is empty: it must be 1 to 64 of A-Z a-z 0-9 _ - . :",
  ],
  [
    "GetEntryAtRank rank 0",
    () => reads.getEntryAtRank(req({ board: B, at: { case: "rank", value: 0n } }), ctx),
    "rank: must be 1 or more, got 0",
  ],
  [
    "GetEntryAtRank top_percent",
    () => reads.getEntryAtRank(req({ board: B, at: { case: "topPercent", value: 150 } }), ctx),
    "top_percent: must be above 0 and at most 100, got 150",
  ],
  [
    "GetEntryAtRank neither",
    () => reads.getEntryAtRank(req({ board: B, at: { case: undefined } }), ctx),
    "at: must be a rank or a top_percent, got neither",
  ],
  [
    "GetApproximateRank neither",
    () => reads.getApproximateRank(req({ board: B, of: { case: undefined } }), ctx),
    "of: must be a score or a player_id, got neither",
  ],
  ["GetAround radius", () => reads.getAround(req({ board: B, playerId: "p", radius: 101 }), ctx), "radius: must be 1..100 (0: 5), got 101"],
  [
    "WatchTop limit",
    () => watches.watchTop({ board: B, limit: 1001 } as never, () => undefined as never, ctx),
    "limit: must be 1..100 (0: 10), got 1001",
  ],
  [
    "WatchPlayer top_k",
    () => watches.watchPlayer({ board: B, playerId: "p", topK: 100_000 } as never, () => undefined as never, ctx),
    "top_k: must be 0..10000, got 100000",
  ],
  [
    "WatchTop interval_ms",
    () => watches.watchTop({ board: B, limit: 10, intervalMs: 1 } as never, () => undefined as never, ctx),
    "interval_ms: must be 50..60000 (0: 250), got 1",
  ],
];

describe("router > invalid arguments", () => {
  it.each(ROWS)("%s: names the field and the limit, and reads nothing", async (_, call, words) => {
    const err = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LadderError);
    expect({ code: (err as LadderError).code, message: (err as Error).message }).toEqual({ code: Code.INVALID_ARGUMENT, message: words });
  });
});
