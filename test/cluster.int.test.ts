// The whole data path on real processes: gRPC ingest -> Kafka -> 3 shard nodes -> Redis -> router,
// checked against a brute-force oracle of every acknowledged update, with many ties.
import * as grpc from "@grpc/grpc-js";
import { status } from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@ladder/platform/config";
import { Operation, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { createClient } from "@ladder/client/grpc-stub";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { startTestCluster, TEST_HEARTBEAT_TTL_MS, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";
import { Oracle, plainEntry as plain, type OracleEntry, type OracleUpdate } from "./oracle.js";

const BOARD = "season";
const PLAYERS = 3000;
const boards = loadConfig({}).boards;
let cluster: TestCluster;
const oracle = new Oracle((b) => boards.forBoard(b));
const written: PartitionOffset[] = [];

// Deterministic pseudo-random numbers, so a failure can be replayed.
let seed = 20261130;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;

/** Updates with many ties: scores from a narrow range, times from a few one-minute units. */
function randomUpdates(n: number, base: number): OracleUpdate[] {
  const minutes = [0, 1, 2, 3].map((m) => base + m * 60_000);
  return Array.from({ length: n }, () => {
    const op = pick([Operation.SET, Operation.SET, Operation.INCREMENT, Operation.BEST]);
    const value = op === Operation.INCREMENT ? Math.floor(rand() * 7) - 2 : Math.floor(rand() * 40);
    return {
      board: BOARD,
      playerId: `p-${Math.floor(rand() * PLAYERS)}`,
      op,
      value,
      timestampMs: pick(minutes) + Math.floor(rand() * 60_000),
    };
  });
}

async function submit(updates: OracleUpdate[]): Promise<void> {
  for (let i = 0; i < updates.length; i += 500) {
    const batch = updates.slice(i, i + 500);
    const res = await cluster.ingest.submitScores({
      updates: batch.map((u) => ({ ...u, value: BigInt(u.value), timestampMs: BigInt(u.timestampMs) })),
    });
    expect(res.accepted).toBe(batch.length);
    written.push(...res.offsets);
    batch.forEach((u) => oracle.apply(u)); // acknowledged: now part of the truth
  }
}

const grpcCode = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: { code: number }) => e.code,
  );

async function expectMatchesOracle(): Promise<void> {
  const expected = oracle.sorted(BOARD);
  const byId = new Map(expected.map((e) => [e.playerId, e]));
  // every page of the board from the top
  const seen: OracleEntry[] = [];
  for (let offset = 0; offset < expected.length; offset += 250) {
    const page = await cluster.router.getTop({ board: BOARD, offset: BigInt(offset), limit: 250 });
    expect(Number(page.total)).toBe(expected.length);
    seen.push(...page.entries.map(plain));
  }
  expect(seen).toEqual(expected);
  // every player's rank
  const ids = [...byId.keys()];
  for (let i = 0; i < ids.length; i += 100) {
    const answers = await Promise.all(ids.slice(i, i + 100).map((playerId) => cluster.router.getRank({ board: BOARD, playerId })));
    for (const a of answers) {
      expect(plain(a.entry!)).toEqual(byId.get(a.entry!.playerId));
      expect(Number(a.total)).toBe(expected.length);
    }
  }
  // windows around players, including both ends of the board
  const sample = [expected[0]!, expected[1]!, expected.at(-1)!, expected.at(-2)!, ...expected.filter((_, i) => i % 23 === 0)];
  for (const [i, centre] of sample.entries()) {
    const radius = [1, 5, 17, 100][i % 4]!;
    const res = await cluster.router.getAround({ board: BOARD, playerId: centre.playerId, radius });
    const at = centre.rank - 1;
    expect(res.entries.map(plain)).toEqual(expected.slice(Math.max(0, at - radius), at + radius + 1));
  }
}

beforeAll(async () => {
  cluster = await startTestCluster("e2e");
}, 120_000);
afterAll(() => cluster?.stop());

