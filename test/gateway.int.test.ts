// The browser gateway (gateway/) on the real processes: a test cluster whose reads need a token
// (LADDER_READS=token), and two gateway processes in front of its router — an open one (CORS for
// one origin, generous limits, its own admin token) and a strict one (1 request a second, a burst
// of 5, one stream per client, no admin token, behind a "proxy": clients told apart by
// X-Forwarded-For). Checked:
//   - every JSON endpoint's body equals the router's gRPC answer to the same question, in proto3 JSON
//     (top by offset and by cursor, rank, around, periods, histogram, standing; the board list and the
//     shards' status as their documented projections);
//   - bad input and refusals: the right HTTP status and {error: {code, message}} body, from the gateway
//     (unknown or malformed parameters, no endpoint, a write method) and from the router (no token, a bad
//     token, a missing player, a limit out of range, a board without histogram), 503 without an admin token;
//   - the player id policy alike at ingest, the router and the gateway (look-alike ids refused, naming
//     the field and the rule; invalid percent-encoded UTF-8 in a parameter 400 naming it);
//   - limits: 429 RESOURCE_EXHAUSTED with Retry-After past the burst, and past the open streams;
//   - CORS: the allowed origin's headers, none for another origin, preflights;
//   - Server-Sent Events: a score submitted through ingest arrives on watch/top and watch/player equal to
//     GetTop and GetRank, and a stream resumed with Last-Event-ID continues the sequence.
//   - reads while players move: two readers check every top page, rank and neighbourhood the gateway
//     answers (no player twice, consecutive ranks within the total, scores in order, statics at their
//     scores) while a writer moves players through ingest.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toJson, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { rootLogger } from "@ladder/platform/logger";
import { startGatewayService, type GatewayService } from "@ladder/deploy/gateway-service";
import { AdminService, BoardDefinitionSchema, ShardStatusSchema } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, PeriodKind, WindowCombine } from "@ladder/proto/leaderboard/v1/common_pb";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { startTestCluster, TEST_TOKENS, untilIngestKnows, type TestCluster } from "./cluster-harness.js";
import { EventStream, getJson, http, type HttpAnswer } from "./http-client.js";

const M = LeaderboardService.method;
const ORIGIN = "https://game.example";
const READ = { Authorization: `Bearer ${TEST_TOKENS.read}` };
const PLAYERS = 40;
const now = Date.now();
const log = rootLogger({ level: "fatal", name: "test-gateway" });
const proto3 = <D extends DescMessage>(schema: D, m: MessageShape<D>) =>
  toJson(schema, m, { alwaysEmitImplicit: true }) as Record<string, any>;

let c: TestCluster;
let admin: ClientOf<typeof AdminService>;
let open: GatewayService;
let strict: GatewayService;
const api = (path: string) => `${open.url}api/${path}`;

