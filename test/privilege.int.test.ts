// Least privilege on the running cluster (3 shard nodes, router and ingest as real processes): a
// token with the monitor role (the gateway's) may call the two admin reads that change nothing,
// ListBoards and GetClusterStatus, and is refused on every other admin rpc (PERMISSION_DENIED) and
// on writes, with nothing changed; each service holds only the tokens it verifies (read from the
// processes' own environments); the shards' Redis URLs, given with a user and password, are
// redacted in GetPlacement as in GetClusterStatus.
import { readFileSync } from "node:fs";
import type * as grpc from "@grpc/grpc-js";
import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { MONITOR_RPCS } from "@ladder/platform/auth";
import { outcome, startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";

const PASSWORD = "not-a-real-secret-0123";
const BOARD = "privilege-board";

let c: TestCluster;
let admin: ClientOf<typeof AdminService>;
let monitor: ClientOf<typeof AdminService>;

beforeAll(async () => {
  // Redis's default user has no password: it accepts any, so the URLs may carry one
  const redisUrls = inject("redisUrls").map((u) => u.replace("redis://", `redis://default:${PASSWORD}@`));
  c = await startTestCluster("privilege", { redisUrls });
  admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
  monitor = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.monitor);
  await admin.createBoard({ board: { name: BOARD, defaultOp: Operation.SET } });
}, 180_000);

afterAll(async () => {
  admin?.close();
  monitor?.close();
  await c?.stop();
});

/** The status code a call of `method` ends with: a unary promise, or a server stream read to its end. */
function codeOfCall(client: ClientOf<typeof AdminService>, localName: string): Promise<number> {
  const call = (client as unknown as Record<string, (req: object, o: object) => unknown>)[localName]!({}, { timeoutMs: 15_000 });
  if (call instanceof Promise)
    return call.then(
      () => status.OK,
      (e: { code: number }) => e.code,
    );
  const stream = call as grpc.ClientReadableStream<unknown>;
  return new Promise((resolve) => {
    stream.on("data", () => {});
    stream.on("error", () => {});
    stream.on("status", (s: grpc.StatusObject) => resolve(s.code));
  });
}

const environOf = (pid: number | undefined) =>
  Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );

describe("least privilege", () => {
  it("lets a monitor token list the boards and read the cluster's status", async () => {
    expect((await monitor.listBoards({})).boards.map((b) => b.name)).toContain(BOARD);
    expect((await monitor.getClusterStatus({})).shards.map((s) => s.shardId)).toEqual(c.services.shardIds);
  });

  it("refuses a monitor token every other admin rpc with PERMISSION_DENIED, changing nothing", async () => {
    const before = { boards: await admin.listBoards({}), placement: await admin.getPlacement({}) };
    const others = AdminService.methods.filter((m) => !MONITOR_RPCS.has(m.name));
    expect(others.map((m) => m.name)).toEqual(
      expect.arrayContaining(["CreateBoard", "UpdateBoard", "DeleteBoard", "RebuildShards", "Reshard", "GetPlacement"]),
    );
    const codes = Object.fromEntries(await Promise.all(others.map(async (m) => [m.name, await codeOfCall(monitor, m.localName)])));
    expect(codes).toEqual(Object.fromEntries(others.map((m) => [m.name, status.PERMISSION_DENIED])));
    expect(await admin.listBoards({})).toEqual(before.boards);
    expect(await admin.getPlacement({})).toEqual(before.placement);
  });

  it("refuses a monitor token's write at ingest, which knows only writers' tokens, and nothing is written", async () => {
    const asMonitor = createClient(IngestService, c.services.ingestAddress, undefined, {}, TEST_TOKENS.monitor);
    try {
      const refused = await outcome(asMonitor.submitScores({ updates: [{ board: BOARD, playerId: "m", op: Operation.SET, value: 5n }] }));
      expect(refused).toMatchObject({ code: status.UNAUTHENTICATED });
    } finally {
      asMonitor.close();
    }
    const written = await c.ingest.submitScores({ updates: [{ board: BOARD, playerId: "w", op: Operation.SET, value: 7n }] });
    await c.waitApplied(written.offsets);
    expect((await c.router.getTop({ board: BOARD, limit: 10 })).entries.map((e) => e.playerId)).toEqual(["w"]);
  });

  it("gives each service only the tokens it verifies: the router all, ingest the writers', shard nodes none", () => {
    const grantsOf = (pid: number | undefined) => {
      const env = environOf(pid);
      return env.LADDER_TOKENS === undefined ? undefined : (JSON.parse(env.LADDER_TOKENS) as { name: string; roles: string[] }[]);
    };
    expect(
      grantsOf(c.services.router().pid)
        ?.map((g) => g.name)
        .sort(),
    ).toEqual(["test-admin", "test-game-server", "test-monitor", "test-reader"]);
    expect(grantsOf(c.services.ingest().pid)).toEqual([{ name: "test-game-server", token: TEST_TOKENS.write, roles: ["write"] }]);
    for (const id of c.services.shardIds) expect(grantsOf(c.services.shardNode(id).pid)).toBeUndefined();
  });

  it("redacts the credentials of the shards' Redis URLs in GetPlacement as in GetClusterStatus", async () => {
    const placement = await admin.getPlacement({});
    const shardStatus = await admin.getClusterStatus({});
    const urls = [...placement.shards.map((s) => s.redisUrl), ...shardStatus.shards.map((s) => s.redis)];
    expect(urls).toHaveLength(2 * c.services.shardIds.length);
    for (const url of urls) expect(url).toMatch(/^redis:\/\/\*\*\*@127\.0\.0\.1:\d+/);
    expect(JSON.stringify(placement, (_k, v) => (typeof v === "bigint" ? String(v) : v))).not.toContain(PASSWORD);
    expect(placement.shards.map((s) => s.redisUrl)).toEqual(shardStatus.shards.map((s) => s.redis));
  });
});
