// Rebuilding shards from the log through the admin rpc: a corrupted shard is replaced by a replay while
// reads go on (each answered from the old data or the new, never a mix), and audit views rebuilt as of a
// point in time (offsets, or ingest time) equal the oracle of what had been acknowledged by then, ranks
// included. Owns its Redis servers: a rebuild swaps whole databases.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { status } from "@grpc/grpc-js";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { silentLogger } from "@ladder/platform/logger";
import { keyLayout } from "@ladder/store";
import { startRedisServer, type RedisServer } from "@ladder/deploy/redis-server";
import { AdminService, Phase, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { Entry, PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";
import { pageProblems, plainEntry as plain } from "./oracle.js";
import { auditBoard, oracleOf, writeLoad } from "./write-load.js";

let dataDir: string;
let redis: RedisServer[];
let c: TestCluster;
let admin: ClientOf<typeof AdminService>;

const lastOffsets = (offsets: PartitionOffset[]) => {
  const max = new Map<number, bigint>();
  for (const o of offsets) if (o.offset > (max.get(o.partition) ?? -1n)) max.set(o.partition, o.offset);
  return [...max].map(([partition, offset]) => ({ partition, offset }));
};

const top10 = (page: { entries: Entry[]; total: bigint }) => ({ entries: page.entries.map(plain), total: Number(page.total) });

async function rebuild(req: object): Promise<RebuildShardsResponse[]> {
  const out: RebuildShardsResponse[] = [];
  for await (const p of admin.rebuildShards(req) as AsyncIterable<RebuildShardsResponse>) out.push(p);
  return out;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "ladder-rebuild-"));
  redis = await Promise.all(
    [0, 1, 2].map((i) => startRedisServer({ dataDir: join(dataDir, `redis-${i}`), persist: false, log: silentLogger() })),
  );
  c = await startTestCluster("rebuild", { redisUrls: redis.map((r) => r.url) });
  admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
}, 120_000);

afterAll(async () => {
  admin?.close();
  await c?.stop();
  await Promise.all((redis ?? []).map((r) => r.stop()));
  await rm(dataDir, { recursive: true, force: true });
});

describe("rebuild", () => {
  it("replaces a corrupted shard by a replay of the log, and builds audit views as of a point in time", async () => {
    const first = await writeLoad(c, { board: "r", run: "a", batches: 15, batchSize: 200, players: 2000 });
    await c.waitApplied(first.offsets);
    const cut = Date.now();
    await new Promise((r) => setTimeout(r, 50));
    const second = await writeLoad(c, { board: "r", run: "b", batches: 15, batchSize: 200, players: 2000 });
    await c.waitApplied(second.offsets);
    const all = oracleOf(first, second);
    expect(await auditBoard(c, "r", all)).toMatchObject({ lost: 0, doubled: 0, misranked: 0 });

    // a bug corrupts shard-1's board
    const shard1 = new Redis(redis[1]!.url);
    const boardKey = keyLayout(c.ns.keyPrefix).board("r");
    const [victim] = await shard1.zrange(boardKey, "0", "0");
    await shard1.zincrby(boardKey, "-5000000", victim!); // a much better (smaller) sort key
    await shard1.zadd(boardKey, "0", "intruder");
    const corruptedAudit = await auditBoard(c, "r", all);
    expect(corruptedAudit.doubled).toBeGreaterThan(0);
    expect(corruptedAudit.misranked).toBeGreaterThan(0); // the intruder ranks first: everyone's rank is off by one
    // the board is quiet: a read during the rebuild must be the corrupted board's answer or the oracle's
    const before = top10(await c.router.getTop({ board: "r", limit: 10 }));
    const sorted = all.sorted("r");
    const after = { entries: sorted.slice(0, 10), total: sorted.length };
    expect(before).not.toEqual(after);
    expect(pageProblems(after.entries, after.total, 1)).toEqual([]);

    // rebuild shard-1 while reads go on: they are answered throughout, from the old data or the new
    let reading = true;
    const readCodes = new Map<string | number, number>();
    const answers = { old: 0, new: 0, neither: [] as unknown[] };
    const reader = (async () => {
      while (reading) {
        const code = await c.router.getTop({ board: "r", limit: 10 }).then(
          (page) => {
            const got = top10(page);
            if (isDeepStrictEqual(got, before)) answers.old++;
            else if (isDeepStrictEqual(got, after)) answers.new++;
            else answers.neither.push(got);
            return "ok";
          },
          (e: { code: number }) => e.code,
        );
        readCodes.set(code, (readCodes.get(code) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const progress = await rebuild({ shardIds: ["shard-1"] });
    reading = false;
    await reader;
    expect(progress.at(-1)).toMatchObject({ shardId: "shard-1", phase: Phase.DONE });
    await c.waitApplied([...first.offsets, ...second.offsets]);
    const audit = await auditBoard(c, "r", all);
    console.log(
      `[rebuild] shard-1 replayed ${progress.at(-1)!.eventsReplayed} records; reads during it: ${JSON.stringify(Object.fromEntries(readCodes))}, answered from the old board ${answers.old}, the new ${answers.new}; after: ${JSON.stringify(audit)}`,
    );
    expect(audit).toMatchObject({ lost: 0, doubled: 0, misranked: 0, events: 6000 });
    expect(readCodes.get("ok")).toBeGreaterThan(0);
    expect(answers.neither).toEqual([]);
    expect(top10(await c.router.getTop({ board: "r", limit: 10 }))).toEqual(after);
    expect([...readCodes.keys()].filter((k) => k !== "ok" && k !== status.UNAVAILABLE)).toEqual([]);

    // audit views: as of the first load's offsets, and as of the time between the loads
    await rebuild({ auditView: "after-first", asOfOffsets: lastOffsets(first.offsets) });
    expect(await auditBoard(c, "r", first.oracle, "after-first")).toMatchObject({ lost: 0, doubled: 0, misranked: 0, events: 3000 });
    await rebuild({ auditView: "at-cut", asOfTimestampMs: BigInt(cut) });
    expect(await auditBoard(c, "r", first.oracle, "at-cut")).toMatchObject({ lost: 0, doubled: 0, misranked: 0 });
    // the live board is untouched by audit views
    expect(await auditBoard(c, "r", all)).toMatchObject({ lost: 0, doubled: 0, misranked: 0 });
    await shard1.quit();
  });

  it("needs the admin role, and checks its arguments", async () => {
    const asWriter = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.write);
    const code = async (p: AsyncIterable<unknown>) => {
      try {
        for await (const _ of p);
        return "ok";
      } catch (e) {
        return (e as { code: number }).code;
      }
    };
    expect(await code(asWriter.rebuildShards({}) as AsyncIterable<unknown>)).toBe(status.PERMISSION_DENIED);
    asWriter.close();
    expect(await code(admin.rebuildShards({ shardIds: ["nope"] }) as AsyncIterable<unknown>)).toBe(status.NOT_FOUND);
    expect(await code(admin.rebuildShards({ auditView: "bad view" }) as AsyncIterable<unknown>)).toBe(status.INVALID_ARGUMENT);
    expect(await code(admin.rebuildShards({ asOfTimestampMs: 5n }) as AsyncIterable<unknown>)).toBe(status.INVALID_ARGUMENT);
    // a view that was never built: NOT_FOUND, not an empty board
    const missing = await c.router.getTop({ board: "r", view: "no-such-view" }).then(
      () => "ok",
      (e: { code: number }) => e.code,
    );
    expect(missing).toBe(status.NOT_FOUND);
  });
});
