// Rebuilds are exclusive, cancellable, fail on a gap and honour deadlines (docs/operations.md, "Rebuilding a shard"):
// two rebuilds of one shard at once (one runs, the other is refused with ABORTED naming it), a lease left
// by a crashed rebuild (refused until it expires), a rebuild cancelled midway through the rpc and through
// the CLI's Ctrl-C, one past its deadline, and one whose target is written to behind its back (a GAP).
// After every refused, cancelled or failed rebuild the live board equals the oracle, nothing was swapped
// (a marker key in the live database stays there), the spare database is empty and the lease is free.
// Owns its Redis servers: a rebuild swaps whole databases, and the checks count a database's keys.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { status } from "@grpc/grpc-js";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClient, type CallOptions, type ClientOf } from "@ladder/client/grpc-stub";
import { silentLogger } from "@ladder/platform/logger";
import { keyLayout } from "@ladder/store";
import { builtEntry } from "@ladder/deploy/built-entry";
import { startRedisServer, type RedisServer } from "@ladder/deploy/redis-server";
import { AdminService, Phase, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";
import { auditBoard, writeLoad } from "./write-load.js";

const REPO = fileURLToPath(new URL("../", import.meta.url));
const SHARD = "shard-1";
const BOARD = "lease";
/** Records per apply-script call of the router's rebuilds: one, so a replay lasts seconds (the shard nodes keep the default, so the seed applies quickly). */
const APPLY_BATCH = "1";
/** Updates seeded through ingest before the tests (a third of them land on shard-1). */
const SEED_BATCHES = 120;
const SEED_BATCH_SIZE = 1000;

let dataDir: string;
let redis: RedisServer[];
let c: TestCluster;
let admin: ClientOf<typeof AdminService>;
let live: Redis; // shard-1's Redis, database 0
let spare: Redis; // shard-1's Redis, the spare database (LADDER_REBUILD_DB, 1)
let expected: Map<string, number>;
let leaseKey: string;
const marker = () => `${c.ns.keyPrefix.slice(0, -1)}-marker`; // outside the key prefix: no rebuild deletes it, SWAPDB moves it

interface Outcome {
  ok: boolean;
  code?: number;
  details?: string;
  messages: RebuildShardsResponse[];
}

/** A RebuildShards call: its messages as they come, and how it ended. */
function startRebuild(req: object, opts?: CallOptions) {
  const call = admin.rebuildShards(req, opts);
  const messages: RebuildShardsResponse[] = [];
  const outcome: Promise<Outcome> = (async () => {
    try {
      for await (const m of call as AsyncIterable<RebuildShardsResponse>) messages.push(m);
      return { ok: true, messages };
    } catch (e) {
      const err = e as { code?: number; details?: string };
      return { ok: false, code: err.code, details: err.details, messages };
    }
  })();
  let ended = false;
  void outcome.then(() => (ended = true));
  /** Resolves with the first message that satisfies `pred`; fails if the call ends first. */
  async function until(pred: (m: RebuildShardsResponse) => boolean, timeoutMs = 30_000): Promise<RebuildShardsResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = messages.find(pred);
      if (hit) return hit;
      if (ended)
        throw new Error(
          `the rebuild ended before the awaited message: ${JSON.stringify(await outcome, (_, v) => (typeof v === "bigint" ? String(v) : v))}`,
        );
      if (Date.now() > deadline) throw new Error(`no such message within ${timeoutMs} ms`);
      await sleep(10);
    }
  }
  return { call, messages, outcome, until };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until shard-1's rebuild lease is free (the rebuild released it after cleaning up). */
async function leaseFreed(timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await live.exists(leaseKey)) === 1) {
    if (Date.now() > deadline) throw new Error(`the rebuild lease is still held after ${timeoutMs} ms: ${await live.get(leaseKey)}`);
    await sleep(50);
  }
}

/** Nothing was swapped, the spare database is empty, the lease is free, the board is the oracle's. */
async function untouched(): Promise<void> {
  await leaseFreed();
  expect(await live.get(marker())).toBe("live"); // a SWAPDB would have moved it to the spare database
  expect(await spare.dbsize()).toBe(0);
  expect(await auditBoard(c, BOARD, expected)).toMatchObject({ lost: 0, doubled: 0 });
}

