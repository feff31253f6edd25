// Cohort leagues (issue #30, item 3) against the real processes: two ingest processes and two routers
// over three shards, a league of 30-second periods, cohorts of 5, three tiers, 2 promoted and 2
// relegated per cohort. In each of three periods 40 players write at once through both ingests
// while readers check every GetLeagueStanding and cohort read through both routers. An oracle
// reading the log decides, from the rules of proto/leaderboard/v1 and not from the code under test,
// where each player must sit (the k-th placement of a tier in the league's partition sits in cohort
// floor(k / 5)), what each cohort holds (its scores in log order), and each player's tier after each
// close (the top 2 of a cohort up, the bottom 2 down, within the tiers); every answer seen must be
// one the cohort held at some instant. A write of the next period before the close is settled is
// refused UNAVAILABLE; after a rebuild of every shard, placements, tiers and cohorts are the same.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { status } from "@grpc/grpc-js";
import { afterAll, describe, expect, inject, it } from "vitest";
import { builtEntry } from "@ladder/deploy/built-entry";
import { LogClient } from "@ladder/log/log-client";
import { silentLogger } from "@ladder/platform/logger";
import type { RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, PeriodKind, type Entry, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import type { ScoreEvent } from "@ladder/proto/leaderboard/v1/events_pb";
import { LeagueZone, type GetLeagueStandingResponse } from "@ladder/proto/leaderboard/v1/league_pb";
import { outcome, startTwinCluster, TEST_TOKENS } from "./cluster-harness.js";
import { RulesOracle, rulesPageProblems, type Rules } from "./rules-oracle.js";
import { readTopic } from "./tournament-oracle.js";

const CLI = builtEntry("cli/src/main.ts");
const run = promisify(execFile);
const log = silentLogger();
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
});

const PERIOD_MS = 30_000;
const GRACE_MS = 1000;
const SIZE = 5;
const TIERS = 3;
const PROMOTE = 2;
const RELEGATE = 2;
const PLAYERS = Array.from({ length: 40 }, (_, i) => `pl-${String(i).padStart(2, "0")}`);
const WRITES = 3;
const RULES: Rules = {
  lowerIsBetter: false,
  tie: "earliest",
  minPoints: 0,
  maxPoints: 1_000_000,
  resolutionMs: 1000,
  epochMs: Date.UTC(2026, 0, 1),
};
const RETRY = new Set<number>([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]);
const plain = (e: Entry) => ({ playerId: e.playerId, score: Number(e.score), reachedAtMs: Number(e.reachedAtMs), rank: Number(e.rank) });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `call` again while it is refused UNAVAILABLE or past its deadline, for at most `forMs`. */
async function retried<T>(call: () => Promise<T>, forMs = 5000): Promise<{ ok: T } | { code: number; details: string }> {
  for (const from = Date.now(); ; ) {
    const o = await outcome(call());
    if ("ok" in o || !RETRY.has(o.code) || Date.now() - from > forMs) return o;
    await sleep(200);
  }
}

/** The oracle's tier after a close: ranks 1..promote up (not from the top tier), the last `relegate` down (not from tier 0, never a promoted rank). */
function tierAfterClose(tier: number, rank: number, size: number): number {
  if (rank <= PROMOTE && tier < TIERS - 1) return tier + 1;
  if (tier > 0 && rank > PROMOTE && rank > size - RELEGATE) return tier - 1;
  return tier;
}

/** A period as the log decides it: placements (player -> cohort) and each cohort's board and every score each player held. */
interface PeriodOfLog {
  cohortOf: Map<string, string>;
  boards: Map<string, RulesOracle>;
  /** Per cohort and player, every score it held, in log order. */
  held: Map<string, Set<number>>;
  /** Score records whose cohort was not the player's placement. */
  misplaced: string[];
}

/**
 * Period `period` of league `board` from the log: the placements of the league's partition in offset
 * order, each player's first placing it in the next seat of its tier (tiers from `tierOf`), then every
 * score record of the period applied in its partition's order to the board of the cohort it names.
 */