beforeAll(async () => {
  c = await startTestCluster("gateway", { settings: { LADDER_READS: "token" } });
  admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
  await admin.createBoard({
    board: {
      name: "arena",
      defaultOp: Operation.SET,
      rules: { maxPoints: 10_000n, resolutionMs: 1000, histogramBounds: [100n, 500n, 1000n] },
    },
  });
  await admin.createBoard({
    board: {
      name: "daily",
      defaultOp: Operation.INCREMENT,
      rules: {
        maxPoints: 10_000n,
        period: PeriodKind.DAILY,
        keepPeriods: 2,
        windows: [{ name: "3d", periods: 3, combine: WindowCombine.SUM }],
      },
    },
  });
  const updates = Array.from({ length: PLAYERS }, (_, i) => [
    { board: "arena", playerId: `p${i}`, value: BigInt((i * 37) % 1200), timestampMs: BigInt(now - 60_000 + i) },
    { board: "daily", playerId: `p${i}`, value: BigInt(1 + (i % 7)), timestampMs: BigInt(now) },
    { board: "plain", playerId: `p${i}`, op: Operation.SET, value: BigInt(i), timestampMs: BigInt(now) },
  ]).flat();
  const res = await c.ingest.submitScores({ updates });
  await c.waitApplied(res.offsets);
  // a league and a team board over "arena" (docs/leagues.md, docs/teams.md)
  await admin.createBoard({
    board: {
      name: "ladder",
      defaultOp: Operation.INCREMENT,
      rules: { period: PeriodKind.WEEKLY, keepPeriods: 1, league: { cohortSize: 5 } },
    },
  });
  await admin.createBoard({ board: { name: "guilds", rules: { maxPoints: 1_000_000n, team: { source: "arena" } } } });
  await untilIngestKnows(c, "ladder");
  for (const i of [1, 2, 3, 4, 5, 6]) await c.ingest.setTeam({ board: "guilds", playerId: `p${i}`, teamId: `g${i % 2}` });
  const league = await c.ingest.submitScores({
    updates: [1, 2, 3, 4, 5, 6].map((i) => ({ board: "ladder", playerId: `p${i}`, value: BigInt(i * 10) })),
  });
  await c.waitApplied(league.offsets);
  for (const from = Date.now(); (await c.router.getTeam({ board: "guilds", teamId: "g1" })).members.length < 3; ) {
    if (Date.now() - from > 60_000) throw new Error("the team deriver did not carry guilds' members within 60 s");
    await new Promise((r) => setTimeout(r, 200));
  }
  const base = { routerAddress: c.services.routerAddress, baseEnv: { ...process.env, ...c.services.env }, log };
  [open, strict] = await Promise.all([
    startGatewayService({
      ...base,
      listen: "127.0.0.1:0",
      monitorToken: TEST_TOKENS.monitor,
      settings: { LADDER_GATEWAY_CORS_ORIGINS: ORIGIN, LADDER_GATEWAY_RATE: "1000", LADDER_GATEWAY_BURST: "1000" },
    }),
    startGatewayService({
      ...base,
      listen: "127.0.0.1:0",
      settings: { LADDER_GATEWAY_RATE: "1", LADDER_GATEWAY_BURST: "5", LADDER_GATEWAY_STREAMS: "1", LADDER_GATEWAY_TRUST_PROXY: "1" },
    }),
  ]);
}, 180_000);
afterAll(async () => {
  await Promise.all([open?.stop(), strict?.stop()]);
  admin?.close();
  await c?.stop();
});

const errorOf = (a: HttpAnswer) => [a.status, (a.body as { error: { code: string } }).error.code];

