// Exact or refused while a shard refills or its applier is stuck (issue 7, item 2): after data loss a
// shard serves only once it holds every record that existed when the loss was noticed, never a
// partial board; a serving shard whose applier stops making progress, or stays too far behind, stops
// serving with a reason (the staleness bound may refuse it first: "shard node is not current") and
// serves again once it has caught up.
import { status } from "@grpc/grpc-js";
import { Redis } from "ioredis";
import { describe, expect, inject, it } from "vitest";
import { buildPlacement, shardOf } from "@ladder/model/placement";
import { keyLayout } from "@ladder/store";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { outcome, perTest, type TestCluster } from "./cluster-harness.js";

const { cluster, defer } = perTest();

function redisOf(shard: number): Redis {
  const r = new Redis(inject("redisUrls")[shard]!);
  defer(() => r.quit());
  return r;
}

/** Deletes every key of the cluster's namespace on one shard's Redis: what FLUSHALL does to that shard. */
async function loseData(r: Redis, prefix: string): Promise<number> {
  const keys = await r.keys(`${prefix}*`);
  if (keys.length) await r.del(...keys);
  return keys.length;
}

/** A player id that placement puts on `shardId` (12 slots over shard-0..2, as the test cluster runs). */
function playerOn(shardId: string, tag: string): string {
  const placement = buildPlacement(["shard-0", "shard-1", "shard-2"], 12);
  for (let i = 0; ; i++) if (shardOf(placement, `${tag}${i}`) === shardId) return `${tag}${i}`;
}

describe("readiness", () => {
  it("after a shard's Redis loses its data, serves no partial board: every answer is the whole board or UNAVAILABLE", async () => {
    const c = await cluster("ready-loss");
    const players = 3000;
    for (let i = 0; i < players; i += 1000) {
      const updates = Array.from({ length: 1000 }, (_, j) => ({
        board: "b",
        playerId: `p${i + j}`,
        op: Operation.SET,
        value: BigInt(i + j),
      }));
      await c.waitApplied((await c.ingest.submitScores({ updates })).offsets);
    }
    expect((await c.router.getTop({ board: "b", limit: 1 })).total).toBe(BigInt(players));
    const lost = await loseData(redisOf(1), c.ns.keyPrefix);
    expect(lost).toBeGreaterThan(2);
    const expectedTop = Array.from({ length: 10 }, (_, k) => `p${players - 1 - k}`).join(",");
    const seen = { ok: 0, unavailable: 0, partial: [] as number[], other: [] as string[] };
    const until = Date.now() + 20_000;
    let wholeInARow = 0;
    while (Date.now() < until && wholeInARow < 20) {
      const r = await outcome(c.router.getTop({ board: "b", limit: 10 }));
      if ("ok" in r) {
        seen.ok++;
        const total = Number(r.ok.total);
        const top = r.ok.entries.map((e) => e.playerId).join(",");
        if (total !== players || top !== expectedTop) seen.partial.push(total);
        else wholeInARow++;
      } else if (r.code === status.UNAVAILABLE) {
        seen.unavailable++;
        wholeInARow = 0;
      } else seen.other.push(`${r.code} ${r.details}`);
    }
    console.log(
      `[readiness] data loss: ${JSON.stringify({ ...seen, partial: seen.partial.length, partialTotals: [...new Set(seen.partial)].slice(0, 10) })}`,
    );
    expect(seen.other).toEqual([]);
    expect(seen.partial).toEqual([]); // never a partial board (a wrong total or top) served as exact
    expect(seen.unavailable).toBeGreaterThan(0); // it did refuse while refilling
    expect(wholeInARow).toBe(20); // and came back whole
  });

  it("stops serving when its applier makes no progress while behind, says why, and serves again once it catches up", async () => {
    const c = await cluster("ready-stall", { LADDER_STALL_MS: "1500" });
    await stuckApplier(c, 1, /shard-1: not serving reads: .*the applier applied nothing for \d+ s while 1 records behind the log/);
  });

  it("stops serving when it stays more records behind than allowed for longer than allowed", async () => {
    const c = await cluster("ready-lag", { LADDER_MAX_LAG: "0", LADDER_MAX_LAG_MS: "1000", LADDER_STALL_MS: "600000" });
    await stuckApplier(c, 2, /shard-2: not serving reads: .*1 records behind the log, more than 0 for over 1 s/);
  });
});

/**
 * Makes shard `shard`'s applier stuck behind the log (a board key of the wrong type makes every apply
 * of it fail, refused before any write: a batch that always fails), checks reads are refused with
 * `reason`, then fixes the key and checks the shard serves again with the stuck update applied.
 */
async function stuckApplier(c: TestCluster, shard: number, reason: RegExp): Promise<void> {
  const player = playerOn(`shard-${shard}`, "stuck");
  await c.waitApplied(
    (await c.ingest.submitScores({ updates: [{ board: "ok", playerId: player, op: Operation.SET, value: 1n }] })).offsets,
  );
  const redis = redisOf(shard);
  const poisoned = keyLayout(c.ns.keyPrefix).board("stuck");
  await redis.set(poisoned, "not a sorted set");
  await c.ingest.submitScores({ updates: [{ board: "stuck", playerId: player, op: Operation.SET, value: 7n }] });
  // the staleness bound (LADDER_STALL_MS after it last held the log's end) may refuse it first; then the
  // node's own stall or lag rule withdraws it, with its reason
  const earlier: Array<{ code: number; details: string }> = [];
  const refused = await waitFor(async () => {
    const r = await outcome(c.router.getTop({ board: "ok", limit: 1 }));
    if (!("code" in r)) return undefined;
    if (reason.test(r.details)) return r;
    earlier.push(r);
    return undefined;
  });
  expect(refused.code).toBe(status.UNAVAILABLE);
  const notCurrent = new RegExp(
    `^shard-${shard}: shard node is not current \\(it last held the log's end \\d+ ms ago; the bound is \\d+ ms\\), retry$`,
  );
  expect(earlier.filter((r) => r.code !== status.UNAVAILABLE || !notCurrent.test(r.details))).toEqual([]);
  await redis.del(poisoned); // the operator fixes it: the applier's next retry goes through
  const back = await waitFor(async () => {
    const r = await outcome(c.router.getRank({ board: "stuck", playerId: player }));
    return "ok" in r ? r.ok : undefined;
  }, 60_000);
  expect(back.entry!.score).toBe(7n);
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not seen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