/** A rebuild of shard-1 that runs to DONE, and the board equals the oracle after it. */
async function rebuildsToDone(): Promise<void> {
  await live.del(marker()); // a swap moves it
  const run = await startRebuild({ shardIds: [SHARD] }).outcome;
  expect(run).toMatchObject({ ok: true });
  expect(run.messages.at(-1)).toMatchObject({ shardId: SHARD, phase: Phase.DONE });
  await leaseFreed();
  expect(await spare.dbsize()).toBe(0);
  await waitBoard();
}

/** After a swap the shard node applies the newest records again: wait until the board is the oracle's. */
async function waitBoard(timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const audit = await auditBoard(c, BOARD, expected).catch((e: { code?: number }) => ({ code: e.code, lost: -1, doubled: -1 }));
    if (audit.lost === 0 && audit.doubled === 0) return;
    if (Date.now() > deadline) expect(audit).toMatchObject({ lost: 0, doubled: 0 });
    await sleep(100);
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "ladder-rebuild-lease-"));
  redis = await Promise.all(
    [0, 1, 2].map((i) => startRedisServer({ dataDir: join(dataDir, `redis-${i}`), persist: false, log: silentLogger() })),
  );
  c = await startTestCluster("lease", { redisUrls: redis.map((r) => r.url), own: { router: { LADDER_APPLY_BATCH: APPLY_BATCH } } });
  admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
  live = new Redis(redis[1]!.url, { db: 0 });
  spare = new Redis(redis[1]!.url, { db: 1 });
  leaseKey = keyLayout(c.ns.keyPrefix).rebuildLease;
  const load = await writeLoad(c, { board: BOARD, batches: SEED_BATCHES, batchSize: SEED_BATCH_SIZE, players: 5000 });
  await c.waitApplied(load.offsets, 120_000);
  expected = load.expected;
}, 240_000);

beforeEach(async () => {
  await leaseFreed();
  await live.set(marker(), "live");
  await spare.del(marker());
});

afterAll(async () => {
  admin?.close();
  live?.disconnect();
  spare?.disconnect();
  await c?.stop();
  await Promise.all((redis ?? []).map((r) => r.stop()));
  await rm(dataDir, { recursive: true, force: true });
});

