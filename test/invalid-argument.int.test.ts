// Every INVALID_ARGUMENT through gRPC names the field and the rule or limit: one cluster (Kafka,
// Redis, shard nodes, router, ingest), a board with a few scores, then one row per bad request
// to IngestService, LeaderboardService and AdminService, each expected to answer INVALID_ARGUMENT
// with exactly the words of its row. Nothing a refused request sent may change anything: the
// log's end offsets, the board's entries and size, and the defined boards are the same after the rows as before.
// Past the end, GetEntryAtRank answers NOT_FOUND whatever the rank (2^63 - 1 included).
// The handlers' checks one by one, without a cluster: router/src/read/invalid-argument.test.ts.
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { startTestCluster, TEST_TOKENS, outcome, type TestCluster } from "./cluster-harness.js";

const BOARD = "words";
/** A defined board that keeps a histogram, for GetApproximateRank. */
const HISTOGRAM_BOARD = "words-histogram";
const PLAYERS = ["alice", "bob", "carol"];
const CHARACTERS = "A-Z a-z 0-9 _ - . :";

let cluster: TestCluster;
let admin: ClientOf<typeof AdminService>;

const good = { board: BOARD, playerId: "dave", op: Operation.SET, value: 5n };
const submit = (updates: unknown[], more: Record<string, unknown> = {}) =>
  cluster.ingest.submitScores({ updates: updates as never, ...more });

/** Everything a refused request could have changed: the log's end offsets, the board's entries and size, the definitions. */
async function state(): Promise<unknown> {
  const s = await admin.getClusterStatus({});
  const top = await cluster.router.getTop({ board: BOARD, limit: 100 });
  return {
    endOffsets: s.kafka!.endOffsets.map((o) => `${o.partition}:${o.offset}`),
    top: top.entries.map((e) => `${e.playerId}=${e.score}`),
    total: top.total,
    defined: (await admin.listBoards({})).boards.map((b) => b.name),
  };
}

/** A server stream's final status. */
function streamStatus(stream: grpc.ClientReadableStream<unknown>): Promise<{ code: number; details: string }> {
  return new Promise((resolve) => {
    stream.on("data", () => {});
    stream.on("error", () => {}); // the status carries it
    stream.on("status", (s: grpc.StatusObject) => resolve({ code: s.code, details: s.details }));
  });
}