function periodOfLog(records: Map<number, ScoreEvent[]>, board: string, period: string, tierOf: (p: string) => number): PeriodOfLog {
  const cohortOf = new Map<string, string>();
  const seats = new Map<number, number>();
  for (const events of records.values())
    for (const e of events) {
      if (e.board !== board || !e.leaguePlace || e.period !== period || cohortOf.has(e.playerId)) continue;
      const tier = tierOf(e.playerId);
      const seat = seats.get(tier) ?? 0;
      seats.set(tier, seat + 1);
      cohortOf.set(e.playerId, `t${tier}c${Math.floor(seat / SIZE)}`);
    }
  const boards = new Map<string, RulesOracle>();
  const held = new Map<string, Set<number>>();
  const misplaced: string[] = [];
  for (const events of records.values())
    for (const e of events) {
      if (e.board !== board || e.leaguePlace || e.leagueTier || e.leagueSettled || e.closePeriod) continue;
      if (!e.period.startsWith(`${period}/`)) continue;
      const cohort = e.period.slice(period.length + 1);
      if (cohortOf.get(e.playerId) !== cohort) misplaced.push(`${e.playerId} wrote to ${cohort}, placed in ${cohortOf.get(e.playerId)}`);
      let b = boards.get(cohort);
      if (!b) boards.set(cohort, (b = new RulesOracle(RULES)));
      b.apply(e.playerId, "inc", Number(e.value), Number(e.timestampMs));
      const key = `${cohort}\n${e.playerId}`;
      if (!held.has(key)) held.set(key, new Set());
      held.get(key)!.add(b.sorted().find((x) => x.playerId === e.playerId)!.score);
    }
  return { cohortOf, boards, held, misplaced };
}

