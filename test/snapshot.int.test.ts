// Snapshots on the real processes (issue #11, item 4): shard nodes take snapshots of their shard into
// Kafka; a rebuild loads the newest and replays only the log after it, and gives exactly the state a
// full replay gives (boards, ranks, dedup sets: retries of updates from before the snapshot, sent
// after it with the same event ids, still count once); a shard whose Redis lost its data refills from
// the snapshot plus the tail, refusing reads until complete (the log before the snapshot is deleted
// first, so a refill that did not use the snapshot could never complete); snapshots of another topic
// id or another configuration are ignored. Owns its Redis servers: rebuilds swap whole databases.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { status } from "@grpc/grpc-js";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { createKafka } from "@ladder/log/kafka";
import { TopicIds } from "@ladder/log/topic-ids";
import { LogClient } from "@ladder/log/log-client";
import { silentLogger } from "@ladder/platform/logger";
import { buildPlacement } from "@ladder/model/placement";
import { auditPrefix, builtFrom, keyLayout, shardStamp } from "@ladder/store";
import { findSnapshots, type SnapshotManifest } from "@ladder/store/writer";
import { snapshotTopicOf } from "@ladder/log/snapshot-topic";
import { startRedisServer, type RedisServer } from "@ladder/deploy/redis-server";
import { AdminService, Phase, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { outcome, startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";
import { auditBoard, oracleOf, writeLoad } from "./write-load.js";

const SHARDS = ["shard-0", "shard-1", "shard-2"];
const SLOTS = 12;
/** One snapshot per shard once it holds 500–750 records (the threshold is raised per shard id), then none for 10 minutes: the test knows where the boundary is. */
const SNAPSHOT_SETTINGS = { LADDER_SNAPSHOT_RECORDS: "500", LADDER_SNAPSHOT_MIN_INTERVAL_MS: "600000" };
const boards = new BoardSpecs([makeBoardSpec(DEFAULT_BOARD).spec!]);
const placement = buildPlacement(SHARDS, SLOTS);
const log = silentLogger();
const kafka = createKafka(inject("kafkaBrokers"), "test-snapshot", log);
const kadmin = kafka.admin();
const topicIds = new TopicIds(inject("kafkaBrokers"), "test-snapshot-ids");

let dataDir: string;
let redis: RedisServer[];
let clients: Redis[];
let c: TestCluster | undefined;
let admin: ClientOf<typeof AdminService> | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "ladder-snapshot-"));
  redis = await Promise.all([0, 1, 2].map((i) => startRedisServer({ dataDir: join(dataDir, `redis-${i}`), persist: false, log })));
  clients = redis.map((r) => new Redis(r.url));
  await kadmin.connect();
}, 120_000);

afterEach(async () => {
  admin?.close();
  admin = undefined;
  await c?.stop();
  c = undefined;
});