describe("cluster > end to end", () => {
  it("answers top, rank and around exactly like a brute-force oracle, ties included", async () => {
    await submit(randomUpdates(9000, Date.now() - 3_600_000));
    await cluster.waitApplied(written);
    expect(oracle.sorted(BOARD).length).toBeGreaterThan(2500);
    await expectMatchesOracle();
  });

  it("rejects a batch with one bad update with INVALID_ARGUMENT and writes nothing of it", async () => {
    const good = { board: "bad-input", playerId: "ok", op: Operation.SET, value: 5n };
    const cases: Array<[unknown[], RegExp]> = [
      [[good, { ...good, playerId: "" }, good], /updates\[1\]: player_id is empty/],
      [[good, good, { ...good, op: Operation.UNSPECIFIED }], /updates\[2\]: op 0 is not a valid operation/],
      [[{ ...good, value: -1n }], /updates\[0\]: value -1 is outside/],
      [[{ ...good, board: "no spaces" }], /updates\[0\]: board may contain only/],
      [[{ ...good, timestampMs: BigInt(Date.now() + 86_400_000) }], /future/],
      [[], /^updates: must hold 1\.\.1000 updates, got 0$/],
      [Array.from({ length: 1001 }, () => good), /^updates: must hold 1\.\.1000 updates, got 1001$/],
    ];
    for (const [updates, message] of cases) {
      const err = await cluster.ingest.submitScores({ updates: updates as never }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringMatching(message) });
    }
    await cluster.waitApplied(written);
    expect(await grpcCode(cluster.router.getTop({ board: "bad-input" }).then((r) => expect(r.entries).toEqual([])))).toBe("ok");
  });

  it("refuses writes without a write token, writing nothing", async () => {
    const update = { board: "auth", playerId: "mallory", op: Operation.SET, value: 1_000_000n };
    const attempts: Array<[string | undefined, number]> = [
      [undefined, status.UNAUTHENTICATED],
      ["not-a-token-at-all-xxxxxxxx", status.UNAUTHENTICATED],
      // ingest holds the writers' tokens alone: the cluster's others are unknown there
      [TEST_TOKENS.read, status.UNAUTHENTICATED],
      [TEST_TOKENS.admin, status.UNAUTHENTICATED],
      [TEST_TOKENS.monitor, status.UNAUTHENTICATED],
    ];
    for (const [token, code] of attempts) {
      const client = createClient(IngestService, cluster.services.ingestAddress, undefined, {}, token);
      expect(await grpcCode(client.submitScores({ updates: [update] }))).toBe(code);
      client.close();
    }
    const ok = await cluster.ingest.submitScores({ updates: [{ ...update, playerId: "gs-player", value: 3n }] });
    await cluster.waitApplied(ok.offsets);
    const top = await cluster.router.getTop({ board: "auth" });
    expect(top.entries.map((e) => e.playerId)).toEqual(["gs-player"]);
  });

  it("reads its own writes with the consistency token", async () => {
    for (let i = 1; i <= 20; i++) {
      const res = await cluster.ingest.submitScores({
        updates: [{ board: "ryw", playerId: `w${i % 3}`, op: Operation.INCREMENT, value: BigInt(i) }],
      });
      const rank = await cluster.router.getRank({ board: "ryw", playerId: `w${i % 3}`, consistencyToken: res.consistencyToken });
      const expected = Array.from({ length: i }, (_, k) => k + 1)
        .filter((k) => k % 3 === i % 3)
        .reduce((a, b) => a + b, 0);
      expect(Number(rank.entry!.score)).toBe(expected);
    }
    expect(await grpcCode(cluster.router.getRank({ board: "ryw", playerId: "w1", consistencyToken: "not a token" }))).toBe(
      status.INVALID_ARGUMENT,
    );
  });

  it("answers bad reads with INVALID_ARGUMENT and unknown players with NOT_FOUND", async () => {
    expect(await grpcCode(cluster.router.getTop({ board: "", limit: 5 }))).toBe(status.INVALID_ARGUMENT);
    expect(await grpcCode(cluster.router.getTop({ board: BOARD, limit: 1001 }))).toBe(status.INVALID_ARGUMENT);
    expect(await grpcCode(cluster.router.getTop({ board: BOARD, offset: 9_999n, limit: 2 }))).toBe(status.INVALID_ARGUMENT);
    expect(await grpcCode(cluster.router.getAround({ board: BOARD, playerId: "p-1", radius: 101 }))).toBe(status.INVALID_ARGUMENT);
    expect(await grpcCode(cluster.router.getRank({ board: BOARD, playerId: "nobody" }))).toBe(status.NOT_FOUND);
    expect(await grpcCode(cluster.router.getAround({ board: "no-such-board", playerId: "p-1" }))).toBe(status.NOT_FOUND);
  });

  it("gives UNAVAILABLE while a shard node is dead, then exact answers again, with nothing lost", async () => {
    const victim = cluster.services.shardIds[1]!;
    await cluster.services.shardNode(victim).kill();
    await new Promise((r) => setTimeout(r, TEST_HEARTBEAT_TTL_MS + 200));
    const someone = oracle.sorted(BOARD)[0]!.playerId;
    expect(await grpcCode(cluster.router.getTop({ board: BOARD, limit: 10 }))).toBe(status.UNAVAILABLE);
    expect(await grpcCode(cluster.router.getRank({ board: BOARD, playerId: someone }))).toBe(status.UNAVAILABLE);
    // writes still go to the log while the shard is down
    await submit(randomUpdates(1500, Date.now() - 600_000));
    await cluster.services.restartShardNode(victim);
    await cluster.waitApplied(written);
    await expectMatchesOracle();
  });

  it("serves an outside client built only from proto/", async () => {
    const pkg = grpc.loadPackageDefinition(
      loadSync(["leaderboard/v1/ingest.proto", "leaderboard/v1/leaderboard.proto"], {
        includeDirs: [join(import.meta.dirname, "..", "proto")],
        keepCase: true,
        longs: String,
        enums: String,
        defaults: true,
      }),
    ) as unknown as { leaderboard: { v1: Record<string, grpc.ServiceClientConstructor> } };
    const creds = grpc.credentials.createInsecure();
    const ingest = new pkg.leaderboard.v1.IngestService!(cluster.services.ingestAddress, creds);
    const router = new pkg.leaderboard.v1.LeaderboardService!(cluster.services.routerAddress, creds);
    const auth = new grpc.Metadata();
    auth.set("authorization", `Bearer ${TEST_TOKENS.write}`);
    const call = <T>(client: grpc.Client, method: string, req: object) =>
      new Promise<T>((resolve, reject) =>
        (client as unknown as Record<string, Function>)[method]!(req, auth, (e: Error | null, r: T) => (e ? reject(e) : resolve(r))),
      );
    const t = Date.now() - 120_000;
    const res = await call<{ offsets: PartitionOffset[]; accepted: number }>(ingest, "SubmitScores", {
      updates: [
        { board: "outside", player_id: "ann", op: "OPERATION_SET", value: "300", timestamp_ms: String(t) },
        { board: "outside", player_id: "bob", op: "OPERATION_SET", value: "300", timestamp_ms: String(t + 60_000) },
        { board: "outside", player_id: "cat", op: "OPERATION_BEST", value: "500", timestamp_ms: "0" },
        { board: "outside", player_id: "ann", op: "OPERATION_INCREMENT", value: "0", timestamp_ms: "0" },
      ],
    });
    expect(res.accepted).toBe(4);
    await cluster.waitApplied(res.offsets.map((o) => ({ partition: o.partition, offset: BigInt(o.offset) }) as PartitionOffset));
    const top = await call<{ entries: Array<{ player_id: string; score: string; rank: string }>; total: string }>(router, "GetTop", {
      board: "outside",
      limit: 10,
    });
    expect(top.entries.map((e) => [e.player_id, e.score, e.rank])).toEqual([
      ["cat", "500", "1"],
      ["ann", "300", "2"],
      ["bob", "300", "3"],
    ]);
    const rank = await call<{ entry: { rank: string }; total: string }>(router, "GetRank", { board: "outside", player_id: "bob" });
    expect([rank.entry.rank, rank.total]).toEqual(["3", "3"]);
    const around = await call<{ entries: Array<{ player_id: string }> }>(router, "GetAround", {
      board: "outside",
      player_id: "ann",
      radius: 1,
    });
    expect(around.entries.map((e) => e.player_id)).toEqual(["cat", "ann", "bob"]);
    ingest.close();
    router.close();
  });
});