describe("gateway: JSON reads", () => {
  it("answers each read as the router's gRPC answer to the same question, in proto3 JSON", async () => {
    const top = await c.router.getTop({ board: "arena", limit: 7, offset: 3n });
    expect(await getJson(api("boards/arena/top?limit=7&offset=3"), READ)).toEqual(proto3(M.getTop.output, top));
    const next = await c.router.getTop({ board: "arena", limit: 7, cursor: top.nextCursor });
    expect(await getJson(api(`boards/arena/top?limit=7&cursor=${encodeURIComponent(top.nextCursor)}`), READ)).toEqual(
      proto3(M.getTop.output, next),
    );
    const dense = await c.router.getTop({ board: "arena", limit: 5, rankMode: 2 });
    expect(await getJson(api("boards/arena/top?limit=5&rank_mode=dense"), READ)).toEqual(proto3(M.getTop.output, dense));
    expect(await getJson(api("boards/arena/rank?player=p17"), READ)).toEqual(
      proto3(M.getRank.output, await c.router.getRank({ board: "arena", playerId: "p17" })),
    );
    expect(await getJson(api("boards/arena/around?player=p17&radius=3"), READ)).toEqual(
      proto3(M.getAround.output, await c.router.getAround({ board: "arena", playerId: "p17", radius: 3 })),
    );
    expect(await getJson(api("boards/daily/periods"), READ)).toEqual(
      proto3(M.listPeriods.output, await c.router.listPeriods({ board: "daily" })),
    );
    const week = await c.router.getTop({ board: "daily", window: "3d", limit: 5 });
    expect(await getJson(api("boards/daily/top?window=3d&limit=5"), READ)).toEqual(proto3(M.getTop.output, week));
    const boards = [
      { board: "arena", period: "", window: "" },
      { board: "daily", period: "", window: "3d" },
      { board: "plain", period: "", window: "" },
    ];
    const standing = await c.router.getStanding({ playerId: "p3", boards });
    expect(await getJson(api("standing?player=p3&boards=arena,daily~3d,plain"), READ)).toEqual(proto3(M.getStanding.output, standing));
    expect(await getJson(api("boards/ladder/league?player=p3"), READ)).toEqual(
      proto3(M.getLeagueStanding.output, await c.router.getLeagueStanding({ board: "ladder", playerId: "p3" })),
    );
    expect(await getJson(api(`boards/ladder/top?period=${encodeURIComponent("/t0c1")}`), READ)).toEqual(
      proto3(M.getTop.output, await c.router.getTop({ board: "ladder", period: "/t0c1" })),
    );
    const team = await c.router.getTeam({ board: "guilds", teamId: "g1" });
    expect(team.members.map((m) => m.playerId).sort()).toEqual(["p1", "p3", "p5"]);
    expect(await getJson(api("boards/guilds/team?team=g1"), READ)).toEqual(proto3(M.getTeam.output, team));
    const histogram = proto3(M.getHistogram.output, await c.router.getHistogram({ board: "arena" })) as Record<string, unknown>;
    const viaGateway = (await getJson(api("boards/arena/histogram"), READ)) as Record<string, unknown>;
    expect({ ...viaGateway, readAtMs: undefined }).toEqual({ ...histogram, readAtMs: undefined }); // read_at_ms: the router's cache of it, up to 1 s
  });

  it("lists the defined boards and the shards' readiness, lag and size: projections of the admin answers", async () => {
    const list = await admin.listBoards({});
    const pick = (o: unknown, keys: string[]) => Object.fromEntries(keys.map((k) => [k, (o as Record<string, unknown>)[k]]));
    await getJson(api("boards/plain/top"), READ); // a board without a definition, read through this gateway
    const boards = (await getJson(api("boards"), READ)) as { boards: unknown[]; recent: { name: string; lastReadMs: string }[] };
    expect(Object.keys(boards).sort()).toEqual(["boards", "recent"]);
    expect(boards.boards).toEqual(list.boards.map((b) => pick(proto3(BoardDefinitionSchema, b), ["name", "rules", "createdAtMs"])));
    // boards read lately without a definition: "plain" (last read first), never a defined one
    expect(boards.recent[0]).toEqual({ name: "plain", lastReadMs: expect.stringMatching(/^\d+$/) });
    expect(boards.recent.filter((r) => list.boards.some((b) => b.name === r.name))).toEqual([]);
    const status = (await getJson(api("status"), READ)) as { observedAtMs: string; shards: Record<string, unknown>[] };
    const direct = await admin.getClusterStatus({});
    const steady = ["shardId", "readiness", "lagRecords", "heartbeatTtlMs", "keys"];
    expect(status.shards.map((s) => pick(s, steady))).toEqual(direct.shards.map((s) => pick(proto3(ShardStatusSchema, s), steady)));
    expect(status.shards.map((s) => Object.keys(s).sort())).toEqual(
      direct.shards.map(() => ["heartbeatAgeMs", "heartbeatTtlMs", "keys", "lagRecords", "readiness", "shardId", "usedMemoryBytes"]),
    );
    expect(status.shards.every((s) => s.readiness === "SHARD_READINESS_SERVING" && Number(s.usedMemoryBytes) > 0)).toBe(true);
  });

  it("refuses bad input and unauthorised reads with the right status and a JSON error", async () => {
    const get = (path: string, headers: Record<string, string> = READ) => http(api(path), { headers });
    expect(errorOf(await get("boards/arena/top", {}))).toEqual([401, "UNAUTHENTICATED"]); // LADDER_READS=token: the router decides
    expect(errorOf(await get("boards/arena/top", { Authorization: "Bearer not-a-known-token-at-all" }))).toEqual([401, "UNAUTHENTICATED"]);
    expect(errorOf(await get("boards", {}))).toEqual([401, "UNAUTHENTICATED"]); // the admin-backed answers too
    expect(errorOf(await get("status", { Authorization: "Basic dTpw" }))).toEqual([401, "UNAUTHENTICATED"]);
    expect((await get(`boards/arena/top?limit=1&access_token=${TEST_TOKENS.read}`, {})).status).toBe(200); // EventSource's way
    expect(errorOf(await get("boards/arena/rank"))).toEqual([400, "INVALID_ARGUMENT"]);
    expect(errorOf(await get("boards/arena/top?limit=abc"))).toEqual([400, "INVALID_ARGUMENT"]);
    expect(errorOf(await get("boards/arena/top?limt=5"))).toEqual([400, "INVALID_ARGUMENT"]);
    expect(errorOf(await get("boards/arena/top?limit=5000"))).toEqual([400, "INVALID_ARGUMENT"]); // the router's limit
    expect(errorOf(await get("boards/bad%20name/top"))).toEqual([400, "INVALID_ARGUMENT"]);
    expect(errorOf(await get("boards/bad%E0%A4%A/top"))).toEqual([400, "INVALID_ARGUMENT"]); // not even an escape
    expect(errorOf(await get("boards/plain/histogram"))).toEqual([400, "FAILED_PRECONDITION"]);
    const missing = await get("boards/arena/rank?player=nobody");
    expect(missing).toMatchObject({
      status: 404,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: { error: { code: "NOT_FOUND" } },
    });
    expect((missing.body as { error: { message: string } }).error.message).toMatch(/nobody/);
    expect(errorOf(await get("boards/arena/nothing"))).toEqual([404, "NOT_FOUND"]);
    const write = await http(api("boards/arena/top"), { method: "POST", headers: READ });
    expect([...errorOf(write), write.headers.allow]).toEqual([405, "UNIMPLEMENTED", "GET, OPTIONS"]);
    expect(errorOf(await http(`${strict.url}api/status`, { headers: READ }))).toEqual([503, "UNAVAILABLE"]); // no admin token
  });

  it("holds player ids to one policy at ingest, the router and the gateway: invisible characters and bare whitespace refused, naming the field", async () => {
    const lookAlikes = ["\u200b", "a\ufeffb", "a\u2028b", " ", "a\u200db", "\u202eab", " p1", "p1\u00a0"];
    for (const playerId of lookAlikes) {
      const at = await c.ingest
        .submitScores({ updates: [{ board: "arena", playerId, value: 5n }] })
        .catch((e: { code: number; details: string }) => e);
      expect(at, JSON.stringify(playerId)).toMatchObject({
        code: 3,
        details: expect.stringMatching(/^updates\[0\]: player_id (contains U\+|is only whitespace|starts or ends)/),
      });
      const erase = await c.ingest.deletePlayer({ playerId }).catch((e: { code: number; details: string }) => e);
      expect(erase).toMatchObject({
        code: 3,
        details: expect.stringMatching(/^player_id (contains U\+|is only whitespace|starts or ends)/),
      });
      const read = await c.router.getRank({ board: "arena", playerId }).catch((e: { code: number; details: string }) => e);
      expect(read).toMatchObject({
        code: 3,
        details: expect.stringMatching(/^player_id (contains U\+|is only whitespace|starts or ends)/),
      });
      const answer = await http(api(`boards/arena/rank?player=${encodeURIComponent(playerId)}`), { headers: READ });
      expect(answer).toMatchObject({
        status: 400,
        body: { error: { code: "INVALID_ARGUMENT", message: expect.stringMatching(/^parameter "player": player_id /) } },
      });
    }
    const watch = await http(api("boards/arena/watch/player?player=%E2%80%8B"), { headers: READ });
    expect(watch).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringMatching(/^parameter "player": player_id contains U\+200B/) } },
    });
    for (const q of ["player=%ff%fe", "player=p1%c3", "player=%ED%A0%80"])
      expect(await http(api(`boards/arena/rank?${q}`), { headers: READ })).toMatchObject({
        status: 400,
        body: { error: { code: "INVALID_ARGUMENT", message: 'parameter "player" is not valid percent-encoded UTF-8' } },
      });
    // an id with a space inside and one of other scripts are ids like any other, end to end
    const res = await c.ingest.submitScores({
      updates: [
        { board: "plain", playerId: "Ann Lee", op: Operation.SET, value: 3n, timestampMs: BigInt(now) },
        { board: "plain", playerId: "田中", op: Operation.SET, value: 4n, timestampMs: BigInt(now) },
      ],
    });
    await c.waitApplied(res.offsets);
    for (const id of ["Ann Lee", "田中"])
      expect(await getJson(api(`boards/plain/rank?player=${encodeURIComponent(id)}`), READ)).toEqual(
        proto3(M.getRank.output, await c.router.getRank({ board: "plain", playerId: id })),
      );
  });

  it("limits each client: 429 with Retry-After past its burst, and past its open streams", async () => {
    const as = (client: string) => ({ ...READ, "X-Forwarded-For": `203.0.113.7, ${client}` }); // the proxy's own entry is the last
    const answers: HttpAnswer[] = [];
    for (let i = 0; i < 25 && !answers.some((a) => a.status === 429); i++)
      answers.push(await http(`${strict.url}api/boards/arena/top?limit=1`, { headers: as("192.0.2.1") }));
    expect(answers.slice(0, 5).map((a) => a.status)).toEqual([200, 200, 200, 200, 200]); // the burst
    const limited = answers.at(-1)!;
    expect(errorOf(limited)).toEqual([429, "RESOURCE_EXHAUSTED"]);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect((await http(`${strict.url}api/boards/arena/top?limit=1`, { headers: as("192.0.2.2") })).status).toBe(200); // another client
    const first = await EventStream.open(`${strict.url}api/boards/arena/watch/top?limit=3`, as("192.0.2.3"));
    expect(first).toBeInstanceOf(EventStream);
    const second = (await EventStream.open(`${strict.url}api/boards/arena/watch/top?limit=3`, as("192.0.2.3"))) as HttpAnswer;
    (first as EventStream).close();
    expect(errorOf(second)).toEqual([429, "RESOURCE_EXHAUSTED"]);
    expect((second.body as { error: { message: string } }).error.message).toMatch(/1 open streams per client/);
  });

  it("sends CORS headers to the allowed origin only, and answers its preflights", async () => {
    const from = (origin: string) => http(api("boards/arena/top?limit=1"), { headers: { ...READ, Origin: origin } });
    expect((await from(ORIGIN)).headers).toMatchObject({
      "access-control-allow-origin": ORIGIN,
      vary: "Origin",
      "access-control-expose-headers": "Retry-After",
    });
    expect((await from("https://evil.example")).headers["access-control-allow-origin"]).toBeUndefined();
    const preflight = (origin: string) =>
      http(api("boards/arena/top"), {
        method: "OPTIONS",
        headers: { Origin: origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
      });
    const ok = await preflight(ORIGIN);
    expect(ok.status).toBe(204);
    expect(ok.headers).toMatchObject({
      "access-control-allow-origin": ORIGIN,
      "access-control-allow-methods": "GET",
      "access-control-allow-headers": "Authorization, Last-Event-ID",
    });
    expect((await preflight("https://evil.example")).status).toBe(403);
  });
});

