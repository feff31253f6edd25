// Closing periods (issue #29, item 1) against the real processes: a board of one-minute periods
// (cron) with a grace of 2 s. Writers write into the current minute (late events included, within
// the grace) while readers check every answer; from the close time on ingest refuses writes into it
// (FAILED_PRECONDITION naming the period and its close time), the router's closer writes a close
// marker into every partition, and every shard records it. The frozen period then equals an oracle of
// every acknowledged write; a record of the period written straight to the log after the markers
// (an ingest that took it before the close) is ignored; the same after a rebuild from the log.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { status } from "@grpc/grpc-js";
import { Redis } from "ioredis";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { LogClient } from "@ladder/log/log-client";
import { silentLogger } from "@ladder/platform/logger";
import { startRedisServer } from "@ladder/deploy/redis-server";
import { encodeScoreEvent } from "@ladder/model/score-event";
import { slotOf } from "@ladder/model/placement";
import { AdminService, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, PeriodKind, type Entry, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { outcome, startTestCluster, type TestCluster, TEST_TOKENS } from "./cluster-harness.js";
import { rulesPageProblems, RulesOracle, type Rules } from "./rules-oracle.js";

const log = silentLogger();
const cleanups: Array<() => Promise<unknown>> = [];
let dataDir: string | undefined;
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const SLOTS = 12; // LADDER_SLOTS in the tests
const GRACE_MS = 2000;
const RULES: Rules = {
  lowerIsBetter: false,
  tie: "earliest",
  minPoints: 0,
  maxPoints: 1_000_000,
  resolutionMs: 1000,
  epochMs: Date.UTC(2026, 0, 1),
};
const plain = (e: Entry) => ({ playerId: e.playerId, score: Number(e.score), reachedAtMs: Number(e.reachedAtMs), rank: Number(e.rank) });

/** The partitions that recorded the close marker of stored period `stem`, over every shard's Redis. */
async function closedPartitions(redisUrls: string[], prefix: string, stem: string): Promise<number[]> {
  const found: number[] = [];
  for (const url of redisUrls) {
    const r = new Redis(url);
    for (const m of await r.zrange(`${prefix}board:~deleted`, "0", "-1"))
      if (m.startsWith(`${stem}\n`)) found.push(Number(m.slice(stem.length + 1)));
    r.disconnect();
  }
  return found.sort((a, b) => a - b);
}

describe("closing periods", () => {
  it("freezes a period at its close: writes refused, late records ignored, equal to an oracle and after a rebuild", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "ladder-closes-"));
    const redis = await Promise.all([0, 1, 2].map((i) => startRedisServer({ dataDir: join(dataDir!, `r-${i}`), persist: false, log })));
    cleanups.push(() => Promise.all(redis.map((r) => r.stop())));
    const redisUrls = redis.map((r) => r.url);
    const c: TestCluster = await startTestCluster("closes", {
      redisUrls,
      settings: { LADDER_IMPLICIT_BOARDS: "0", LADDER_SNAPSHOTS: "0" },
    });
    cleanups.push(() => c.stop());
    const admin: ClientOf<typeof AdminService> = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
    cleanups.push(async () => admin.close());

    const created = await admin.createBoard({
      board: {
        name: "minutes",
        defaultOp: Operation.INCREMENT,
        rules: {
          maxPoints: 1_000_000n,
          resolutionMs: 1000,
          period: PeriodKind.CRON,
          cron: "* * * * *",
          keepPeriods: 10,
          close: { graceMs: BigInt(GRACE_MS) },
        },
      },
    });
    const generation = created.board!.rules!.generation;
    // the minute under way: it closes at its end plus the grace
    const [current] = (await c.router.listPeriods({ board: "minutes" })).periods;
    const [period, start, end] = [current!.id, Number(current!.startMs), Number(current!.endMs)];
    expect([start % 60_000, end - start]).toEqual([0, 60_000]);
    const closeAt = end + GRACE_MS;
    for (const from = Date.now(); ; ) {
      const o = await outcome(
        c.ingest.submitScores({ updates: [{ board: "minutes", playerId: "probe", value: 1n, timestampMs: BigInt(start) }] }),
      );
      if ("ok" in o) break;
      if (Date.now() - from > 10_000) throw new Error(`ingest still refuses the board: ${o.details}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const oracle = new RulesOracle(RULES);
    oracle.apply("probe", "inc", 1, start);

    // readers check every answer of the period while writers write into it until ingest refuses
    const problems: string[] = [];
    let answers = 0;
    let stop = false;
    const readers = Array.from({ length: 2 }, async (_, r) => {
      for (let n = r; !stop; n++) {
        const got = await outcome<{ entries?: Entry[]; entry?: Entry; total: bigint }>(
          n % 3 === 0
            ? c.router.getTop({ board: "minutes", period, limit: 50 })
            : n % 3 === 1
              ? c.router.getAround({ board: "minutes", period, playerId: `p-${n % 30}`, radius: 3 })
              : c.router.getRank({ board: "minutes", period, playerId: `p-${n % 30}` }),
        );
        if ("code" in got) {
          // a refusal (a shard node starved on a busy machine: UNAVAILABLE) is no wrong answer
          if (got.code !== status.NOT_FOUND && got.code !== status.UNAVAILABLE) problems.push(`code ${got.code} ${got.details}`);
          continue;
        }
        answers++;
        problems.push(...rulesPageProblems(RULES, (got.ok.entries ?? [got.ok.entry!]).map(plain), Number(got.ok.total)));
      }
    });
    const offsets: PartitionOffset[] = [];
    let refusal = "";
    let lateAccepted = 0;
    for (let round = 0; refusal === ""; round++) {
      const updates = Array.from({ length: 10 }, (_, i) => ({
        board: "minutes",
        playerId: `p-${(round * 7 + i) % 30}`,
        value: BigInt(1 + ((round * 13 + i) % 20)),
        timestampMs: BigInt(start + (((round * 10 + i) * 997) % 60_000)),
      }));
      const sentAt = Date.now();
      const o = await outcome(c.ingest.submitScores({ updates }));
      if ("code" in o) {
        // refused whole from the close time on (nothing written); never before it
        expect(o.code, o.details).toBe(status.FAILED_PRECONDITION);
        expect(Date.now()).toBeGreaterThanOrEqual(closeAt);
        refusal = o.details;
        break;
      }
      expect(sentAt).toBeLessThan(closeAt);
      if (sentAt >= end) lateAccepted++;
      offsets.push(...o.ok.offsets);
      for (const u of updates) oracle.apply(u.playerId, "inc", Number(u.value), Number(u.timestampMs));
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(refusal).toContain(`period ${period} of board "minutes" closed at ${new Date(closeAt).toISOString()}`);
    expect(lateAccepted).toBeGreaterThan(0); // events after the end, within the grace, counted

    // the closer writes the markers (settle time after the close): every partition records one
    const stem = `minutes#${generation}@${period}`;
    for (const from = Date.now(); (await closedPartitions(redisUrls, c.ns.keyPrefix, stem)).length < SLOTS; ) {
      if (Date.now() - from > 60_000) throw new Error(`closed partitions: ${await closedPartitions(redisUrls, c.ns.keyPrefix, stem)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await closedPartitions(redisUrls, c.ns.keyPrefix, stem)).toEqual(Array.from({ length: SLOTS }, (_, i) => i));
    await c.waitApplied(offsets);
    stop = true;
    await Promise.all(readers);
    expect(problems).toEqual([]);
    expect(answers).toBeGreaterThan(0);

    const frozen = async (when: string) => {
      const got = await c.router.getTop({ board: "minutes", period, limit: 1000 });
      expect(got.entries.map(plain), when).toEqual(oracle.sorted());
    };
    await frozen("at rest");

    // a record of the period written straight to the log after the markers is ignored
    const producer = await LogClient.unconnected(inject("kafkaBrokers"), "test-late", log).producer();
    const late = encodeScoreEvent(
      { board: "minutes", playerId: "p-1", op: Operation.INCREMENT, value: 500n, timestampMs: BigInt(start + 1000), eventId: "" },
      Date.now(),
      { rules: created.board!.rules!, period: { id: period, expireAtMs: end + 10 * 60_000 } },
    );
    const [sent] = await producer.send(c.ns.topic, [{ key: "p-1", value: late, partition: slotOf("p-1", SLOTS) }]);
    await producer.disconnect();
    await c.waitApplied([{ partition: sent!.partition, offset: BigInt(sent!.baseOffset) } as PartitionOffset]);
    await frozen("after a late record");

    for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
    await c.waitApplied([...offsets, { partition: sent!.partition, offset: BigInt(sent!.baseOffset) } as PartitionOffset]);
    await frozen("after a rebuild");
    expect(await closedPartitions(redisUrls, c.ns.keyPrefix, stem)).toHaveLength(SLOTS);

    // bad close rules: refused, naming the field and the limit
    const bad = await outcome(admin.createBoard({ board: { name: "bad", rules: { close: { graceMs: 1000n } } } }));
    expect("code" in bad && [bad.code, bad.details]).toEqual([
      status.INVALID_ARGUMENT,
      expect.stringMatching(/close is only for a board with periods/),
    ]);
    const long = await outcome(
      admin.createBoard({ board: { name: "bad", rules: { period: PeriodKind.DAILY, close: { graceMs: 31n * 86_400_000n } } } }),
    );
    expect("code" in long && long.details).toMatch(/close.grace_ms must be 0 to 2592000000 \(30 days\), got 2678400000/);
  });
});
