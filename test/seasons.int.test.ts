// Seasons (issue #29, item 1) against the real processes: a board of 7-day seasons with 3-day gaps
// in Paris. Writes land in the season of their own time; a write in a gap or before season 1 is
// refused (FAILED_PRECONDITION, naming the season), nothing written; GetBoard and ListBoards give
// the next reset (the next season's start), ListPeriods the kept seasons. Writers fill two seasons
// while readers check every answer; then each season equals a brute-force oracle, at rest and after
// every shard was rebuilt from the log. The calendar is worked out here with plain arithmetic on
// UTC days (Paris midnight is 22:00 or 23:00 UTC the day before), independently of model/.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { status } from "@grpc/grpc-js";
import { afterAll, describe, expect, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { silentLogger } from "@ladder/platform/logger";
import { startRedisServer } from "@ladder/deploy/redis-server";
import { AdminService, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, PeriodKind, type Entry, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { outcome, startTestCluster, type TestCluster, TEST_TOKENS } from "./cluster-harness.js";
import { localParts } from "./period-oracle.js";
import { rulesPageProblems, RulesOracle, type Rules } from "./rules-oracle.js";

const log = silentLogger();
const cleanups: Array<() => Promise<unknown>> = [];
let dataDir: string | undefined;
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const DAY = 86_400_000;
const RULES: Rules = {
  lowerIsBetter: false,
  tie: "earliest",
  minPoints: 0,
  maxPoints: 1_000_000,
  resolutionMs: 1000,
  epochMs: Date.UTC(2026, 0, 1),
};
const ZONE = "Europe/Paris";

/** The instant of Paris midnight starting the local day `dayMs` (Date.UTC of that date). */
function parisMidnight(dayMs: number): number {
  for (const offsetH of [1, 2]) {
    const t = dayMs - offsetH * 3600_000;
    const l = localParts(t, ZONE);
    if (l.hour === 0 && l.minute === 0 && Date.UTC(l.year, l.month - 1, l.day) === dayMs) return t;
  }
  throw new Error("Paris is one or two hours ahead of UTC");
}

describe("seasons", () => {
  it("places writes in seasons, refuses gaps, reports the next reset, equal to an oracle and after a rebuild", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "ladder-seasons-"));
    const redis = await Promise.all([0, 1, 2].map((i) => startRedisServer({ dataDir: join(dataDir!, `r-${i}`), persist: false, log })));
    cleanups.push(() => Promise.all(redis.map((r) => r.stop())));
    const c: TestCluster = await startTestCluster("seasons", {
      redisUrls: redis.map((r) => r.url),
      settings: { LADDER_IMPLICIT_BOARDS: "0", LADDER_SNAPSHOTS: "0" },
    });
    cleanups.push(() => c.stop());
    const admin: ClientOf<typeof AdminService> = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
    cleanups.push(async () => admin.close());

    // seasons of 7 days, 3-day gaps; season 1 started 13 Paris days ago: season 2 runs from 3 days ago to 4 days ahead
    const today = localParts(Date.now(), ZONE);
    const todayMs = Date.UTC(today.year, today.month - 1, today.day);
    const first = todayMs - 13 * DAY;
    const firstDay = new Date(first).toISOString().slice(0, 10);
    const season = (k: number) => [parisMidnight(first + (k - 1) * 10 * DAY), parisMidnight(first + (k - 1) * 10 * DAY + 7 * DAY)] as const;
    const [s1, e1] = season(1);
    const [s2, e2] = season(2);
    const [s3] = season(3);

    const created = await admin.createBoard({
      board: {
        name: "ranked",
        defaultOp: Operation.INCREMENT,
        rules: {
          maxPoints: 1_000_000n,
          resolutionMs: 1000,
          period: PeriodKind.SEASON,
          timeZone: ZONE,
          keepPeriods: 3,
          season: { firstDay, lengthDays: 7, gapDays: 3 },
        },
      },
    });
    expect(Number(created.board!.nextResetMs)).toBe(s3);
    expect(Number((await admin.getBoard({ name: "ranked" })).board!.nextResetMs)).toBe(s3);
    expect(Number((await admin.listBoards({ prefix: "rank" })).boards[0]!.nextResetMs)).toBe(s3);
    const periods = await c.router.listPeriods({ board: "ranked" });
    expect(periods.periods.map((p) => [p.id, Number(p.startMs), Number(p.endMs)])).toEqual([
      ["S2", s2, e2],
      ["S1", s1, e1],
    ]);
    // ingest follows the definition within a second
    for (const from = Date.now(); ; ) {
      const o = await outcome(
        c.ingest.submitScores({ updates: [{ board: "ranked", playerId: "probe", value: 1n, timestampMs: BigInt(s1) }] }),
      );
      if ("ok" in o) break;
      if (Date.now() - from > 10_000) throw new Error(`ingest still refuses the board: ${o.details}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const oracle = new Map([
      ["S1", new RulesOracle(RULES)],
      ["S2", new RulesOracle(RULES)],
    ]);
    oracle.get("S1")!.apply("probe", "inc", 1, s1);

    // refusals: a gap (both ends), before season 1, the instant season 2 ends; nothing written
    const refusals: Array<[number, RegExp]> = [
      [e1, /falls between seasons of board "ranked": season S1 ended at/],
      [s2 - 1, /falls between seasons of board "ranked": season S1 ended/],
      [s1 - 1, /is before season S1 of board "ranked", its first/],
    ];
    for (const [t, message] of refusals) {
      const o = await outcome(
        c.ingest.submitScores({ updates: [{ board: "ranked", playerId: "gap", value: 5n, timestampMs: BigInt(t) }] }),
      );
      expect("code" in o && o.code, new Date(t).toISOString()).toBe(status.FAILED_PRECONDITION);
      expect("code" in o && o.details).toMatch(message);
    }

    // writers into seasons 1 and 2 (the last instants of each included) while readers check every answer
    const problems: string[] = [];
    let answers = 0;
    let stop = false;
    const readers = Array.from({ length: 2 }, async (_, r) => {
      for (let n = r; !stop; n++) {
        const period = n % 2 ? "S1" : "S2";
        const got = await outcome<{ entries?: Entry[]; entry?: Entry; total: bigint }>(
          n % 3 === 0
            ? c.router.getTop({ board: "ranked", period, limit: 50 })
            : n % 3 === 1
              ? c.router.getAround({ board: "ranked", period, playerId: `p-${n % 40}`, radius: 3 })
              : c.router.getRank({ board: "ranked", period, playerId: `p-${n % 40}` }),
        );
        if ("code" in got) {
          // a refusal (a shard node starved on a busy machine: UNAVAILABLE) is no wrong answer
          if (got.code !== status.NOT_FOUND && got.code !== status.UNAVAILABLE) problems.push(`${period}: code ${got.code} ${got.details}`);
          continue;
        }
        answers++;
        const entries = (got.ok.entries ?? [got.ok.entry!]).map((e) => ({
          playerId: e.playerId,
          score: Number(e.score),
          reachedAtMs: Number(e.reachedAtMs),
          rank: Number(e.rank),
        }));
        problems.push(...rulesPageProblems(RULES, entries, Number(got.ok.total)).map((p) => `${period}: ${p}`));
      }
    });
    const offsets: PartitionOffset[] = [];
    for (let round = 0; round < 10; round++) {
      const updates = Array.from({ length: 40 }, (_, i) => {
        const inFirst = (round + i) % 2 === 0;
        const [s, e] = inFirst ? [s1, e1] : [s2, Math.min(e2, Date.now())];
        const t = i % 7 === 0 ? e - 1 : s + Math.floor(((e - s) * ((round * 40 + i) % 97)) / 97);
        return {
          board: "ranked",
          playerId: `p-${(round * 7 + i) % 40}`,
          value: BigInt(1 + ((round * 13 + i) % 50)),
          timestampMs: BigInt(t),
        };
      });
      const res = await c.ingest.submitScores({ updates });
      offsets.push(...res.offsets);
      for (const u of updates)
        oracle.get(Number(u.timestampMs) < e1 ? "S1" : "S2")!.apply(u.playerId, "inc", Number(u.value), Number(u.timestampMs));
    }
    await c.waitApplied(offsets);
    stop = true;
    await Promise.all(readers);
    expect(problems).toEqual([]);
    expect(answers).toBeGreaterThan(0);

    const exact = async (when: string) => {
      for (const [period, o] of oracle) {
        const got = await c.router.getTop({ board: "ranked", period, limit: 1000 });
        const entries = got.entries.map((e) => ({
          playerId: e.playerId,
          score: Number(e.score),
          reachedAtMs: Number(e.reachedAtMs),
          rank: Number(e.rank),
        }));
        expect(entries, `${period} ${when}`).toEqual(o.sorted());
      }
      // a read without period reads the current season (season 2)
      expect((await c.router.getTop({ board: "ranked", limit: 1000 })).entries.map((e) => e.playerId)).toEqual(
        oracle
          .get("S2")!
          .sorted()
          .map((e) => e.playerId),
      );
    };
    await exact("at rest");
    for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
    await c.waitApplied(offsets);
    await exact("after a rebuild");

    // a board with seasons takes no windows; a bad calendar is refused naming the field and the limit
    const bad = await outcome(
      admin.createBoard({
        board: { name: "bad", rules: { period: PeriodKind.SEASON, season: { firstDay, lengthDays: 0, gapDays: 0 } } },
      }),
    );
    expect("code" in bad && [bad.code, bad.details]).toEqual([
      status.INVALID_ARGUMENT,
      expect.stringMatching(/season.length_days must be 1 to 3660, got 0/),
    ]);
  });
});