describe("gateway: live push (Server-Sent Events)", () => {
  it("pushes a submitted score on watch/top and watch/player, equal to GetTop and GetRank", async () => {
    const top = (await EventStream.open(api(`boards/arena/watch/top?limit=5&access_token=${TEST_TOKENS.read}`))) as EventStream;
    const player = (await EventStream.open(api("boards/arena/watch/player?player=p5&top_k=3"), READ)) as EventStream;
    try {
      expect(top.res.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
      const first = await top.next(20_000);
      const { entries, total } = proto3(M.getTop.output, await c.router.getTop({ board: "arena", limit: 5 }));
      expect(first).toMatchObject({ event: "top", data: { entries, total, sequence: "1", readAtMs: expect.any(String) } });
      const firstOfPlayer = await player.next(20_000);
      expect(firstOfPlayer.data).toMatchObject({
        entry: proto3(M.getRank.output, await c.router.getRank({ board: "arena", playerId: "p5" })).entry!,
        sequence: "1",
      });
      const res = await c.ingest.submitScores({
        updates: [{ board: "arena", playerId: "p5", value: 9_999n, timestampMs: BigInt(Date.now()) }],
      });
      await c.waitApplied(res.offsets);
      const moved = await top.until((e) => (e.data as { entries: { playerId: string }[] }).entries[0]?.playerId === "p5", 20_000);
      expect(moved.data).toMatchObject({ entries: proto3(M.getTop.output, await c.router.getTop({ board: "arena", limit: 5 })).entries });
      expect(moved.id).toBe((moved.data as { resumeToken: string }).resumeToken);
      const climbed = await player.until((e) => (e.data as { entry?: { rank: string } }).entry?.rank === "1", 20_000);
      expect(climbed.data).toMatchObject({
        entry: { playerId: "p5", score: "9999", rank: "1" },
        events: expect.arrayContaining([expect.objectContaining({ kind: "KIND_ENTERED_TOP" })]),
      });
    } finally {
      top.close();
      player.close();
    }
  });

  it("continues a stream's sequence when it is resumed with Last-Event-ID; refuses a forged one and bad parameters before any event", async () => {
    const url = api("boards/arena/watch/top?limit=3");
    const before = (await EventStream.open(url, READ)) as EventStream;
    const seen = await before.next(20_000);
    before.close();
    const res = await c.ingest.submitScores({
      updates: [{ board: "arena", playerId: "resumed", value: 10_000n, timestampMs: BigInt(Date.now()) }],
    });
    await c.waitApplied(res.offsets);
    const after = (await EventStream.open(url, { ...READ, "Last-Event-ID": seen.id })) as EventStream;
    try {
      const next = await after.next(20_000);
      expect(BigInt((next.data as { sequence: string }).sequence)).toBe(BigInt((seen.data as { sequence: string }).sequence) + 1n);
      expect(next.data).toMatchObject({ entries: proto3(M.getTop.output, await c.router.getTop({ board: "arena", limit: 3 })).entries });
    } finally {
      after.close();
    }
    expect(errorOf((await EventStream.open(url, { ...READ, "Last-Event-ID": "forged" })) as HttpAnswer)).toEqual([400, "INVALID_ARGUMENT"]);
    expect(errorOf((await EventStream.open(api("boards/arena/watch/top?limit=500"), READ)) as HttpAnswer)).toEqual([
      400,
      "INVALID_ARGUMENT",
    ]);
    expect(errorOf((await EventStream.open(api("boards/arena/watch/player"), READ)) as HttpAnswer)).toEqual([400, "INVALID_ARGUMENT"]);
    expect(errorOf((await EventStream.open(api("boards/arena/watch/top"), {})) as HttpAnswer)).toEqual([401, "UNAUTHENTICATED"]);
  });
});

describe("gateway: reads while scores change", () => {
  it("every top page, rank and neighbourhood read through the gateway is whole while players move: no player twice, consecutive ranks within the total, statics where they are", async () => {
    const board = "gmotion";
    const statics = Array.from({ length: 50 }, (_, i) => ({ playerId: `gs${i}`, value: (i * 7) % 300 }));
    const movers = Array.from({ length: 15 }, (_, i) => `gm${i}`);
    let seed = 11;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const set = (playerId: string, value: number) => ({
      board,
      playerId,
      op: Operation.SET,
      value: BigInt(value),
      timestampMs: BigInt(Date.now()),
    });
    const first = await c.ingest.submitScores({
      updates: [...statics.map((s) => set(s.playerId, s.value)), ...movers.map((m) => set(m, rand(300)))],
    });
    await c.waitApplied(first.offsets);
    const total = statics.length + movers.length;
    const staticAt = new Map(statics.map((s) => [s.playerId, s.value]));
    type Row = { playerId: string; score: string; rank: string };
    const problems: string[] = [];
    const checkRun = (what: string, rows: Row[], tot: string, firstRank?: number) => {
      if (Number(tot) !== total) problems.push(`${what}: total ${tot}, not ${total}`);
      if (new Set(rows.map((r) => r.playerId)).size !== rows.length) problems.push(`${what}: a player twice`);
      rows.forEach((r, i) => {
        const rank = Number(r.rank);
        if (rank < 1 || rank > total) problems.push(`${what}: rank ${rank} outside 1..${total}`);
        if (i === 0 && firstRank !== undefined && rank !== firstRank) problems.push(`${what}: starts at rank ${rank}, not ${firstRank}`);
        if (i > 0 && rank !== Number(rows[i - 1]!.rank) + 1) problems.push(`${what}: rank ${rank} after ${rows[i - 1]!.rank}`);
        if (i > 0 && Number(r.score) > Number(rows[i - 1]!.score)) problems.push(`${what}: ${r.playerId} (${r.score}) below a lower score`);
        const s = staticAt.get(r.playerId);
        if (s !== undefined && Number(r.score) !== s) problems.push(`${what}: static ${r.playerId} at ${r.score}, not ${s}`);
      });
    };
    let stop = false;
    let answers = 0;
    const reader = async () => {
      while (!stop) {
        const offset = rand(40);
        const top = (await getJson(api(`boards/${board}/top?limit=20&offset=${offset}`), READ)) as { entries: Row[]; total: string };
        checkRun(`top@${offset}`, top.entries, top.total, offset + 1);
        const who = rand(2) === 0 ? movers[rand(movers.length)]! : statics[rand(statics.length)]!.playerId;
        const rank = (await getJson(api(`boards/${board}/rank?player=${who}`), READ)) as { entry: Row; total: string };
        checkRun(`rank ${who}`, [rank.entry], rank.total);
        if (rank.entry.playerId !== who) problems.push(`rank ${who}: answered for ${rank.entry.playerId}`);
        const around = (await getJson(api(`boards/${board}/around?player=${who}&radius=4`), READ)) as { entries: Row[]; total: string };
        checkRun(`around ${who}`, around.entries, around.total);
        if (!around.entries.some((e) => e.playerId === who)) problems.push(`around ${who}: the player is not in its own neighbourhood`);
        answers += 3;
      }
    };
    const readers = [reader(), reader()];
    for (let round = 0; round < 40 || (answers < 60 && round < 400); round++) {
      const res = await c.ingest.submitScores({ updates: movers.filter(() => rand(2) === 0).map((m) => set(m, rand(300))) });
      if (round % 10 === 0) await c.waitApplied(res.offsets);
      await new Promise((r) => setTimeout(r, 25));
    }
    stop = true;
    await Promise.all(readers);
    expect(problems.slice(0, 5)).toEqual([]);
    expect(answers).toBeGreaterThanOrEqual(60);
  });
});
