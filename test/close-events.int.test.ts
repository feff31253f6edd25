// A period's close event, exactly once (issue #29, item 1), against real processes: a board of
// one-minute periods closes; the closer is killed mid-close twice, first right after it wrote the
// close markers, then after it sent the close event in its transaction but before the commit; then
// two routers close at once. The closes topic then holds exactly one committed event for the period
// (the killed transaction's record aborted), whose size, top K with ranks and checksum of the whole
// board, and the rewards the board declares by rank (one per rewarded player) equal what an oracle
// of every acknowledged write gives, and the frozen period equals it.
import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { createClient } from "@ladder/client/grpc-stub";
import { LogClient } from "@ladder/log/log-client";
import { closesTopicOf, PeriodCloses } from "@ladder/log/period-closes";
import { silentLogger } from "@ladder/platform/logger";
import { spawnService } from "@ladder/deploy/spawn-service";
import { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, PeriodKind, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { inject } from "vitest";
import { startTestCluster, type TestCluster, TEST_TOKENS } from "./cluster-harness.js";
import { RulesOracle, type Rules } from "./rules-oracle.js";

const log = silentLogger();
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
});

const GRACE_MS = 1000;
const TOP_K = 5;
const RULES: Rules = {
  lowerIsBetter: false,
  tie: "earliest",
  minPoints: 0,
  maxPoints: 1_000_000,
  resolutionMs: 1000,
  epochMs: Date.UTC(2026, 0, 1),
};

/** Starts a router process of `c` with `crashAt` (LADDER_CLOSER_CRASH_AT). */
async function router(c: TestCluster, name: string, crashAt: string) {
  const started = await spawnService({
    name,
    entry: "router/src/main.ts",
    env: { ...process.env, ...c.services.envOf("router"), LADDER_ROUTER_LISTEN: "127.0.0.1:0", LADDER_CLOSER_CRASH_AT: crashAt },
    ready: "router listening",
    timeoutMs: 60_000,
    log,
  });
  cleanups.push(() => started.process.stop(10_000));
  return started;
}