describe("leagues", () => {
  it("places by arrival in cohorts of 5, answers exact cohorts, promotes and relegates at each close, alike after a rebuild", async () => {
    const { c, admin, ingests, routers } = await startTwinCluster("leagues", cleanups);

    await admin.createBoard({
      board: {
        name: "arena",
        defaultOp: Operation.INCREMENT,
        rules: {
          maxPoints: 1_000_000n,
          resolutionMs: 1000,
          period: PeriodKind.CRON,
          cron: "*/30 * * * * *",
          keepPeriods: 3,
          close: { graceMs: BigInt(GRACE_MS), topK: 3, rewards: [{ reward: "gold", fromRank: 1n }] },
          league: { cohortSize: SIZE, tiers: TIERS, promote: PROMOTE, relegate: RELEGATE },
        },
      },
    });
    await admin.createBoard({ board: { name: "plain", defaultOp: Operation.INCREMENT } });
    for (const ingest of ingests)
      for (const from = Date.now(); ; await sleep(50)) {
        const got = await outcome(ingest.submitScores({ updates: [{ board: "arena", playerId: "probe", value: 2n ** 62n }] }));
        if ("code" in got && got.code === status.INVALID_ARGUMENT) break;
        if (Date.now() - from > 30_000) throw new Error(`ingest does not know the league: ${JSON.stringify(got)}`);
      }

    const refusal = async (p: Promise<unknown>) => {
      const o = await outcome(p);
      return "code" in o ? [o.code, o.details] : ["ok"];
    };
    expect(await refusal(routers[0]!.getTop({ board: "arena" }))).toEqual([
      status.INVALID_ARGUMENT,
      expect.stringContaining('period: board "arena" is a league: its entries are in cohorts, read as period "<period>/<cohort>"'),
    ]);
    expect(await refusal(routers[0]!.getTop({ board: "arena", period: "/t3c0" }))).toEqual([
      status.INVALID_ARGUMENT,
      `period: cohort "t3c0": tier 3 is past the league's tiers (0 to 2)`,
    ]);
    expect(await refusal(ingests[0]!.submitScores({ updates: [{ board: "arena", playerId: "x", value: 1n, bracket: 1 }] }))).toEqual([
      status.INVALID_ARGUMENT,
      "updates[0].bracket: must be 0 for an update that writes no league with brackets, got 1",
    ]);
    expect(
      await refusal(ingests[0]!.submitScores({ updates: [{ board: "plain", playerId: "x", value: 1n, leaveBoard: "arena" }] })),
    ).toEqual([status.INVALID_ARGUMENT, 'updates[0].leave_board: "arena" is a league: a player stays in its cohort for the period']);
    expect(await refusal(routers[1]!.getLeagueStanding({ board: "plain", playerId: "x" }))).toEqual([
      status.NOT_FOUND,
      'board "plain" is no league',
    ]);

    const client = LogClient.unconnected(inject("kafkaBrokers"), "test-leagues", log);
    const tiers = new Map<string, number>(); // the oracle's tiers, from the closes it decided
    const periods: Array<{ id: string; log: PeriodOfLog }> = [];
    const seen: Array<{ period: string; answer: GetLeagueStandingResponse }> = [];
    const problems: string[] = [];

    /** One period: everyone writes WRITES times at once through both ingests while readers check every answer. */
    const playPeriod = async (round: number) => {
      const boundary = Math.ceil((Date.now() + 1) / PERIOD_MS) * PERIOD_MS;
      await sleep(boundary - Date.now() + 300);
      const [current] = (await routers[0]!.listPeriods({ board: "arena" })).periods;
      const period = current!.id;
      expect(Number(current!.startMs)).toBe(boundary);
      if (round > 0) {
        // the period before is not settled yet (its close comes GRACE_MS + 10 s after its end): placements wait
        expect(
          await refusal(ingests[round % 2]!.submitScores({ updates: [{ board: "arena", playerId: PLAYERS[0]!, value: 1n }] })),
        ).toEqual([
          status.UNAVAILABLE,
          `league "arena" is settling the promotions of period ${periods[round - 1]!.id} (its close): players are placed in the next period once they are written; retry shortly`,
        ]);
        // a player who did not play the period before keeps its tier through that close: placed at once
        expect(
          await refusal(ingests[0]!.submitScores({ updates: [{ board: "arena", playerId: `newcomer-${round}`, value: 3n }] })),
        ).toEqual(["ok"]);
        for (
          const from = Date.now();
          !(await routers[0]!.getLeague({ board: "arena", period: periods[round - 1]!.id })).settled;
          await sleep(250)
        )
          if (Date.now() - from > 60_000) throw new Error(`period ${periods[round - 1]!.id} not settled within 60 s`);
        const settledMs = Date.now() - boundary;
        console.log(`leagues: period ${periods[round - 1]!.id} settled ${settledMs} ms after the next one began`);
      }
      let stop = false;
      let answers = 0;
      const readers = Array.from({ length: 3 }, async (_, r) => {
        for (let n = r; !stop; n++) {
          const router = routers[n % 2]!;
          const who = PLAYERS[(n * 7) % PLAYERS.length]!;
          const got = await retried(() => router.getLeagueStanding({ board: "arena", playerId: who, period }));
          if ("code" in got) {
            problems.push(`GetLeagueStanding ${who}: ${got.code} ${got.details}`);
            continue;
          }
          const a = got.ok;
          answers++;
          if (!a.placed) continue;
          seen.push({ period, answer: a });
          const entries = a.entries.map(plain);
          problems.push(...rulesPageProblems(RULES, entries, entries.length, 1));
          if (entries.length > SIZE) problems.push(`cohort ${a.cohort} answered ${entries.length} entries`);
          if (a.cohortPeriod !== `${period}/${a.cohort}`) problems.push(`cohort_period ${a.cohortPeriod}`);
          const promote = a.tier < TIERS - 1 ? Math.min(PROMOTE, entries.length) : 0;
          if (Number(a.promoteThroughRank) !== promote)
            problems.push(`${a.cohort}: promote through ${a.promoteThroughRank}, not ${promote}`);
          const mine = entries.find((e) => e.playerId === who);
          if (mine && (JSON.stringify(plain(a.entry!)) !== JSON.stringify(mine) || a.zone === LeagueZone.UNSPECIFIED))
            problems.push(`${who}: entry ${JSON.stringify(a.entry)} zone ${a.zone}`);
          if (n % 4 === 0) {
            const top = await retried(() => router.getTop({ board: "arena", period: a.cohortPeriod, limit: SIZE }));
            if ("code" in top) problems.push(`GetTop ${a.cohortPeriod}: ${top.code} ${top.details}`);
            else problems.push(...rulesPageProblems(RULES, top.ok.entries.map(plain), Number(top.ok.total), 1));
          }
        }
      });
      const writes = PLAYERS.flatMap((p, i) =>
        Array.from({ length: WRITES }, (_, k) => ({ p, ingest: (i + k) % 2, value: 1 + ((i * 37 + k * 11 + round * 5) % 50) })),
      );
      const answered = await Promise.all(
        writes.map((w) =>
          retried(() => ingests[w.ingest]!.submitScores({ updates: [{ board: "arena", playerId: w.p, value: BigInt(w.value) }] }), 8000),
        ),
      );
      stop = true;
      await Promise.all(readers);
      const refused = answered.flatMap((o, i) => ("code" in o ? [`${writes[i]!.p}: ${o.code} ${o.details}`] : []));
      expect(refused).toEqual([]);
      expect(Date.now()).toBeLessThan(boundary + PERIOD_MS); // the period's writes all fell in it
      expect(answers).toBeGreaterThan(0);

      // the oracle of the log: placements, cohorts, boards; the shards applied it all before exact() reads
      // (a score is acknowledged once in the log; only its placement was applied before the answer)
      const records = await readTopic(client, c.ns.topic);
      await untilLogApplied();
      const p = periodOfLog(records, "arena", period, (pl) => tiers.get(pl) ?? 0);
      expect(p.misplaced).toEqual([]);
      expect(p.cohortOf.size).toBe(PLAYERS.length + (round > 0 ? 1 : 0)); // and the newcomer
      periods.push({ id: period, log: p });
      const groups = (await routers[1]!.getLeague({ board: "arena", period })).groups.map((g) => [
        g.tier,
        Number(g.players),
        Number(g.cohorts),
      ]);
      const byTier = new Map<number, number>();
      for (const pl of PLAYERS) byTier.set(tiers.get(pl) ?? 0, (byTier.get(tiers.get(pl) ?? 0) ?? 0) + 1);
      if (round > 0) byTier.set(0, (byTier.get(0) ?? 0) + 1); // the newcomer
      expect(groups).toEqual([...byTier].sort(([a], [b]) => a - b).map(([t, n]) => [t, n, Math.ceil(n / SIZE)]));
      return period;
    };

    /** Until the shards have applied every record the log holds now. */
    const untilLogApplied = async () => {
      const ends = await client.endOffsets(c.ns.topic);
      await c.waitApplied([...ends].filter(([, o]) => o > 0n).map(([partition, o]) => ({ partition, offset: o - 1n }) as PartitionOffset));
    };

    /** Every player's standing of every period played so far equals the oracle's. */
    const exact = async (when: string) => {
      for (const { id, log: p } of periods)
        for (const [i, pl] of PLAYERS.entries()) {
          const a = await routers[i % 2]!.getLeagueStanding({ board: "arena", playerId: pl, period: id });
          const cohort = p.cohortOf.get(pl)!;
          const want = p.boards.get(cohort)!.sorted();
          expect([a.placed, a.cohort, a.entries.map(plain)], `${when}: ${pl} in ${id}`).toEqual([true, cohort, want]);
        }
    };

    /** The oracle's close of the last period played: each cohort's final ranks move tiers. */
    const closeInOracle = () => {
      const { log: p } = periods.at(-1)!;
      const next = new Map(tiers);
      for (const [cohort, board] of p.boards) {
        const tier = Number(/^t(\d+)c/.exec(cohort)![1]);
        const final = board.sorted();
        for (const e of final) next.set(e.playerId, tierAfterClose(tier, e.rank, final.length));
      }
      for (const [pl, t] of next) {
        if (t > (tiers.get(pl) ?? 0)) moved.up++;
        if (t < (tiers.get(pl) ?? 0)) moved.down++;
        tiers.set(pl, t);
      }
    };
    const moved = { up: 0, down: 0 };

    for (let round = 0; round < 3; round++) {
      await playPeriod(round);
      await exact(`after period ${round}`);
      if (round < 2) closeInOracle(); // the closes whose tiers the next period's placements show
    }
    expect(problems).toEqual([]);
    // every answer seen was the cohort it had to be, holding scores its players held at some instant
    for (const { period, answer } of seen) {
      const p = periods.find((x) => x.id === period)!.log;
      for (const e of answer.entries) {
        const where = `${period} ${answer.cohort} ${e.playerId}`;
        expect(p.cohortOf.get(e.playerId), where).toBe(answer.cohort);
        expect(p.held.get(`${answer.cohort}\n${e.playerId}`)?.has(Number(e.score)), `${where} at ${e.score}`).toBe(true);
      }
    }
    // every cohort of the two closed periods has its close event: its final standings and rewards, as the oracle's
    const closedCohorts = periods.slice(0, 2).flatMap(({ id, log: p }) => [...p.boards].map(([cohort, board]) => ({ id, cohort, board })));
    let closes = (await admin.listCloses({ board: "arena" })).closes;
    for (const from = Date.now(); closes.length < closedCohorts.length; closes = (await admin.listCloses({ board: "arena" })).closes) {
      if (Date.now() - from > 60_000) throw new Error(`${closes.length} close events of ${closedCohorts.length} cohorts within 60 s`);
      await sleep(500);
    }
    for (const { id, cohort, board } of closedCohorts) {
      const event = closes.find((e) => e.period === `${id}/${cohort}`);
      const final = board.sorted();
      expect(
        event && [
          Number(event.size),
          event.top.map(plain),
          event.rewards.map((r) => [r.playerId, Number(r.rank), Number(r.score), r.reward]),
        ],
        `${id}/${cohort}`,
      ).toEqual([final.length, final.slice(0, 3), [[final[0]!.playerId, 1, final[0]!.score, "gold"]]]);
    }
    // the closes moved players both ways (the tiers they wrote are checked by exact(): a cohort id names its tier)
    expect([moved.up > 0, moved.down > 0]).toEqual([true, true]);
    const last = periods.at(-1)!.log;
    console.log(
      `leagues: ${periods.length} periods of ${PLAYERS.length} players, ${seen.length} standings checked; ${moved.up} moves up and ${moved.down} down`,
    );

    // every shard rebuilt from the log: the same placements, tiers and cohorts
    for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
    await untilLogApplied();
    await exact("after a rebuild");
    expect(await refusal(routers[0]!.getLeagueStanding({ board: "arena", playerId: "x", period: `${periods[0]!.id}/t0c0` }))).toEqual([
      status.INVALID_ARGUMENT,
      `period: "${periods[0]!.id}/t0c0" names a cohort: give the league's period alone (as ListPeriods names it)`,
    ]);

    // the CLI's commands, as docs/leagues.md shows them
    const cli = async (token: string, ...args: string[]) => {
      const where = ["--router", c.services.routerAddress, "--ingest", c.services.ingestAddress, "--token", token];
      const got = await run("node", [CLI, ...args, ...where], { cwd: join(import.meta.dirname, "..") }).catch(
        (err: { stdout: string; stderr: string }) => ({ stdout: err.stdout, stderr: err.stderr }),
      );
      return `${got.stdout}${got.stderr}`.trim();
    };
    const lastId = periods.at(-1)!.id;
    const pl = PLAYERS[3]!;
    const cohort = last.cohortOf.get(pl)!;
    expect(await cli(TEST_TOKENS.read, "leagues", "standing", "--board", "arena", "--player", pl, "--period", lastId)).toContain(
      `${pl} in cohort ${cohort} (tier ${/^t(\d+)c/.exec(cohort)![1]}) of arena, period ${lastId}`,
    );
    expect(await cli(TEST_TOKENS.read, "leagues", "get", "--board", "arena", "--period", lastId)).toContain(`arena, period ${lastId}`);
  }, 300_000);
});
