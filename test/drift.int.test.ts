// Safe under change (issue 7, items 3, 4 and 6): a shard's Redis records what it was built from;
// shard nodes, routers and ingest refuse (FAILED_PRECONDITION for readers, exit status 78 with
// the reason for services) when the configuration, the topic or the topic's durability differs,
// and consistency tokens naming records past the log's end are refused at once.
import { status } from "@grpc/grpc-js";
import { describe, expect, inject, it } from "vitest";
import { createClient } from "@ladder/client/grpc-stub";
import { createKafka, createTopic, ensureScoreTopic, scoreTopicSpec, topicConfigs } from "@ladder/log/kafka";
import { LogClient } from "@ladder/log/log-client";
import { encodeToken } from "@ladder/model/consistency-token";
import { rootLogger, silentLogger } from "@ladder/platform/logger";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { spawnService } from "@ladder/deploy/spawn-service";
import { startServices } from "@ladder/deploy/services";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { perTest, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";

const { cluster, defer } = perTest();

async function grpcError(p: Promise<unknown>): Promise<{ code: number; details: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code: number; details: string };
  }
  throw new Error("expected the call to fail");
}

/** Starts a service of `c` with `overrides` and returns the error it fails to start with. */
/** Whose tokens a process of `entry` gets. */
const holderOf = (entry: string) => (entry.startsWith("ingest") ? "ingest" : entry.startsWith("shard") ? "shard" : "router");

async function startFailure(
  c: TestCluster,
  name: string,
  entry: string,
  overrides: Record<string, string>,
  ready: string,
): Promise<string> {
  const err = await spawnService({
    name,
    entry,
    env: { ...process.env, ...c.services.envOf(holderOf(entry)), ...overrides },
    ready,
    timeoutMs: 60_000,
    log: silentLogger(),
  }).then(
    (started) => {
      defer(() => started.process.stop(10_000));
      throw new Error(`${name} started, but should have refused`);
    },
    (e: unknown) => e as Error,
  );
  return err.message;
}

async function seed(c: TestCluster, players: number): Promise<void> {
  const updates = Array.from({ length: players }, (_, i) => ({ board: "b", playerId: `p${i}`, op: Operation.SET, value: BigInt(100 + i) }));
  const res = await c.ingest.submitScores({ updates });
  await c.waitApplied(res.offsets);
}