describe("rebuild lease", () => {
  it("runs one of two concurrent rebuilds of a shard; the other is refused with ABORTED naming it", async () => {
    await live.del(marker()); // a swap moves it
    const first = startRebuild({ shardIds: [SHARD] });
    const second = startRebuild({ shardIds: [SHARD] });
    const [a, b] = await Promise.all([first.outcome, second.outcome]);
    const done = [a, b].filter((o) => o.ok);
    const refused = [a, b].filter((o) => !o.ok);
    expect(done).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(done[0]!.messages.at(-1)).toMatchObject({ shardId: SHARD, phase: Phase.DONE });
    const winner = done[0]!.messages[0]!.rebuildId;
    expect(winner).not.toBe("");
    expect(refused[0]).toMatchObject({ code: status.ABORTED });
    expect(refused[0]!.details).toContain(winner);
    expect(refused[0]!.details).toContain("swap");
    expect(refused[0]!.details).toMatch(/since \d{4}-\d\d-\d\dT/);
    console.log(`[lease] refused: ${refused[0]!.details}`);
    await leaseFreed();
    expect(await spare.dbsize()).toBe(0);
    await waitBoard();
  });

  it("refuses a rebuild while a crashed rebuild's lease lives, and runs once it expired", async () => {
    const crashed = JSON.stringify({ id: "crashed-rebuild", mode: "swap", holder: "gone-host pid 1", startedAtMs: Date.now() - 60_000 });
    await live.set(leaseKey, crashed, "PX", 2000); // its last renewal was TTL - 2 s ago
    const refused = await startRebuild({ shardIds: [SHARD] }).outcome;
    expect(refused).toMatchObject({ ok: false, code: status.ABORTED });
    expect(refused.details).toContain("crashed-rebuild");
    expect(await live.get(leaseKey)).toBe(crashed); // not taken over, not deleted
    // a call for every shard takes all their leases or none: shard-0 and shard-2 are left free
    const all = await startRebuild({}).outcome;
    expect(all).toMatchObject({ ok: false, code: status.ABORTED, messages: [] });
    expect(all.details).toContain("crashed-rebuild");
    for (const r of [redis[0]!, redis[2]!]) {
      const other = new Redis(r.url);
      expect(await other.exists(leaseKey)).toBe(0);
      other.disconnect();
    }
    await untouched();
    await rebuildsToDone(); // the lease expired meanwhile
  });

  it("stops a rebuild cancelled midway: nothing swapped, spare database emptied, lease released", async () => {
    const run = startRebuild({ shardIds: [SHARD] });
    const midway = await run.until((m) => m.eventsReplayed > 0n && m.lag > 0n && m.phase === Phase.REPLAYING);
    // while it runs: ListRebuilds names it, and an audit view of the shard is refused too (one lease per shard)
    const { rebuilds } = await admin.listRebuilds({ shardIds: [SHARD] });
    expect(rebuilds).toMatchObject([{ shardId: SHARD, rebuildId: midway.rebuildId, mode: "swap" }]);
    const view = await startRebuild({ shardIds: [SHARD], auditView: "during-swap" }).outcome;
    expect(view).toMatchObject({ ok: false, code: status.ABORTED });
    expect(view.details).toContain(midway.rebuildId);
    run.call.cancel();
    expect(await run.outcome).toMatchObject({ ok: false, code: status.CANCELLED });
    console.log(`[lease] cancelled at ${midway.eventsReplayed} records replayed, lag ${midway.lag}`);
    await untouched();
    await rebuildsToDone();
  });

  it("stops a rebuild at its deadline, and cleans up", async () => {
    const run = startRebuild({ shardIds: [SHARD] }, { timeoutMs: 2500 });
    await run.until((m) => m.eventsReplayed > 0n && m.phase === Phase.REPLAYING);
    // hold the shard's Redis writes (reads go on, keys do not expire) past the deadline, so the deadline
    // passes mid-replay however fast this machine replays the log (it once finished in 2.1 s)
    const pauser = new Redis(redis[1]!.url);
    await pauser.call("CLIENT", "PAUSE", "4000", "WRITE");
    pauser.disconnect();
    expect(await run.outcome).toMatchObject({ ok: false, code: status.DEADLINE_EXCEEDED });
    await untouched();
  });

  it("fails a rebuild whose target is written to behind its back (a GAP), and swaps nothing", async () => {
    const run = startRebuild({ shardIds: [SHARD] });
    await run.until((m) => m.eventsReplayed > 0n && m.lag > 0n && m.phase === Phase.REPLAYING);
    await spare.del(keyLayout(c.ns.keyPrefix).offsets); // "something else" resets the replay's applied offsets
    const failed = await run.outcome;
    expect(failed).toMatchObject({ ok: false, code: status.ABORTED });
    expect(failed.details).toMatch(/partition \d+/);
    expect(failed.details).toContain("gap");
    console.log(`[lease] gap: ${failed.details}`);
    expect(failed.messages.some((m) => m.phase === Phase.DONE)).toBe(false);
    await untouched();
  });

  it("cancels through the CLI's Ctrl-C: exits non-zero once the server cleaned up", async () => {
    const cli = spawn(
      process.execPath,
      [builtEntry("cli/src/main.ts"), "rebuild", "--shard", SHARD, "--router", c.services.routerAddress, "--token", TEST_TOKENS.admin],
      {
        cwd: REPO,
        env: { ...process.env, LADDER_LOG_LEVEL: "warn" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    cli.stdout.on("data", (d: Buffer) => void (stdout += d.toString()));
    cli.stderr.on("data", (d: Buffer) => void (stderr += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      cli.on("exit", (code, signal) => resolve({ code, signal })),
    );
    const deadline = Date.now() + 30_000;
    while (!/replaying\s+[1-9]\d* records/.test(stdout)) {
      if (Date.now() > deadline || cli.exitCode !== null) throw new Error(`the CLI showed no progress: ${stdout} ${stderr}`);
      await sleep(20);
    }
    cli.kill("SIGINT");
    const exit = await Promise.race([exited, sleep(30_000).then(() => ({ code: -1, signal: null }))]);
    console.log(`[lease] CLI after Ctrl-C: exit ${JSON.stringify(exit)}; stderr: ${stderr.trim()}`);
    expect(exit).toMatchObject({ code: 130, signal: null });
    expect(stderr).toMatch(/cancelled/);
    expect(stderr).toMatch(/cleaned up/);
    expect(await live.exists(leaseKey)).toBe(0); // the CLI exited after the clean-up, not before
    await untouched();
  });
});
