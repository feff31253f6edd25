// Metrics and reflection on the real processes. Every service serves Prometheus metrics at its own URL
// (RunningServices.metricsUrl, read from its ready line): scraped before and after writes, reads, refused
// calls and a rebuild, the counters move by exactly what was done, and the readiness and lag gauges say
// what the shards are doing. The router and ingest answer the gRPC reflection protocol (v1 and v1alpha):
// they list their services and describe them down to the methods.
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@ladder/client/grpc-stub";
import { AdminService, Phase, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";
import { Scrape } from "./prom-text.js";
import { filesOf, reflect, type ReflectionVersion } from "./reflection-client.js";

const BOARD = "metrics";
const SLOTS = 12; // cluster-harness.ts's LADDER_SLOTS
let c: TestCluster;

beforeAll(async () => {
  c = await startTestCluster("observability", { ownRedis: true }); // it rebuilds a shard
  await c.waitApplied([]); // every shard serving
});
afterAll(async () => {
  await c?.stop();
});

const serviceNames = () => ["router", "ingest", ...c.services.shardIds];
const scrape = (service: string) => Scrape.of(c.services.metricsUrl(service));
const scrapeAll = async () => new Map(await Promise.all(serviceNames().map(async (s) => [s, await scrape(s)] as const)));
const code = (p: Promise<unknown>) =>
  p.then(
    () => "OK",
    (e: { code: number }) => grpc.status[e.code],
  );

/** Polls `check` (which throws while not yet true) until it passes or `ms` pass. */
async function eventually<T>(check: () => Promise<T>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const LEADERBOARD = "leaderboard.v1.LeaderboardService";
const INGEST = "leaderboard.v1.IngestService";
const rpc = (service: string, method: string, grpcCode: string) => ({ grpc_service: service, grpc_method: method, grpc_code: grpcCode });

describe("metrics", () => {
  it("every service serves /metrics at its URL, with Node's process metrics, and nothing else", async () => {
    for (const name of serviceNames()) {
      const url = c.services.metricsUrl(name);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const s = await scrape(name);
      expect(s.has("process_cpu_user_seconds_total"), name).toBe(true);
      expect(s.has("nodejs_eventloop_lag_seconds"), name).toBe(true);
      expect((await fetch(url.replace(/\/metrics$/, "/other"))).status).toBe(404);
    }
    expect(() => c.services.metricsUrl("nope")).toThrow(/no service "nope"/);
  });

  it("shards show their state and their lag per partition", async () => {
    let partitions = 0;
    for (const shard of c.services.shardIds) {
      const s = await eventually(async () => {
        const s = await scrape(shard);
        expect(s.sum("ladder_shard_state", { shard, state: "serving" })).toBe(1);
        return s;
      });
      expect(s.sum("ladder_shard_state", { shard, state: "catching_up" })).toBe(0);
      expect(s.sum("ladder_shard_state", { shard, state: "withdrawn" })).toBe(0);
      const lags = s.all("ladder_shard_lag_records", { shard });
      expect(lags.length).toBeGreaterThan(0);
      for (const lag of lags) expect(lag.value).toBeGreaterThanOrEqual(0);
      partitions += lags.length;
    }
    expect(partitions).toBe(SLOTS); // each partition is one shard's
  });

  it("calls by rpc and code, shard calls, token waits, ingest batches and applied records move by what was done", async () => {
    const before = await scrapeAll();
    const CALLS = 10;
    const PER_CALL = 100;
    const offsets: PartitionOffset[] = [];
    let token = "";
    for (let i = 0; i < CALLS; i++) {
      const res = await c.ingest.submitScores({
        updates: Array.from({ length: PER_CALL }, (_, j) => ({
          board: BOARD,
          playerId: `m-${i}-${j}`,
          op: Operation.SET,
          value: BigInt(i * PER_CALL + j),
          timestampMs: BigInt(Date.now()),
          eventId: `e-${i}-${j}`,
        })),
      });
      offsets.push(...res.offsets);
      token = res.consistencyToken;
    }
    const anonymous = createClient(IngestService, c.services.ingestAddress);
    expect(
      await code(anonymous.submitScores({ updates: [{ board: BOARD, playerId: "x", value: 1n, timestampMs: BigInt(Date.now()) }] })),
    ).toBe("UNAUTHENTICATED");
    anonymous.close();
    await c.waitApplied(offsets);

    expect(await code(c.router.getRank({ board: BOARD, playerId: "m-9-99", consistencyToken: token }))).toBe("OK");
    for (let i = 0; i < 3; i++) expect(await code(c.router.getTop({ board: BOARD, limit: 10 }))).toBe("OK");
    for (let i = 0; i < 3; i++) expect(await code(c.router.getRank({ board: BOARD, playerId: `m-${i}-0` }))).toBe("OK");
    for (let i = 0; i < 2; i++) expect(await code(c.router.getAround({ board: BOARD, playerId: `m-5-${i}`, radius: 3 }))).toBe("OK");
    expect(await code(c.router.getRank({ board: BOARD, playerId: "nobody" }))).toBe("NOT_FOUND");
    expect(await code(c.router.getTop({ board: BOARD, limit: 5000 }))).toBe("INVALID_ARGUMENT");

    const after = await eventually(async () => {
      const now = await scrapeAll();
      for (const shard of c.services.shardIds) expect(now.get(shard)!.sum("ladder_shard_lag_records", { shard }), shard).toBe(0); // at the next heartbeat
      return now;
    });
    const delta = (service: string, name: string, match: Record<string, string> = {}) =>
      after.get(service)!.sum(name, match) - before.get(service)!.sum(name, match);

    // the router: every call by rpc and code, with its latency
    expect(delta("router", "ladder_grpc_server_handled_total", rpc(LEADERBOARD, "GetTop", "OK"))).toBe(3);
    expect(delta("router", "ladder_grpc_server_handled_total", rpc(LEADERBOARD, "GetRank", "OK"))).toBe(4);
    expect(delta("router", "ladder_grpc_server_handled_total", rpc(LEADERBOARD, "GetAround", "OK"))).toBe(2);
    expect(delta("router", "ladder_grpc_server_handled_total", rpc(LEADERBOARD, "GetRank", "NOT_FOUND"))).toBe(1);
    expect(delta("router", "ladder_grpc_server_handled_total", rpc(LEADERBOARD, "GetTop", "INVALID_ARGUMENT"))).toBe(1);
    expect(delta("router", "ladder_grpc_server_handling_seconds_count", rpc(LEADERBOARD, "GetTop", "OK"))).toBe(3);
    expect(delta("router", "ladder_grpc_server_handling_seconds_sum", rpc(LEADERBOARD, "GetTop", "OK"))).toBeGreaterThan(0);
    // ... each shard's reads, and the one wait for a consistency token
    for (const shard of c.services.shardIds)
      expect(delta("router", "ladder_router_shard_call_seconds_count", { shard, code: "OK" }), shard).toBeGreaterThanOrEqual(9);
    expect(delta("router", "ladder_router_consistency_wait_seconds_count", { code: "OK" })).toBe(1);

    // ingest: the calls, and the records in flushes (group commit: at most one flush per call here)
    expect(delta("ingest", "ladder_grpc_server_handled_total", rpc(INGEST, "SubmitScores", "OK"))).toBe(CALLS);
    expect(delta("ingest", "ladder_grpc_server_handled_total", rpc(INGEST, "SubmitScores", "UNAUTHENTICATED"))).toBe(1);
    expect(delta("ingest", "ladder_ingest_acknowledged_records_total")).toBe(CALLS * PER_CALL);
    expect(delta("ingest", "ladder_ingest_flush_records_sum")).toBe(CALLS * PER_CALL);
    const flushes = delta("ingest", "ladder_ingest_flush_records_count");
    expect(flushes).toBeGreaterThanOrEqual(1);
    expect(flushes).toBeLessThanOrEqual(CALLS);
    expect(delta("ingest", "ladder_ingest_flush_calls_sum")).toBe(CALLS);
    expect(delta("ingest", "ladder_ingest_flush_seconds_count", { outcome: "ok" })).toBe(flushes);
    expect(after.get("ingest")!.sum("ladder_ingest_queued_records")).toBe(0);

    // the shard nodes: every record applied exactly once, over the shards; nothing invalid
    const applied = c.services.shardIds.reduce((sum, shard) => sum + delta(shard, "ladder_shard_applied_records_total", { shard }), 0);
    expect(applied).toBe(CALLS * PER_CALL);
    // ... with each apply call's delay since ingest made its last record: at least one call, at most one per record, each within the test
    const delayOf = (what: string) =>
      c.services.shardIds.reduce((sum, shard) => sum + delta(shard, `ladder_shard_apply_delay_seconds_${what}`, { shard }), 0);
    expect(delayOf("count")).toBeGreaterThanOrEqual(1);
    expect(delayOf("count")).toBeLessThanOrEqual(CALLS * PER_CALL);
    expect(delayOf("sum") / delayOf("count")).toBeLessThan(60);
    for (const shard of c.services.shardIds) {
      expect(delta(shard, "ladder_shard_invalid_records_total", { shard })).toBe(0);
      expect(after.get(shard)!.sum("ladder_shard_state", { shard, state: "serving" })).toBe(1);
    }
  });

  it("a rebuild's progress shows in the router's metrics while it runs, and how it ended after", async () => {
    const SHARD = "shard-1";
    const admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
    const before = await scrape("router");
    let runningSeen = -1;
    const phases: Phase[] = [];
    for await (const p of admin.rebuildShards({ shardIds: [SHARD] }) as AsyncIterable<RebuildShardsResponse>) {
      if (phases.length === 0) runningSeen = (await scrape("router")).sum("ladder_rebuild_running", { shard: SHARD });
      phases.push(p.phase);
    }
    admin.close();
    expect(phases.at(-1)).toBe(Phase.DONE);
    expect(runningSeen).toBe(1);
    const after = await scrape("router");
    const delta = (name: string, match: Record<string, string>) => after.sum(name, match) - before.sum(name, match);
    expect(after.sum("ladder_rebuild_running", { shard: SHARD })).toBe(0);
    expect(after.sum("ladder_rebuild_lag_records", { shard: SHARD })).toBe(0);
    expect(delta("ladder_rebuild_replayed_records_total", { shard: SHARD })).toBeGreaterThan(0);
    expect(delta("ladder_rebuilds_total", { shard: SHARD, mode: "swap", code: "OK" })).toBe(1);
    expect(delta("ladder_grpc_server_handled_total", rpc("leaderboard.v1.AdminService", "RebuildShards", "OK"))).toBe(1);
  });
});

describe("reflection", () => {
  const expected = {
    router: ["grpc.health.v1.Health", "leaderboard.v1.AdminService", LEADERBOARD],
    ingest: ["grpc.health.v1.Health", INGEST],
  };
  const address = (server: keyof typeof expected) => (server === "router" ? c.services.routerAddress : c.services.ingestAddress);

  for (const version of ["v1", "v1alpha"] as ReflectionVersion[]) {
    it(`${version}: the router and ingest list their services and describe them down to the methods and messages`, async () => {
      for (const server of ["router", "ingest"] as const) {
        const [list] = await reflect(address(server), version, [{ listServices: "*" }]);
        expect(list!.listServicesResponse!.service.map((s) => s.name).sort(), server).toEqual(expected[server]);
      }

      const [service, method, message, unknown] = await reflect(c.services.routerAddress, version, [
        { fileContainingSymbol: LEADERBOARD },
        { fileContainingSymbol: `${LEADERBOARD}.GetRank` },
        { fileContainingSymbol: "leaderboard.v1.GetRankRequest" },
        { fileContainingSymbol: "leaderboard.v1.NoSuchThing" },
      ]);
      const files = filesOf(service!);
      const leaderboard = files.find((f) => f.name === "leaderboard/v1/leaderboard.proto")!;
      expect(leaderboard.package).toBe("leaderboard.v1");
      expect(leaderboard.dependency).toContain("leaderboard/v1/common.proto");
      expect(files.map((f) => f.name)).toContain("leaderboard/v1/common.proto"); // with what it imports
      const svc = leaderboard.service.find((s) => s.name === "LeaderboardService")!;
      expect(svc.method.map((m) => m.name)).toEqual([
        "GetTop",
        "GetRank",
        "GetAround",
        "ListPeriods",
        "GetRanks",
        "GetStanding",
        "GetCount",
        "GetEntryAtRank",
        "GetHistogram",
        "GetApproximateRank",
        "WatchTop",
        "WatchPlayer",
        "ListTournaments",
        "GetTournament",
        "GetLeagueStanding",
        "GetLeague",
        "GetTeam",
      ]);
      const getRank = svc.method.find((m) => m.name === "GetRank")!;
      expect([getRank.inputType, getRank.outputType]).toEqual([".leaderboard.v1.GetRankRequest", ".leaderboard.v1.GetRankResponse"]);
      expect(filesOf(method!).map((f) => f.name)).toContain("leaderboard/v1/leaderboard.proto");
      const request = filesOf(message!)
        .flatMap((f) => f.messageType)
        .find((m) => m.name === "GetRankRequest")!;
      expect(request.field.map((f) => f.name)).toEqual(expect.arrayContaining(["board", "player_id", "consistency_token", "view"]));
      expect(unknown!.errorResponse?.errorCode).toBe(grpc.status.NOT_FOUND);

      const [ingest] = await reflect(c.services.ingestAddress, version, [{ fileContainingSymbol: INGEST }]);
      const submit = filesOf(ingest!)
        .flatMap((f) => f.service)
        .find((s) => s.name === "IngestService")!
        .method.find((m) => m.name === "SubmitScores")!;
      expect(submit.inputType).toBe(".leaderboard.v1.SubmitScoresRequest");
    });
  }
});