describe("period close events", () => {
  it("writes one close event per period, whatever closer dies mid-close, equal to an oracle", async () => {
    const c = await startTestCluster("close-events", { settings: { LADDER_IMPLICIT_BOARDS: "0", LADDER_SNAPSHOTS: "0" } });
    cleanups.push(() => c.stop());
    const admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
    cleanups.push(async () => admin.close());
    const created = await admin.createBoard({
      board: {
        name: "cup",
        defaultOp: Operation.INCREMENT,
        rules: {
          maxPoints: 1_000_000n,
          resolutionMs: 1000,
          period: PeriodKind.CRON,
          cron: "* * * * *",
          keepPeriods: 10,
          close: {
            graceMs: BigInt(GRACE_MS),
            topK: TOP_K,
            // rank 1, 2 to 10, the top 25% (of 80: ranks 1 to 20, so 11 to 20), 70 to 200 (of 80: 70 to 80)
            rewards: [
              { reward: "gold", fromRank: 1n },
              { reward: "silver", fromRank: 2n, toRank: 10n },
              { reward: "top25", topPercent: 25 },
              { reward: "tail", fromRank: 70n, toRank: 200n },
            ],
          },
        },
      },
    });
    const generation = created.board!.rules!.generation;
    const [current] = (await c.router.listPeriods({ board: "cup" })).periods;
    const [period, start] = [current!.id, Number(current!.startMs)];

    // 80 players, many tied on points (and on the second they reached them): every acknowledged write in the oracle
    const oracle = new RulesOracle(RULES);
    const offsets: PartitionOffset[] = [];
    for (let attempt = 0; offsets.length === 0; attempt++) {
      const updates = Array.from({ length: 80 }, (_, i) => ({
        board: "cup",
        playerId: `p-${i}`,
        value: BigInt(1 + (i % 7)),
        timestampMs: BigInt(start + (i % 3) * 1000),
      }));
      const res = await c.ingest.submitScores({ updates }).catch((err: Error) => {
        if (attempt > 100) throw err;
        return undefined; // ingest has not read the definition yet
      });
      if (!res) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      offsets.push(...res.offsets);
      for (const u of updates) oracle.apply(u.playerId, "inc", Number(u.value), Number(u.timestampMs));
    }
    await c.waitApplied(offsets);
    await c.services.router().stop(10_000); // the harness's router closes nothing

    const client = LogClient.unconnected(inject("kafkaBrokers"), "test-closes", log);
    cleanups.push(() => client.close());
    const closes = await PeriodCloses.start({ client, topic: closesTopicOf(c.ns.topic), log });
    cleanups.push(() => closes.stop());
    const key = `cup#${generation}@${period}`;

    // killed right after writing the close markers: no event
    const first = await router(c, "router-crash-markers", "markers");
    expect((await first.process.exited).code).toBe(86);
    expect(closes.timesWritten(key)).toBe(0);
    // killed after sending the close event in its transaction, before the commit: the record is in the log, not committed
    const second = await router(c, "router-crash-event", "event");
    expect((await second.process.exited).code).toBe(87); // 87: exited between the transaction's send and its commit
    await new Promise((r) => setTimeout(r, 1000)); // a committed event would be read by then (the follower reads committed records only)
    expect(closes.timesWritten(key)).toBe(0);

    // two routers close at once: the first fences the killed transaction, one event is committed
    const [third, fourth] = await Promise.all([router(c, "router-close-a", ""), router(c, "router-close-b", "")]);
    for (const from = Date.now(); !closes.get(key); ) {
      if (Date.now() - from > 90_000) throw new Error("no close event within 90 s");
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 3000)); // time for a second event, were one to come
    // every committed record of the topic, read again from its start by a fresh follower
    const again = await PeriodCloses.start({ client, topic: closesTopicOf(c.ns.topic), log });
    cleanups.push(() => again.stop());
    expect([closes.timesWritten(key), again.timesWritten(key)]).toEqual([1, 1]);
    const e = again.get(key)!;

    // the event against the oracle: size, top K with ranks, checksum of the whole board
    const want = oracle.sorted();
    expect([e.period, Number(e.startMs), Number(e.endMs), Number(e.closeAtMs)]).toEqual([
      period,
      start,
      start + 60_000,
      start + 60_000 + GRACE_MS,
    ]);
    expect(Number(e.size)).toBe(want.length);
    expect(e.top.map((t) => [Number(t.rank), t.playerId, Number(t.score), Number(t.reachedAtMs)])).toEqual(
      want.slice(0, TOP_K).map((w) => [w.rank, w.playerId, w.score, w.reachedAtMs]),
    );
    const lines = want.map((w) => `${w.rank}\t${w.playerId}\t${w.score}\t${w.reachedAtMs}\n`).join("");
    expect(e.checksum).toBe(createHash("sha256").update(lines).digest("hex"));

    // rewards: one per rewarded player, in rank order, as declared (worked out here from the ranks)
    const rewardOf = (rank: number) =>
      rank === 1 ? "gold" : rank <= 10 ? "silver" : rank <= Math.ceil((want.length * 25) / 100) ? "top25" : rank >= 70 ? "tail" : undefined;
    expect(e.rewards.map((r) => [r.playerId, Number(r.rank), Number(r.score), r.reward])).toEqual(
      want.flatMap((w) => (rewardOf(w.rank) ? [[w.playerId, w.rank, w.score, rewardOf(w.rank)]] : [])),
    );
    expect(e.rewards.map((r) => r.reward).filter((r, i, all) => all.indexOf(r) === i)).toEqual(["gold", "silver", "top25", "tail"]);

    // the frozen period, and the event through the routers that wrote it
    for (const r of [third, fourth]) {
      const address = `127.0.0.1:${r.port}`;
      const reads = createClient(LeaderboardService, address, undefined, {}, TEST_TOKENS.read);
      const top = await reads.getTop({ board: "cup", period, limit: 1000 });
      expect(top.entries.map((x) => [x.playerId, Number(x.score), Number(x.rank)])).toEqual(want.map((w) => [w.playerId, w.score, w.rank]));
      reads.close();
      const adminOf = createClient(AdminService, address, undefined, {}, TEST_TOKENS.admin);
      const listed = await adminOf.listCloses({ board: "cup" });
      // the period's close, once; a slow run also sees the next minutes' periods close (empty: nobody wrote there)
      expect(listed.closes.filter((x) => x.period === period).map((x) => x.checksum)).toEqual([e.checksum]);
      expect(listed.closes.filter((x) => x.period !== period).map((x) => Number(x.size))).toEqual(
        listed.closes.filter((x) => x.period !== period).map(() => 0),
      );
      adminOf.close();
    }
  });
});
