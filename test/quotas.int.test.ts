// Write quotas on real processes (Kafka, Redis, 3 shard nodes, router, ingest): a cluster-wide
// per-player quota (LADDER_QUOTA_PLAYER_RATE 1/s, burst 2) and a board's per-token quota (1/s,
// burst 3, declared through CreateBoard). Batches are sent at once, so more of them arrive within a
// second than the burst allows, however slow the machine: each is admitted or refused whole. A
// refusal is RESOURCE_EXHAUSTED with a `retry-after-ms` trailer and names the quota; the log's end
// offsets grow by exactly the admitted batches' records and the board holds exactly their updates
// (INCREMENT by 1: a player's score counts its admitted updates); other players and tokens are
// served at once.
import { status, type ServiceError } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { Operation, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import type { TokenGrant } from "@ladder/platform/auth";
import { startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";

const SECOND_TOKEN = "test-second-write-token-0123456789";
const GRANTS: TokenGrant[] = [
  { name: "test-game-server", token: TEST_TOKENS.write, roles: ["write"] },
  { name: "second-game-server", token: SECOND_TOKEN, roles: ["write"] },
  { name: "test-admin", token: TEST_TOKENS.admin, roles: ["admin"] },
  { name: "test-reader", token: TEST_TOKENS.read, roles: ["read"] },
];
const OPEN = "quota-open"; // the cluster's quota only
const METERED = "quota-metered"; // a per-token quota of its own

let cluster: TestCluster;
let admin: ClientOf<typeof AdminService>;
let second: ClientOf<typeof IngestService>;

const inc = (board: string, playerId: string) => ({ board, playerId, op: Operation.INCREMENT, value: 1n });

async function endOffsetsTotal(): Promise<bigint> {
  const s = await admin.getClusterStatus({});
  return s.kafka!.endOffsets.reduce((n, o) => n + o.offset, 0n);
}

/** Every batch sent at once: the admitted ones' sizes, and the refusals. */
async function sendAtOnce(client: ClientOf<typeof IngestService>, batches: ReturnType<typeof inc>[][]) {
  const answers = await Promise.allSettled(batches.map((updates) => client.submitScores({ updates })));
  const admitted: number[] = [];
  const offsets: PartitionOffset[] = [];
  const refused: ServiceError[] = [];
  answers.forEach((a, i) => {
    if (a.status === "fulfilled") {
      admitted.push(batches[i]!.length);
      offsets.push(...a.value.offsets);
    } else refused.push(a.reason as ServiceError);
  });
  return { admitted, offsets, refused };
}

async function scores(board: string): Promise<Map<string, bigint>> {
  const top = await cluster.router.getTop({ board, limit: 100 });
  return new Map(top.entries.map((e) => [e.playerId, e.score]));
}

function expectRetryInfo(e: ServiceError, burstMs: number, words: string): void {
  expect(e.code).toBe(status.RESOURCE_EXHAUSTED);
  expect(e.details).toContain(words);
  expect(e.details).toContain("nothing of this batch was written");
  const [after] = e.metadata.get("retry-after-ms");
  expect(Number(after)).toBeGreaterThanOrEqual(1);
  expect(Number(after)).toBeLessThanOrEqual(burstMs);
}

beforeAll(async () => {
  cluster = await startTestCluster("quotas", {
    tokens: GRANTS,
    settings: { LADDER_QUOTA_PLAYER_RATE: "1", LADDER_QUOTA_PLAYER_BURST: "2" },
  });
  admin = createClient(AdminService, cluster.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
  second = createClient(IngestService, cluster.services.ingestAddress, undefined, {}, SECOND_TOKEN);
  await admin.createBoard({ board: { name: OPEN, defaultOp: Operation.INCREMENT } });
  const metered = await admin.createBoard({
    board: { name: METERED, defaultOp: Operation.INCREMENT, quota: { tokenPerSecond: 1, tokenBurst: 3 } },
  });
  expect(metered.board!.quota).toMatchObject({ tokenPerSecond: 1, tokenBurst: 3, playerPerSecond: 0 });
}, 180_000);

afterAll(async () => {
  admin?.close();
  second?.close();
  await cluster?.stop();
});

describe("quotas", () => {
  it("refuses a board's quota that is out of bounds, naming the field and the limit", async () => {
    const bad = await admin.createBoard({ board: { name: "quota-bad", quota: { playerBurst: 5 } } }).catch((e: ServiceError) => e);
    expect(bad).toMatchObject({ code: status.INVALID_ARGUMENT });
    expect((bad as ServiceError).details).toContain("quota.player_burst 5 needs quota.player_per_second above 0");
    const huge = await admin
      .updateBoard({ board: { name: METERED, defaultOp: Operation.INCREMENT, quota: { tokenPerSecond: 2_000_000 } } })
      .catch((e: ServiceError) => e);
    expect((huge as ServiceError).details).toBe("quota.token_per_second 2000000 is above 1000000 (MAX_QUOTA)");
  });

  it("refuses a player past its quota whole, writes nothing of it, and serves other players", async () => {
    const before = await endOffsetsTotal();
    // 6 batches of the player's burst (2 updates each) at once: within a second at most two fit
    const batches = Array.from({ length: 6 }, () => [inc(OPEN, "hasty"), inc(OPEN, "hasty")]);
    const { admitted, offsets, refused } = await sendAtOnce(cluster.ingest, batches);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const e of refused) expectRetryInfo(e, 2000, 'player "hasty"');
    // another player, at once, on the same token: served
    const other = await cluster.ingest.submitScores({ updates: [inc(OPEN, "calm"), inc(OPEN, "calm")] });
    const written = admitted.reduce((a, b) => a + b, 0);
    expect(await endOffsetsTotal()).toBe(before + BigInt(written + 2));
    await cluster.waitApplied([...offsets, ...other.offsets]);
    const board = await scores(OPEN);
    expect(board.get("hasty")).toBe(BigInt(written));
    expect(board.get("calm")).toBe(2n);
  });

  it("refuses a token past a board's quota whole, writes nothing of it, and serves other tokens", async () => {
    const before = await endOffsetsTotal();
    // 5 batches of 3 players each (the token's burst), every player once: only the token's quota binds
    const batches = Array.from({ length: 5 }, (_, b) => [0, 1, 2].map((i) => inc(METERED, `t${b}-${i}`)));
    const { admitted, offsets, refused } = await sendAtOnce(cluster.ingest, batches);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const e of refused) expectRetryInfo(e, 3000, 'token "test-game-server" on board "quota-metered"');
    const other = await second.submitScores({ updates: [0, 1, 2].map((i) => inc(METERED, `s-${i}`)) });
    // the same token on a board without a quota of its own is served too
    const open = await cluster.ingest.submitScores({ updates: [inc(OPEN, "t-elsewhere")] });
    const written = admitted.reduce((a, b) => a + b, 0);
    expect(await endOffsetsTotal()).toBe(before + BigInt(written + 3 + 1));
    await cluster.waitApplied([...offsets, ...other.offsets, ...open.offsets]);
    const board = await scores(METERED);
    const admittedPlayers = [...board.keys()].filter((p) => p.startsWith("t")).length;
    expect(admittedPlayers).toBe(written);
    for (const [player, score] of board) expect([player, score]).toEqual([player, 1n]);
    expect([0, 1, 2].every((i) => board.has(`s-${i}`))).toBe(true);
  });
});