describe("drift", () => {
  it("refuses a router whose board specs or slots differ from what the shards were built with; its LADDER_SHARDS only seeds the placement", async () => {
    const c = await cluster("drift-router");
    await seed(c, 50);
    expect((await c.router.getTop({ board: "b", limit: 5 })).total).toBe(50n);
    // another number of slots: the cluster's placement cannot be read with it, so the router does not start
    const slots = await startFailure(
      c,
      "router-slots",
      "router/src/main.ts",
      { LADDER_SLOTS: "16", LADDER_ROUTER_LISTEN: "127.0.0.1:0" },
      "router listening",
    );
    expect(slots).toMatch(/exited with code 78/);
    expect(slots).toMatch(/a placement of 12 slots, not 16/);
    // another shard list: the placement topic, not LADDER_SHARDS, says which shards there are (it seeds only epoch 1)
    const seeded = await spawnService({
      name: "router-shards",
      entry: "router/src/main.ts",
      env: {
        ...process.env,
        ...c.services.envOf("router"),
        LADDER_SHARDS: c.services.env.LADDER_SHARDS!.split(",").slice(0, 2).join(","),
        LADDER_ROUTER_LISTEN: "127.0.0.1:0",
      },
      ready: "router listening",
      timeoutMs: 60_000,
      log: silentLogger(),
    });
    defer(() => seeded.process.stop(10_000));
    const other = createClient(LeaderboardService, `127.0.0.1:${seeded.port}`, undefined, {}, TEST_TOKENS.read);
    defer(async () => other.close());
    expect((await other.getRank({ board: "b", playerId: "p49" })).entry!.rank).toBe(1n);
    expect((await other.getTop({ board: "b", limit: 5 })).total).toBe(50n);
    for (const [overrides, what] of [
      [{ LADDER_BOARDS: JSON.stringify([{ prefix: "", maxPoints: 1_000_000, resolutionMs: 1000 }]) }, /board specs \(LADDER_BOARDS\)/],
    ] as const) {
      const router = await spawnService({
        name: "router-drifted",
        entry: "router/src/main.ts",
        env: { ...process.env, ...c.services.envOf("router"), ...overrides, LADDER_ROUTER_LISTEN: "127.0.0.1:0" },
        ready: "router listening",
        timeoutMs: 60_000,
        log: silentLogger(),
      });
      defer(() => router.process.stop(10_000));
      const client = createClient(LeaderboardService, `127.0.0.1:${router.port}`, undefined, {}, TEST_TOKENS.read);
      defer(async () => client.close());
      for (const call of [
        () => client.getTop({ board: "b", limit: 5 }),
        () => client.getRank({ board: "b", playerId: "p1" }),
        () => client.getAround({ board: "b", playerId: "p1", radius: 2 }),
      ]) {
        const err = await grpcError(call());
        expect(`${err.code} ${err.details}`).toMatch(new RegExp(`^${status.FAILED_PRECONDITION} .*${what.source}`));
      }
    }
    // the cluster's own router is unaffected
    expect((await c.router.getRank({ board: "b", playerId: "p49" })).entry!.rank).toBe(1n);
  });

  it("refuses to start a shard node whose board specs, slots or shard id differ from what its Redis was built with", async () => {
    const c = await cluster("drift-node");
    await seed(c, 30);
    await c.services.shardNode("shard-1").stop(10_000);
    const [url0, url1, url2] = inject("redisUrls");
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ LADDER_SHARD_ID: "shard-1", LADDER_BOARDS: JSON.stringify([{ prefix: "", maxPoints: 1000 }]) }, /board specs \(LADDER_BOARDS\)/],
      // another number of slots: the cluster's placement cannot be read with it
      [{ LADDER_SHARD_ID: "shard-1", LADDER_SLOTS: "16" }, /a placement of 12 slots, not 16/],
      // shard-1's Redis given to shard-2
      [
        { LADDER_SHARD_ID: "shard-2", LADDER_SHARDS: `shard-0=${url0},shard-1=${url2},shard-2=${url1}` },
        /shard id: shard-1 there, shard-2 here/,
      ],
    ];
    for (const [overrides, what] of cases) {
      const message = await startFailure(c, "shard-node-drifted", "shard-node/src/main.ts", overrides, "shard node ready");
      expect(message).toMatch(/exited with code 78/);
      expect(message).toMatch(what);
    }
    await c.services.restartShardNode("shard-1"); // the right configuration still starts
    await c.waitApplied([]); // and serves once caught up
    expect((await c.router.getTop({ board: "b", limit: 1 })).total).toBe(30n);
  });

  it("refuses a score topic deleted and created again under existing shards, instead of skipping its records", async () => {
    const c = await cluster("drift-topic");
    await seed(c, 20);
    await c.services.stop();
    const kafka = createKafka(inject("kafkaBrokers"), "test-drift", silentLogger());
    const admin = kafka.admin();
    await admin.connect();
    defer(() => admin.disconnect());
    await admin.deleteTopics({ topics: [c.ns.topic] });
    await retry(async () => expect(await admin.listTopics()).not.toContain(c.ns.topic));
    await ensureScoreTopic(LogClient.wrap(kafka), { topic: c.ns.topic, numSlots: 12 }, { create: true });
    const message = await startFailure(
      c,
      "shard-node-recreated",
      "shard-node/src/main.ts",
      { LADDER_SHARD_ID: "shard-0" },
      "shard node ready",
    );
    expect(message).toMatch(/exited with code 78/);
    expect(message).toMatch(/score topic's id \(the topic was deleted and created again\)/);
  });

  it("will not create the score topic over shards that hold data", async () => {
    const c = await cluster("drift-missing");
    await seed(c, 10);
    await c.services.stop();
    const admin = createKafka(inject("kafkaBrokers"), "test-drift", silentLogger()).admin();
    await admin.connect();
    defer(() => admin.disconnect());
    await admin.deleteTopics({ topics: [c.ns.topic] });
    await retry(async () => expect(await admin.listTopics()).not.toContain(c.ns.topic));
    const message = await startFailure(
      c,
      "shard-node-no-topic",
      "shard-node/src/main.ts",
      { LADDER_SHARD_ID: "shard-0" },
      "shard node ready",
    );
    expect(message).toMatch(/exited with code 78/);
    expect(message).toMatch(/does not exist, but this shard's Redis holds data built from it/);
    await retry(async () => expect(await admin.listTopics()).not.toContain(c.ns.topic)); // still not created
  });

  it("refuses a score topic weaker than configured: services do not start on it", async () => {
    const ns = freshNamespace("drift-weak");
    const admin = createKafka(inject("kafkaBrokers"), "test-drift", silentLogger()).admin();
    await admin.connect();
    defer(() => admin.disconnect());
    const weak = scoreTopicSpec(ns.topic, 12, 1, 1);
    weak.configEntries = [{ name: "retention.ms", value: String(7 * 86_400_000) }];
    await createTopic(admin, weak); // waits out a broker that has not yet loaded the new topic
    const err = await startServices({
      kafkaBrokers: inject("kafkaBrokers"),
      redisUrls: inject("redisUrls"),
      routerListen: "127.0.0.1:0",
      ingestListen: "127.0.0.1:0",
      settings: { LADDER_SCORE_TOPIC: ns.topic, LADDER_KEY_PREFIX: ns.keyPrefix, LADDER_SLOTS: "12", LADDER_LOG_LEVEL: "info" },
      baseEnv: process.env,
      log: rootLogger({ level: "fatal", name: "test-drift-weak" }),
    }).then(
      (s) => {
        defer(() => s.stop());
        throw new Error("the services started on a topic with 7 days of retention");
      },
      (e: unknown) => e as Error,
    );
    expect(err.message).toMatch(/exited with code 78/);
    expect(err.message).toMatch(/retention\.ms is 604800000, not -1/);
    expect((await topicConfigs(admin, ns.topic)).get("retention.ms")).toBe("604800000"); // untouched
  });

  it("refuses consistency tokens that name records past the log's end, at once", async () => {
    const c = await cluster("drift-token");
    const res = await c.ingest.submitScores({ updates: [{ board: "b", playerId: "t", op: Operation.SET, value: 5n }] });
    const [written] = res.offsets;
    const beyond = encodeToken(new Map([[written!.partition, written!.offset + 1000n]]));
    const err = await grpcError(c.router.getRank({ board: "b", playerId: "t", consistencyToken: beyond }));
    expect(err.code).toBe(status.INVALID_ARGUMENT); // refused; waiting it out would end in UNAVAILABLE
    expect(err.details).toMatch(/but the log ends before it/);
    // an honest token still reads its write
    expect((await c.router.getRank({ board: "b", playerId: "t", consistencyToken: res.consistencyToken })).entry!.score).toBe(5n);
  });
});

async function retry(fn: () => Promise<void>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