afterAll(async () => {
  await Promise.all((clients ?? []).map((r) => r.quit()));
  await Promise.all((redis ?? []).map((r) => r.stop()));
  await kadmin.disconnect();
  await topicIds.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function cluster(label: string): Promise<TestCluster> {
  c = await startTestCluster(label, { redisUrls: redis.map((r) => r.url), settings: SNAPSHOT_SETTINGS });
  admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
  return c;
}

const stampOf = (c: TestCluster, shardId: string) =>
  shardStamp({ shardId, topic: c.ns.topic, numSlots: SLOTS, slots: placement.slotsOf.get(shardId) ?? [], boards });
async function builtFromOf(c: TestCluster, shardId: string): Promise<string> {
  return builtFrom(stampOf(c, shardId), (await topicIds.idOf(c.ns.topic))!);
}

/** Waits until every shard has a snapshot; their manifests by shard. */
async function snapshotsOf(c: TestCluster, timeoutMs = 30_000): Promise<Map<string, SnapshotManifest>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = new Map<string, SnapshotManifest>();
    for (const shardId of SHARDS) {
      const m = (
        await findSnapshots({
          logClient: LogClient.wrap(kafka),
          topic: snapshotTopicOf(c.ns.topic),
          shardId,
          builtFrom: await builtFromOf(c, shardId),
        })
      ).candidates[0];
      if (m) found.set(shardId, m);
    }
    if (found.size === SHARDS.length) return found;
    if (Date.now() > deadline) {
      const missing = SHARDS.filter((s) => !found.has(s));
      const logs = missing.map((s) =>
        c.services
          .shardNode(s)
          .output()
          .split("\n")
          .filter((l) => /snapshot/i.test(l))
          .slice(-3)
          .map((l) => l.slice(0, 800))
          .join("\n"),
      );
      throw new Error(`no snapshot of ${missing.join(", ")} within ${timeoutMs} ms:\n${logs.join("\n")}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Sends `load`'s batches again with the same event ids (as a game server retrying them): every one is a duplicate. */
const retry = (c: TestCluster, load: { board: string; run: string; batches: number }) =>
  writeLoad(c, { ...load, batchSize: 200, players: 2000 });

async function rebuild(req: object): Promise<RebuildShardsResponse[]> {
  const out: RebuildShardsResponse[] = [];
  for await (const p of admin!.rebuildShards(req) as AsyncIterable<RebuildShardsResponse>) out.push(p);
  return out;
}

/** Everything the log made in shard `i`'s Redis under `prefix`: boards, dedup sets, offsets. */
async function stateOf(i: number, prefix: string): Promise<Record<string, unknown>> {
  const r = clients[i]!;
  const keys = [...(await r.keys(`${prefix}board:*`)), ...(await r.keys(`${prefix}dedup:*`))].sort();
  const out: Record<string, unknown> = { offsets: await r.hgetall(keyLayout(prefix).offsets) };
  // a dedup member is "<event id>\n<board key>\n<player>": the board key carries the prefix
  for (const k of keys)
    out[k.slice(prefix.length)] = (await r.zrange(k, "0", "-1", "WITHSCORES")).map((v) => v.split(`\n${prefix}`).join("\n"));
  return out;
}

/** Deletes the score log's records before `snapshot` (Kafka's DeleteRecords): from then on only the snapshot holds them. */
async function deleteLogBefore(c: TestCluster, snapshot: SnapshotManifest): Promise<void> {
  const partitions = Object.entries(snapshot.offsets)
    .filter(([, o]) => BigInt(o) >= 0n)
    .map(([p, o]) => ({ partition: Number(p), offset: (BigInt(o) + 1n).toString() }));
  await kadmin.fetchTopicMetadata({ topics: [c.ns.topic] }); // kafkajs needs the partitions' leaders first
  await kadmin.deleteTopicRecords({ topic: c.ns.topic, partitions });
}

describe("snapshots", () => {
  it("a rebuild from a snapshot plus the tail equals a full replay of the log, retries across the snapshot included", async () => {
    const c = await cluster("snap-rebuild");
    const first = await writeLoad(c, { board: "s", run: "a", batches: 20, batchSize: 200, players: 2000 });
    await c.waitApplied(first.offsets);
    const snaps = await snapshotsOf(c);
    // after the snapshot: every batch of the first load again (duplicates), a second load, and retries of it
    const retried = await retry(c, { board: "s", run: "a", batches: 20 });
    const second = await writeLoad(c, { board: "s", run: "b", batches: 15, batchSize: 200, players: 2000 });
    const retried2 = await retry(c, { board: "s", run: "b", batches: 5 });
    const offsets = [...first.offsets, ...retried.offsets, ...second.offsets, ...retried2.offsets];
    await c.waitApplied(offsets);
    const all = oracleOf(first, second);
    expect(await auditBoard(c, "s", all)).toMatchObject({ lost: 0, doubled: 0, misranked: 0, events: 7000 });

    const progress = await rebuild({});
    await c.waitApplied(offsets);
    const done = progress.filter((p) => p.phase === Phase.DONE);
    expect(done.map((p) => p.shardId).sort()).toEqual(SHARDS);
    const logRecords = (shardId: string) =>
      (placement.slotsOf.get(shardId) ?? []).reduce(
        (sum, p) => sum + Math.max(-1, ...offsets.filter((o) => o.partition === p).map((o) => Number(o.offset))) + 1,
        0,
      );
    for (const p of done) {
      const snap = snaps.get(p.shardId)!;
      expect(p.snapshotId).toBe(snap.snapshotId); // it started from the snapshot...
      expect(Number(p.snapshotRecords)).toBe(snap.records);
      expect(Number(p.eventsReplayed)).toBe(logRecords(p.shardId) - snap.records); // ...and replayed only the tail
    }
    console.log(
      `[snapshot] rebuild: ${done.map((p) => `${p.shardId} snapshot of ${p.snapshotRecords} records + ${p.eventsReplayed} replayed`).join("; ")}`,
    );
    expect(await auditBoard(c, "s", all)).toMatchObject({ lost: 0, doubled: 0, misranked: 0, events: 7000 });

    // the same log replayed from offset 0 (an audit view never starts from a snapshot) gives the same keys, byte for byte
    await rebuild({ auditView: "full" });
    expect(await auditBoard(c, "s", all, "full")).toMatchObject({ lost: 0, doubled: 0, misranked: 0 });
    for (let i = 0; i < SHARDS.length; i++) {
      const live = await stateOf(i, c.ns.keyPrefix);
      expect(Object.keys(live).some((k) => k.startsWith("dedup:"))).toBe(true);
      expect(live).toEqual(await stateOf(i, auditPrefix(c.ns.keyPrefix, "full")));
    }
  });

  it("a shard whose Redis lost its data refills from the snapshot plus the tail: refused until complete, exact after", async () => {
    const c = await cluster("snap-refill");
    const first = await writeLoad(c, { board: "s", run: "a", batches: 20, batchSize: 200, players: 2000 });
    await c.waitApplied(first.offsets);
    const snaps = await snapshotsOf(c);
    const retried = await retry(c, { board: "s", run: "a", batches: 20 });
    const second = await writeLoad(c, { board: "s", run: "b", batches: 10, batchSize: 200, players: 2000 });
    await c.waitApplied([...first.offsets, ...retried.offsets, ...second.offsets]);
    const all = oracleOf(first, second);
    const expectedTop = (await c.router.getTop({ board: "s", limit: 10 })).entries.map((e) => e.playerId).join(",");

    // delete the log before shard-1's snapshot: only a refill that loads the snapshot can complete
    await deleteLogBefore(c, snaps.get("shard-1")!);

    const lost = await clients[1]!.keys(`${c.ns.keyPrefix}*`);
    await clients[1]!.del(...lost);
    const seen = { ok: 0, unavailable: 0, partial: 0, other: [] as string[], reasons: new Set<string>() };
    let wholeInARow = 0;
    const until = Date.now() + 30_000;
    while (Date.now() < until && wholeInARow < 20) {
      const r = await outcome(c.router.getTop({ board: "s", limit: 10 }));
      if ("ok" in r) {
        seen.ok++;
        const whole = Number(r.ok.total) === all.sorted("s").length && r.ok.entries.map((e) => e.playerId).join(",") === expectedTop;
        if (whole) wholeInARow++;
        else seen.partial++;
      } else if (r.code === status.UNAVAILABLE) {
        seen.unavailable++;
        seen.reasons.add(r.details.replace(/\d+/g, "N"));
        wholeInARow = 0;
      } else seen.other.push(`${r.code} ${r.details}`);
    }
    console.log(`[snapshot] refill after data loss: ${JSON.stringify({ ...seen, reasons: [...seen.reasons] })}`);
    expect(seen.other).toEqual([]);
    expect(seen.partial).toBe(0);
    expect(seen.unavailable).toBeGreaterThan(0);
    expect(wholeInARow).toBe(20);
    expect(await auditBoard(c, "s", all)).toMatchObject({ lost: 0, doubled: 0, misranked: 0, events: 6000 });
    expect(c.services.shardNode("shard-1").output()).toMatch(/after Redis lost data: loaded snapshot/);

    // a shard node that starts on an empty Redis loads the snapshot before applying anything
    const shard2 = snaps.get("shard-2")!;
    await c.services.shardNode("shard-2").stop(10_000);
    await deleteLogBefore(c, shard2);
    await clients[2]!.del(...(await clients[2]!.keys(`${c.ns.keyPrefix}*`)));
    await c.services.restartShardNode("shard-2");
    await c.waitApplied([...first.offsets, ...retried.offsets, ...second.offsets]);
    expect(await auditBoard(c, "s", all)).toMatchObject({ lost: 0, doubled: 0, misranked: 0, events: 6000 });
    expect(c.services.shardNode("shard-2").output()).toMatch(new RegExp(`at start: loaded snapshot ${shard2.snapshotId}`));

    // a loss while records flow (the apply script finds Redis behind the records fetched, before any heartbeat does)
    await deleteLogBefore(c, snaps.get("shard-0")!);
    const third = await writeLoad(c, {
      board: "s",
      run: "c",
      batches: 10,
      batchSize: 200,
      players: 2000,
      afterBatch: async (b) => void (b === 2 && (await clients[0]!.del(...(await clients[0]!.keys(`${c.ns.keyPrefix}*`))))),
    });
    await c.waitApplied([...first.offsets, ...retried.offsets, ...second.offsets, ...third.offsets]);
    expect(await auditBoard(c, "s", oracleOf(first, second, third))).toMatchObject({ lost: 0, doubled: 0, misranked: 0, events: 8000 });
    const refilled = /"msg":"(after [^"]*: loaded snapshot[^"]*)"/.exec(c.services.shardNode("shard-0").output());
    console.log(`[snapshot] shard-0, data lost under writes: ${refilled?.[1]}`);
    expect(refilled).not.toBeNull();
  });

  it("ignores snapshots of another topic id or another configuration", async () => {
    const c = await cluster("snap-foreign");
    const first = await writeLoad(c, { board: "s", run: "a", batches: 20, batchSize: 200, players: 2000 });
    await c.waitApplied(first.offsets);
    const snaps = await snapshotsOf(c);
    // newer manifests of shard-1, naming the real snapshot's (intact) chunks, but built from another
    // topic id or configuration and claiming far more of the log than exists: used, they would lose records
    const real = snaps.get("shard-1")!;
    const ahead = Object.fromEntries(Object.entries(real.offsets).map(([p, o]) => [p, (BigInt(o) + 1_000_000n).toString()]));
    const otherBoards = new BoardSpecs([makeBoardSpec({ ...DEFAULT_BOARD, maxPoints: 1000 }).spec!]);
    const foreign = [
      builtFrom(stampOf(c, "shard-1"), "an-older-topic-id"), // the score topic was deleted and created again
      builtFrom(
        shardStamp({
          shardId: "shard-1",
          topic: c.ns.topic,
          numSlots: SLOTS,
          slots: placement.slotsOf.get("shard-1")!,
          boards: otherBoards,
        }),
        (await topicIds.idOf(c.ns.topic))!,
      ),
    ].map((from) => ({ ...real, builtFrom: from, offsets: ahead, records: real.records + 4_000_000, takenAtMs: Date.now() }));
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: snapshotTopicOf(c.ns.topic),
      messages: foreign.map((m) => ({ key: "shard-1", value: JSON.stringify(m), partition: 0 })),
    });
    await producer.disconnect();
    const second = await writeLoad(c, { board: "s", run: "b", batches: 10, batchSize: 200, players: 2000 });
    const offsets = [...first.offsets, ...second.offsets];
    await c.waitApplied(offsets);
    const all = oracleOf(first, second);

    // a rebuild uses the real snapshot, not the forged ones
    const progress = await rebuild({ shardIds: ["shard-1"] });
    expect(progress.at(-1)).toMatchObject({ shardId: "shard-1", phase: Phase.DONE, snapshotId: real.snapshotId });
    await c.waitApplied(offsets);
    expect(await auditBoard(c, "s", all)).toMatchObject({ lost: 0, doubled: 0, misranked: 0, events: 6000 });

    // and so does a shard node refilling after data loss
    const lost = await clients[1]!.keys(`${c.ns.keyPrefix}*`);
    await clients[1]!.del(...lost);
    await new Promise((r) => setTimeout(r, 1500)); // the node notices within a heartbeat (1 s here)
    await c.waitApplied(offsets);
    expect(await auditBoard(c, "s", all)).toMatchObject({ lost: 0, doubled: 0, misranked: 0, events: 6000 });
    const output = c.services.shardNode("shard-1").output();
    expect(output).toMatch(new RegExp(`after Redis lost data: loaded snapshot ${real.snapshotId}`));
    expect(output).toMatch(/snapshot ignored: snapshot [\w-]+: built from something else: score topic's id/);
    expect(output).toMatch(/snapshot ignored: snapshot [\w-]+: built from something else: board specs/);
  });
});