type Row = [string, () => Promise<unknown>, string];
const ROWS: Row[] = [
  ["SubmitScores none", () => submit([]), "updates: must hold 1..1000 updates, got 0"],
  ["SubmitScores too many", () => submit(Array.from({ length: 1001 }, () => good)), "updates: must hold 1..1000 updates, got 1001"],
  [
    "SubmitScores report_ranks",
    () =>
      submit(
        Array.from({ length: 101 }, (_, i) => ({ ...good, playerId: `p${i}` })),
        { reportRanks: true },
      ),
    "report_ranks: takes batches of at most 100 updates (MAX_REPORTED), got 101",
  ],
  [
    "SubmitScores player_id",
    () => submit([good, { ...good, playerId: "" }]),
    "updates[1]: player_id is empty: it must be 1 to 128 bytes of UTF-8",
  ],
  ["SubmitScores board", () => submit([{ ...good, board: "a b" }]), `updates[0]: board may contain only ${CHARACTERS}, got "a b"`],
  ["SubmitScores value", () => submit([{ ...good, value: -1n }]), "updates[0]: value -1 is outside the board's range [0, 2147483647]"],
  ["SubmitScores event_id", () => submit([{ ...good, eventId: "e".repeat(129) }]), "updates[0]: event_id is 129 bytes long, more than 128"],
  [
    "SubmitScores also_boards",
    () => submit([{ ...good, alsoBoards: Array.from({ length: 9 }, (_, i) => `also-${i}`) }]),
    "updates[0].also_boards: must name at most 8 boards, got 9",
  ],
  ["DeletePlayer player_id", () => cluster.ingest.deletePlayer({ playerId: "" }), "player_id is empty: it must be 1 to 128 bytes of UTF-8"],
  ["GetTop limit", () => cluster.router.getTop({ board: BOARD, limit: 5000 }), "limit: must be 1..1000 (0: 10), got 5000"],
  [
    "GetTop depth",
    () => cluster.router.getTop({ board: BOARD, limit: 100, offset: 9950n }),
    "offset: offset + limit must be at most 10000, got 10050; page deeper with a page's next_cursor",
  ],
  ["GetTop board", () => cluster.router.getTop({ board: "x".repeat(65) }), "board is 65 characters long, more than 64"],
  ["GetTop view", () => cluster.router.getTop({ board: BOARD, view: "a*" }), `view may contain only ${CHARACTERS}, got "a*"`],
  [
    "GetTop consistency_token",
    () => cluster.router.getTop({ board: BOARD, consistencyToken: "not a token" }),
    "consistency_token: must be empty or a token a write answered, got a malformed one (not canonical base64url)",
  ],
  [
    "GetTop rank_mode",
    () => cluster.router.getTop({ board: BOARD, rankMode: 9 as never }),
    "rank_mode: must be UNSPECIFIED (0), COMPETITION (1) or DENSE (2), got 9",
  ],
  [
    "GetTop period",
    () => cluster.router.getTop({ board: BOARD, period: "2026-12-04" }),
    `period: board "${BOARD}" has no periods (it is all-time)`,
  ],
  [
    "GetAround radius",
    () => cluster.router.getAround({ board: BOARD, playerId: "alice", radius: 500 }),
    "radius: must be 1..100 (0: 5), got 500",
  ],
  ["GetRanks none", () => cluster.router.getRanks({ board: BOARD, playerIds: [] }), "player_ids: must name 1..1000 players, got 0"],
  [
    "GetRanks twice",
    () => cluster.router.getRanks({ board: BOARD, playerIds: ["alice", "alice"] }),
    'player_ids: must name each player once, got "alice" twice',
  ],
  ["GetStanding boards", () => cluster.router.getStanding({ playerId: "alice", boards: [] }), "boards: must name 1..16 boards, got 0"],
  [
    "GetEntryAtRank rank",
    () => cluster.router.getEntryAtRank({ board: BOARD, at: { case: "rank", value: 0n } }),
    "rank: must be 1 or more, got 0",
  ],
  [
    "GetEntryAtRank top_percent",
    () => cluster.router.getEntryAtRank({ board: BOARD, at: { case: "topPercent", value: 0 } }),
    "top_percent: must be above 0 and at most 100, got 0",
  ],
  ["GetEntryAtRank neither", () => cluster.router.getEntryAtRank({ board: BOARD }), "at: must be a rank or a top_percent, got neither"],
  [
    "GetApproximateRank score",
    () => cluster.router.getApproximateRank({ board: HISTOGRAM_BOARD, of: { case: "score", value: -5n } }),
    "score: must be within the board's range [0, 1000], got -5",
  ],
  [
    "CreateBoard points range",
    () => admin.createBoard({ board: { name: "bad-range", rules: { minPoints: 5n, maxPoints: 1n } } }),
    'board "bad-range": rules.min_points and rules.max_points must be integers with rules.min_points <= rules.max_points, got 5 and 1',
  ],
  [
    "CreateBoard max_metadata_bytes",
    () => admin.createBoard({ board: { name: "bad-metadata", maxMetadataBytes: 5000 } }),
    "max_metadata_bytes 5000 is above 4096 (MAX_METADATA_BYTES)",
  ],
  ["ListBoards prefix", () => admin.listBoards({ prefix: "*" }), `prefix may contain only ${CHARACTERS}, got "*"`],
  ["ListBoards long prefix", () => admin.listBoards({ prefix: "x".repeat(100_000) }), "prefix is 100000 characters long, more than 64"],
  [
    "RebuildShards as_of without a view",
    () => streamStatus(admin.rebuildShards({ asOfTimestampMs: 5n }) as never).then((s) => Promise.reject(s)),
    "audit_view: must be set with as_of_timestamp_ms or as_of_offsets (a rebuild as of a point makes a view), got none",
  ],
  [
    "WatchTop limit",
    () => streamStatus(cluster.router.watchTop({ board: BOARD, limit: 101 }) as never).then((s) => Promise.reject(s)),
    "limit: must be 1..100 (0: 10), got 101",
  ],
];

beforeAll(async () => {
  cluster = await startTestCluster("invalid-argument");
  admin = createClient(AdminService, cluster.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
  await admin.createBoard({ board: { name: HISTOGRAM_BOARD, rules: { maxPoints: 1000n, histogramBounds: [10n, 100n] } } });
  const res = await submit(PLAYERS.map((playerId, i) => ({ board: BOARD, playerId, op: Operation.SET, value: BigInt(100 * (i + 1)) })));
  await cluster.waitApplied(res.offsets);
}, 120_000);

afterAll(async () => {
  admin?.close();
  await cluster?.stop();
});

describe("invalid arguments through gRPC", () => {
  it("each bad request answers INVALID_ARGUMENT naming its field and the limit, and changes nothing", async () => {
    const before = await state();
    const answers = [];
    for (const [name, call] of ROWS) {
      const o = await outcome(call());
      answers.push({ name, ...("ok" in o ? { ok: true } : o) });
    }
    expect(answers).toEqual(ROWS.map(([name, , details]) => ({ name, code: grpc.status.INVALID_ARGUMENT, details })));
    expect(await state()).toEqual(before);
  }, 120_000);

  it("GetEntryAtRank past the board's end is NOT_FOUND whatever the rank", async () => {
    for (const rank of [4n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n]) {
      const o = await outcome(cluster.router.getEntryAtRank({ board: BOARD, at: { case: "rank", value: rank } }));
      expect({ rank, ...o }).toEqual({ rank, code: grpc.status.NOT_FOUND, details: `board "${BOARD}" holds fewer entries than that rank` });
    }
    const last = await cluster.router.getEntryAtRank({ board: BOARD, at: { case: "rank", value: 3n } });
    expect(last.entry!.playerId).toBe("alice");
  });
});
