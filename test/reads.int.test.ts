// The reads of issue #10 against the real processes, on boards with heavy ties across shards:
// GetRanks (ranks and ranks among the players asked), GetStanding (several boards, a period and a
// window at once), tied ranks (competition and dense), cursor paging at any depth both ways, and
// GetCount. Readers check every answer while players move (what must hold on each), then every read
// equals a brute-force oracle at rest; the batched reads are checked to cost one command per shard
// per round (Redis MONITOR).
import { status } from "@grpc/grpc-js";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { AdminService, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, PeriodKind, WindowCombine, type Entry, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { RankMode, type GetTopResponse } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { outcome, startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";
import { dailyId } from "./period-oracle.js";
import { rulesOrder, rulesPageProblems, RulesOracle, type Rules, type RulesEntry } from "./rules-oracle.js";
import { windowEntries, windowRules } from "./window-oracle.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
});

const EPOCH = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
/** The router's histogram cache bound in this file's cluster (LADDER_HISTOGRAM_CACHE_MS). */
const HISTOGRAM_CACHE_MS = 500;
// few points, coarse times: most entries tie on points, many on points and time (then by id), across shards
const HIGH: Rules = { lowerIsBetter: false, tie: "earliest", minPoints: 0, maxPoints: 30, resolutionMs: 60_000, epochMs: EPOCH };
const LOW: Rules = { lowerIsBetter: true, tie: "id", minPoints: 0, maxPoints: 50, resolutionMs: 1000, epochMs: EPOCH };
const plain = (e: Entry): RulesEntry => ({
  playerId: e.playerId,
  score: Number(e.score),
  reachedAtMs: Number(e.reachedAtMs),
  rank: Number(e.rank),
});

/** Competition and dense ranks on a higher-is-better board, by player, from their definitions in leaderboard.proto (RankMode). */
function tied(entries: readonly RulesEntry[]): Map<string, { competition: number; dense: number }> {
  return new Map(
    entries.map((e) => {
      const better = entries.filter((x) => x.score > e.score);
      return [e.playerId, { competition: 1 + better.length, dense: 1 + new Set(better.map((x) => x.score)).size }];
    }),
  );
}

/** An entry of an answer with tied ranks, as the checks below read it. */
type TiedEntry = { playerId: string; score: bigint; rank: bigint; tiedRank: bigint };

/**
 * What every page with tied ranks (higher is better) must show, whatever moved while it was read:
 * ties consistent within the page (equal points share a tied rank; new points start at their rank,
 * competition, or one past the last, dense), and each unmoved player's tied rank between what the
 * unmoved players alone give it and that plus every mover.
 */
function tiedPageProblems(
  where: string,
  mode: RankMode,
  page: readonly TiedEntry[],
  unmoved: ReadonlyMap<string, { score: number }>,
  movers: number,
): string[] {
  const found: string[] = [];
  page.forEach((e, i) => {
    const prev = page[i - 1];
    if (e.tiedRank < 1n || e.tiedRank > e.rank) found.push(`${where}: tied rank ${e.tiedRank} of rank ${e.rank}`);
    if (prev && prev.score === e.score && prev.tiedRank !== e.tiedRank)
      found.push(`${where}: equal points, tied ${prev.tiedRank} and ${e.tiedRank}`);
    if (prev && prev.score !== e.score && e.tiedRank !== (mode === RankMode.COMPETITION ? e.rank : prev.tiedRank + 1n))
      found.push(`${where}: ${e.playerId} starts its points at rank ${e.rank}, tied ${e.tiedRank} after ${prev.tiedRank}`);
    if (unmoved.has(e.playerId)) {
      const better = [...unmoved.values()].filter((u) => u.score > Number(e.score));
      const least = 1 + (mode === RankMode.COMPETITION ? better.length : new Set(better.map((b) => b.score)).size);
      if (e.tiedRank < BigInt(least) || e.tiedRank > BigInt(least + movers))
        found.push(`${where}: unmoved ${e.playerId} tied ${e.tiedRank}, outside ${least}..${least + movers}`);
    }
  });
  return found;
}

const codeOf = async (p: Promise<unknown>) => {
  const o = await outcome(p);
  return "ok" in o ? "ok" : o.code;
};

let shared: Promise<{ c: TestCluster; admin: ClientOf<typeof AdminService> }> | undefined;
const cluster = () =>
  (shared ??= (async () => {
    const c = await startTestCluster("reads", {
      ownRedis: true, // it rebuilds the shards
      settings: { LADDER_IMPLICIT_BOARDS: "0", LADDER_SNAPSHOTS: "0", LADDER_HISTOGRAM_CACHE_MS: String(HISTOGRAM_CACHE_MS) },
    });
    cleanups.push(() => c.stop());
    const admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
    cleanups.push(async () => admin.close());
    return { c, admin };
  })());

async function defineBoards(admin: ClientOf<typeof AdminService>, c: TestCluster): Promise<void> {
  await admin.createBoard({ board: { name: "r-high", defaultOp: Operation.SET, rules: { maxPoints: 30n, resolutionMs: 60_000 } } });
  await admin.createBoard({
    board: { name: "r-low", defaultOp: Operation.SET, rules: { order: 2, tie: 3, maxPoints: 50n, resolutionMs: 1000 } },
  });
  await admin.createBoard({
    board: {
      name: "r-daily",
      defaultOp: Operation.INCREMENT,
      rules: {
        maxPoints: 30n,
        resolutionMs: 60_000,
        period: PeriodKind.DAILY,
        keepPeriods: 3,
        windows: [{ name: "2d", periods: 2, combine: WindowCombine.SUM }],
      },
    },
  });
  for (const board of ["r-high", "r-low", "r-daily"]) {
    for (const from = Date.now(); ; ) {
      const got = await outcome(c.ingest.submitScores({ updates: [{ board, playerId: "probe", value: 1000n }] }));
      if ("code" in got && got.code === status.INVALID_ARGUMENT) break;
      if (Date.now() - from > 10_000) throw new Error(`${board} not known to ingest`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

describe("reads of many players, ties and deep pages", () => {
  it("GetRanks, GetStanding, tied ranks, cursor pages and counts: every answer checked while players move, exact at rest, one command per shard per round", async () => {
    const { c, admin } = await cluster();
    await defineBoards(admin, c);
    const high = new RulesOracle(HIGH);
    const low = new RulesOracle(LOW);
    const days = [dailyId(Date.now() - DAY, "UTC"), dailyId(Date.now(), "UTC")];
    const daily = new Map(days.map((d) => [d, new RulesOracle(HIGH)]));
    const statics = Array.from({ length: 400 }, (_, i) => `s-${i}`);
    const movers = Array.from({ length: 60 }, (_, i) => `m-${i}`);
    let seed = 5;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const base = Date.now() - 3 * 3600_000;
    const offsets: PartitionOffset[] = [];
    const write = async (players: readonly string[], t: number) => {
      const updates = players.map((p) => {
        const v = rand(31);
        const at = base + t * 60_000 + rand(3) * 60_000;
        high.apply(p, "set", v, at);
        low.apply(p, "set", Math.min(50, v), at);
        return { board: "r-high", playerId: p, value: BigInt(v), timestampMs: BigInt(at), alsoBoards: ["r-low"], op: Operation.SET };
      });
      // the daily board, at times of its own: yesterday or today
      const dailies = players
        .filter(() => rand(3) === 0)
        .map((p) => {
          const v = 1 + rand(5);
          const ts = rand(2) === 0 ? Date.now() - DAY : Date.now() - rand(600) * 1000;
          const id = dailyId(ts, "UTC");
          (daily.get(id) ?? daily.set(id, new RulesOracle(HIGH)).get(id)!).apply(p, "inc", v, ts);
          return { board: "r-daily", playerId: p, value: BigInt(v), timestampMs: BigInt(ts) };
        });
      const res = await c.ingest.submitScores({ updates: [...updates, ...dailies] });
      offsets.push(...res.offsets);
    };
    await write(statics, 0);
    await write(movers, 0);
    await c.waitApplied(offsets);
    const staticScore = new Map(
      high
        .sorted()
        .filter((e) => e.playerId.startsWith("s-"))
        .map((e) => [e.playerId, e]),
    );

    // readers check every answer while the movers move
    let stop = false;
    const problems: string[] = [];
    const counts = {
      ranks: 0,
      arounds: 0,
      standings: 0,
      pages: 0,
      tiedPages: 0,
      sweeps: 0,
      counts: 0,
      selects: 0,
      refused: 0,
      busy: 0,
    };
    // a batch whose players keep moving for every round it may take is refused, not answered: allowed, counted
    const refusedAsMoving = (o: { code: number; details: string }) =>
      o.code === status.UNAVAILABLE && o.details.includes("kept moving") && ++counts.refused > 0;
    // a page or neighbourhood with tied ranks is read at one instant per shard, with its ties: never refused for
    // movement; any other UNAVAILABLE with a reason is a shard's refusal on a busy machine
    const busyRefusal = (o: { code: number; details: string }) =>
      o.code === status.UNAVAILABLE && o.details !== "" && !o.details.includes("kept") && ++counts.busy > 0;
    const tieProblems = (where: string, mode: RankMode, page: ReadonlyArray<TiedEntry>) =>
      tiedPageProblems(where, mode, page, staticScore, movers.length);
    const ranksReader = (async () => {
      while (!stop) {
        const asked = [
          ...new Set(
            Array.from({ length: 40 }, () =>
              rand(4) === 0 ? movers[rand(movers.length)]! : rand(8) === 0 ? `nobody-${rand(5)}` : statics[rand(statics.length)]!,
            ),
          ),
        ];
        const mode = [RankMode.UNSPECIFIED, RankMode.COMPETITION, RankMode.DENSE][rand(3)]!;
        const got = await outcome(c.router.getRanks({ board: "r-high", playerIds: asked, rankMode: mode }));
        if ("code" in got) {
          if (!refusedAsMoving(got)) problems.push(`getRanks: code ${got.code} ${got.details}`);
          continue;
        }
        counts.ranks++;
        const { entries, missing, total } = got.ok;
        const names = [...entries.map((e) => e.entry!.playerId), ...missing];
        if (names.length !== asked.length || new Set(names).size !== asked.length || asked.some((p) => !names.includes(p)))
          problems.push(`getRanks: found + missing is not the players asked`);
        for (const p of missing) if (!p.startsWith("nobody")) problems.push(`getRanks: ${p} reported missing`);
        entries.forEach((e, i) => {
          const en = e.entry!;
          if (e.rankAmong !== i + 1) problems.push(`getRanks: rank_among ${e.rankAmong} at ${i + 1}`);
          if (en.rank < 1n || en.rank > total) problems.push(`getRanks: rank ${en.rank} outside 1..${total}`);
          if (i > 0 && en.rank <= entries[i - 1]!.entry!.rank) problems.push(`getRanks: ranks not increasing`);
          if (i > 0 && rulesOrder(HIGH, plain(entries[i - 1]!.entry!), plain(en)) >= 0)
            problems.push(`getRanks: ${en.playerId} out of order`);
          const s = staticScore.get(en.playerId);
          if (s && (Number(en.score) !== s.score || Number(en.reachedAtMs) !== s.reachedAtMs))
            problems.push(`getRanks: static ${en.playerId} at ${en.score}`);
          if (mode !== RankMode.UNSPECIFIED) {
            if (en.tiedRank < 1n || en.tiedRank > en.rank) problems.push(`getRanks: tied rank ${en.tiedRank} of rank ${en.rank}`);
            const prev = entries[i - 1]?.entry;
            if (prev && prev.score === en.score && prev.tiedRank !== en.tiedRank)
              problems.push(`getRanks: equal points, tied ranks ${prev.tiedRank} and ${en.tiedRank}`);
            if (prev && prev.score !== en.score && en.tiedRank <= prev.tiedRank)
              problems.push(`getRanks: worse points, tied rank ${en.tiedRank} after ${prev.tiedRank}`);
            if (mode === RankMode.DENSE && en.tiedRank > BigInt(31))
              problems.push(`getRanks: dense rank ${en.tiedRank} above the 31 values there are`);
          } else if (en.tiedRank !== 0n) problems.push(`getRanks: tied rank without a mode`);
        });
        // a neighbourhood with tied ranks, of a mover or a static player
        const aroundMode = [RankMode.COMPETITION, RankMode.DENSE][rand(2)]!;
        const who = rand(2) === 0 ? movers[rand(movers.length)]! : statics[rand(statics.length)]!;
        const around = await outcome(c.router.getAround({ board: "r-high", playerId: who, radius: 6, rankMode: aroundMode }));
        if ("code" in around) {
          if (!busyRefusal(around)) problems.push(`getAround: code ${around.code} ${around.details}`);
          continue;
        }
        counts.arounds++;
        const page = around.ok.entries;
        problems.push(...rulesPageProblems(HIGH, page.map(plain), Number(around.ok.total)).map((p) => `around: ${p}`));
        if (!page.some((e) => e.playerId === who)) problems.push(`around: ${who} not in its own neighbourhood`);
        problems.push(...tieProblems("around", aroundMode, page));
      }
    })();
    // whole sweeps by cursor, forward then back, in each rank mode: every static player exactly once each way
    const sweeper = (async () => {
      for (let sweep = 0; !stop; sweep++) {
        const rankMode = [RankMode.UNSPECIFIED, RankMode.COMPETITION, RankMode.DENSE][sweep % 3]!;
        // one page, asked again while a shard refuses on a busy machine
        const pageOf = async (cursor: string): Promise<GetTopResponse> => {
          for (;;) {
            const got = await outcome(c.router.getTop({ board: "r-high", limit: 37, cursor, rankMode }));
            if (rankMode !== RankMode.UNSPECIFIED && cursor !== "") counts.tiedPages++;
            if (!("code" in got)) return got.ok;
            if (!busyRefusal(got)) throw new Error(`getTop: code ${got.code} ${got.details}`);
          }
        };
        for (const backward of [false, true]) {
          const seen = new Map<string, number>();
          let page = await pageOf("");
          if (backward) while (page.nextCursor) page = await pageOf(page.nextCursor);
          for (;;) {
            counts.pages++;
            problems.push(...rulesPageProblems(HIGH, page.entries.map(plain), Number(page.total)).map((p) => `page: ${p}`));
            if (rankMode !== RankMode.UNSPECIFIED) problems.push(...tieProblems("page", rankMode, page.entries));
            for (const e of page.entries) seen.set(e.playerId, (seen.get(e.playerId) ?? 0) + 1);
            const next = backward ? page.previousCursor : page.nextCursor;
            if (!next) break;
            page = await pageOf(next);
          }
          counts.sweeps++;
          for (const p of statics)
            if (seen.get(p) !== 1) problems.push(`sweep ${backward ? "back" : "forward"}: static ${p} seen ${seen.get(p) ?? 0} times`);
        }
      }
    })();
    const otherReader = (async () => {
      while (!stop) {
        const p = movers[rand(movers.length)]!;
        const got = await outcome(
          c.router.getStanding({
            playerId: p,
            boards: [{ board: "r-high" }, { board: "r-low" }, { board: "r-daily", window: "2d" }],
            rankMode: RankMode.COMPETITION,
          }),
        );
        if ("code" in got) {
          if (!refusedAsMoving(got)) problems.push(`getStanding: code ${got.code} ${got.details}`);
          continue;
        }
        counts.standings++;
        for (const s of got.ok.standings) {
          if (s.board!.board !== "r-daily" && !s.found) problems.push(`getStanding: ${p} not found on ${s.board!.board}`);
          if (
            s.found &&
            (s.entry!.rank < 1n || s.entry!.rank > s.total || s.entry!.tiedRank > s.entry!.rank || s.topPercent <= 0 || s.topPercent > 100)
          )
            problems.push(
              `getStanding: ${p} on ${s.board!.board}: rank ${s.entry!.rank}, tied ${s.entry!.tiedRank} of ${s.total}, top ${s.topPercent}%`,
            );
        }
        const lo = rand(31);
        const hi = lo + rand(10);
        const n = await c.router.getCount({ board: "r-high", minScore: BigInt(lo), maxScore: BigInt(hi) });
        counts.counts++;
        // the statics in [lo, hi] are counted whatever the movers do, each mover at most once; every player has a score
        const staticsIn = [...staticScore.values()].filter((e) => e.score >= lo && e.score <= hi).length;
        if (n.total !== BigInt(statics.length + movers.length))
          problems.push(`getCount: total ${n.total}, not ${statics.length + movers.length}`);
        if (n.count < BigInt(staticsIn) || n.count > BigInt(staticsIn + movers.length))
          problems.push(`getCount [${lo}, ${hi}]: ${n.count}, outside ${staticsIn}..${staticsIn + movers.length}`);
        const k = 1 + rand(460);
        const at = await outcome(c.router.getEntryAtRank({ board: "r-high", at: { case: "rank", value: BigInt(k) } }));
        if ("code" in at) {
          if (!refusedAsMoving(at)) problems.push(`getEntryAtRank: code ${at.code} ${at.details}`);
        } else {
          counts.selects++;
          const e = at.ok.entry!;
          const s = staticScore.get(e.playerId);
          if (Number(e.rank) !== k || e.rank > at.ok.total) problems.push(`getEntryAtRank ${k}: rank ${e.rank} of ${at.ok.total}`);
          if (s && (Number(e.score) !== s.score || Number(e.reachedAtMs) !== s.reachedAtMs))
            problems.push(`getEntryAtRank ${k}: static ${e.playerId} at ${e.score}`);
        }
      }
    })();
    // at least 25 rounds of writes, and more until the readers have checked enough answers taken while
    // players moved (a loaded machine reads slower: the count must not depend on its speed)
    let moves = 0;
    const movingSince = Date.now();
    const enough = () => counts.ranks > 10 && counts.standings > 10 && counts.sweeps >= 6;
    for (let t = 1; t <= 25 || (!enough() && t <= 400); t++) {
      const moving = movers.filter(() => rand(2) === 0);
      moves += moving.length;
      await write(moving, Math.min(t, 170)); // times stay within the last 3 hours
      await new Promise((r) => setTimeout(r, 40));
    }
    stop = true;
    await Promise.all([ranksReader, sweeper, otherReader]);
    console.log(`[reads] answers checked while ${moves} moves were written in ${Date.now() - movingSince} ms: ${JSON.stringify(counts)}`);
    expect(problems.slice(0, 5)).toEqual([]);
    expect(counts.sweeps).toBeGreaterThanOrEqual(6);
    expect(counts.tiedPages + counts.arounds).toBeGreaterThan(10);
    expect(counts.ranks).toBeGreaterThan(10);
    await c.waitApplied(offsets);

    // at rest: everything equals the oracle
    const want = high.sorted();
    const ties = tied(want);
    for (const mode of [RankMode.UNSPECIFIED, RankMode.COMPETITION, RankMode.DENSE]) {
      const asked = [...want.map((e) => e.playerId).filter((_, i) => i % 3 !== 1), "nobody-1"];
      const got = await c.router.getRanks({ board: "r-high", playerIds: asked, rankMode: mode });
      const among = want.filter((e) => asked.includes(e.playerId));
      expect(
        got.entries.map((e) => ({ ...plain(e.entry!), among: e.rankAmong })),
        `getRanks mode ${mode}`,
      ).toEqual(among.map((e, i) => ({ ...e, among: i + 1 })));
      expect(got.missing).toEqual(["nobody-1"]);
      expect(Number(got.total)).toBe(want.length);
      if (mode !== RankMode.UNSPECIFIED) {
        const tiedWant = among.map((e) =>
          mode === RankMode.COMPETITION ? ties.get(e.playerId)!.competition : ties.get(e.playerId)!.dense,
        );
        expect(
          got.entries.map((e) => Number(e.entry!.tiedRank)),
          `tied ranks mode ${mode}`,
        ).toEqual(tiedWant);
        const page = await c.router.getTop({ board: "r-high", offset: 100n, limit: 150, rankMode: mode });
        expect(
          page.entries.map((e) => Number(e.tiedRank)),
          `top page tied ranks mode ${mode}`,
        ).toEqual(
          want
            .slice(100, 250)
            .map((e) => (mode === RankMode.COMPETITION ? ties.get(e.playerId)!.competition : ties.get(e.playerId)!.dense)),
        );
        const tiedOf = (p: string) => (mode === RankMode.COMPETITION ? ties.get(p)!.competition : ties.get(p)!.dense);
        const around = await c.router.getAround({ board: "r-high", playerId: want[300]!.playerId, radius: 20, rankMode: mode });
        expect(
          around.entries.map((e) => [plain(e), Number(e.tiedRank)]),
          `around with tied ranks, mode ${mode}`,
        ).toEqual(want.slice(280, 321).map((e) => [e, tiedOf(e.playerId)]));
        const first = await c.router.getTop({ board: "r-high", limit: 40 });
        const deep = await c.router.getTop({ board: "r-high", limit: 40, cursor: first.nextCursor, rankMode: mode });
        expect(
          deep.entries.map((e) => [plain(e), Number(e.tiedRank)]),
          `cursor page with tied ranks, mode ${mode}`,
        ).toEqual(want.slice(40, 80).map((e) => [e, tiedOf(e.playerId)]));
        const one = await c.router.getRank({ board: "r-high", playerId: want[200]!.playerId, rankMode: mode });
        expect(Number(one.entry!.tiedRank)).toBe(
          mode === RankMode.COMPETITION ? ties.get(want[200]!.playerId)!.competition : ties.get(want[200]!.playerId)!.dense,
        );
      }
    }
    // equal points on several shards really were there
    expect(new Set(want.map((e) => e.score)).size).toBeLessThan(32);
    // cursor pages, forward from the top and back from the end, equal the oracle's slices
    let page = await c.router.getTop({ board: "r-high", limit: 50 });
    const forward: RulesEntry[] = page.entries.map(plain);
    while (page.nextCursor) {
      page = await c.router.getTop({ board: "r-high", limit: 50, cursor: page.nextCursor });
      forward.push(...page.entries.map(plain));
    }
    expect(forward).toEqual(want);
    const backward: RulesEntry[] = page.entries.map(plain);
    while (page.previousCursor) {
      page = await c.router.getTop({ board: "r-high", limit: 50, cursor: page.previousCursor });
      backward.unshift(...page.entries.map(plain));
    }
    expect(backward).toEqual(want);
    // the entry at a rank, or at a top percentage
    for (const k of [1, 2, 137, 300, want.length]) {
      const at = await c.router.getEntryAtRank({ board: "r-high", at: { case: "rank", value: BigInt(k) } });
      expect(plain(at.entry!), `entry at rank ${k}`).toEqual(want[k - 1]);
    }
    for (const p of [0.5, 10, 50, 99.9, 100]) {
      const at = await c.router.getEntryAtRank({ board: "r-high", at: { case: "topPercent", value: p } });
      expect(plain(at.entry!), `entry at the top ${p}%`).toEqual(want[Math.max(1, Math.ceil((p / 100) * want.length)) - 1]);
    }
    expect(await codeOf(c.router.getEntryAtRank({ board: "r-high", at: { case: "rank", value: BigInt(want.length + 1) } }))).toBe(
      status.NOT_FOUND,
    );
    for (const past of [2n ** 53n, 2n ** 63n - 1n])
      expect(await codeOf(c.router.getEntryAtRank({ board: "r-high", at: { case: "rank", value: past } })), `rank ${past}`).toBe(
        status.NOT_FOUND,
      );
    expect(await codeOf(c.router.getEntryAtRank({ board: "r-high", at: { case: "rank", value: 0n } }))).toBe(status.INVALID_ARGUMENT);
    // on a board larger than one search slice (512), with a wide points range: the search narrows over rounds
    await admin.createBoard({ board: { name: "r-wide", defaultOp: Operation.SET, rules: { maxPoints: 1_000_000n, resolutionMs: 1000 } } });
    const wide = new RulesOracle({ ...HIGH, maxPoints: 1_000_000, resolutionMs: 1000 });
    for (
      const from = Date.now();
      (await codeOf(c.ingest.submitScores({ updates: [{ board: "r-wide", playerId: "probe", value: 2_000_000n }] }))) !==
      status.INVALID_ARGUMENT;
    ) {
      if (Date.now() - from > 10_000) throw new Error("r-wide not known to ingest");
    }
    const wideOffsets: PartitionOffset[] = [];
    for (let b = 0; b < 3; b++) {
      const updates = Array.from({ length: 1000 }, (_, i) => {
        const v = rand(2) === 0 ? 500_000 : rand(1_000_001); // half of them tie on points
        const at = base + rand(50) * 1000;
        wide.apply(`w-${b}-${i}`, "set", v, at);
        return { board: "r-wide", playerId: `w-${b}-${i}`, value: BigInt(v), timestampMs: BigInt(at) };
      });
      wideOffsets.push(...(await c.ingest.submitScores({ updates })).offsets);
    }
    await c.waitApplied(wideOffsets);
    const wideWant = wide.sorted();
    for (const k of [1, 700, 1234, 1500, 1501, 2222, 2999, 3000]) {
      const at = await c.router.getEntryAtRank({ board: "r-wide", at: { case: "rank", value: BigInt(k) } });
      expect(plain(at.entry!), `r-wide entry at rank ${k}`).toEqual(wideWant[k - 1]);
    }
    expect(await codeOf(c.router.getEntryAtRank({ board: "r-high", at: { case: "topPercent", value: 0 } }))).toBe(status.INVALID_ARGUMENT);

    // the lower-is-better board, ties by id
    const lowWant = low.sorted();
    const lowGot = await c.router.getRanks({ board: "r-low", playerIds: lowWant.map((e) => e.playerId).reverse() });
    expect(lowGot.entries.map((e) => plain(e.entry!))).toEqual(lowWant);
    // standings over 5 boards: periods and a window among them
    // a player with a score on each of the 5 boards (a board it is not on costs a batch's two rounds more)
    const player =
      movers.find((m) =>
        days.every((d) =>
          daily
            .get(d)!
            .sorted()
            .some((e) => e.playerId === m),
        ),
      ) ?? movers[3]!;
    const refs = [
      { board: "r-high" },
      { board: "r-low" },
      { board: "r-daily", period: days[0]! },
      { board: "r-daily", period: days[1]! },
      { board: "r-daily", period: days[1]!, window: "2d" },
    ];
    const st = await c.router.getStanding({ playerId: player, boards: refs });
    const boardsWant = [
      want,
      lowWant,
      daily.get(days[0]!)!.sorted(),
      daily.get(days[1]!)!.sorted(),
      windowEntries(
        windowRules(HIGH, "sum", 2),
        "sum",
        days.map((d) => daily.get(d)!.sorted()),
      ),
    ];
    st.standings.forEach((s, i) => {
      const e = boardsWant[i]!.find((x) => x.playerId === player);
      expect(
        { found: s.found, total: Number(s.total), entry: s.found ? plain(s.entry!) : undefined },
        `standing ${JSON.stringify(refs[i])}`,
      ).toEqual({ found: e !== undefined, total: boardsWant[i]!.length, entry: e });
      if (e) expect(s.topPercent).toBeCloseTo((100 * e.rank) / boardsWant[i]!.length, 9);
    });
    // counts of point ranges
    for (const [min, max] of [
      [0, 30],
      [10, 10],
      [5, 20],
      [25, 100],
      [40, 50],
    ] as const) {
      const n = await c.router.getCount({ board: "r-high", minScore: BigInt(min), maxScore: BigInt(max) });
      expect(Number(n.count), `count ${min}..${max}`).toBe(want.filter((e) => e.score >= min && e.score <= max).length);
    }
    expect(Number((await c.router.getCount({ board: "r-low", maxScore: 10n })).count)).toBe(lowWant.filter((e) => e.score <= 10).length);

    // one command per shard per round: GetStanding of 5 boards, GetRanks of 300 players (MONITOR on every shard)
    const monitorErrors: string[] = [];
    const monitors = await Promise.all(
      c.services.env.LADDER_SHARDS!.split(",").map(async (s) => {
        // ioredis marks a connection "monitoring" a turn after MONITOR's OK, so lines of the same read before
        // that are reported as errors ("Command queue state error"): listened for from the start, and only
        // those dropped (they come before the measured window)
        const m = new Redis(s.slice(s.indexOf("=") + 1), { monitor: true });
        m.on("error", (err: Error) => {
          if (!/Command queue state error/.test(err.message)) monitorErrors.push(err.message);
        });
        await new Promise((r) => m.once("monitoring", r));
        const lines: string[] = [];
        m.on("monitor", (_t: string, args: string[]) => {
          if (/^eval/i.test(args[0] ?? "") && args.some((a) => a.includes(`${c.ns.keyPrefix}board:r-`))) lines.push(args[0]!);
        });
        return { m, lines };
      }),
    );
    await new Promise((r) => setTimeout(r, 200));
    await c.router.getStanding({ playerId: player, boards: refs });
    await c.router.getRanks({ board: "r-high", playerIds: want.slice(0, 300).map((e) => e.playerId) });
    await new Promise((r) => setTimeout(r, 200));
    for (const { m } of monitors) {
      m.removeAllListeners("monitor"); // the count is taken: lines still in flight are dropped like those before
      m.disconnect();
    }
    expect(monitorErrors).toEqual([]);
    const perShard = monitors.map((x) => x.lines.length);
    console.log(`[reads] script calls per shard for one GetStanding of 5 boards and one GetRanks of 300 players: ${perShard.join(", ")}`);
    // GetStanding: the owner's round, then the others' (3 reads per board, each shard's together); GetRanks:
    // two rounds of one read per shard: 3 commands per shard, 4 where a round's reads split across two turns
    for (const n of perShard) expect(n).toBeLessThanOrEqual(4);

    // refusals
    const code = codeOf;
    expect(await code(c.router.getRanks({ board: "r-high", playerIds: [] }))).toBe(status.INVALID_ARGUMENT);
    expect(await code(c.router.getRanks({ board: "r-high", playerIds: ["a", "a"] }))).toBe(status.INVALID_ARGUMENT);
    expect(await code(c.router.getRanks({ board: "r-high", playerIds: Array.from({ length: 1001 }, (_, i) => `x${i}`) }))).toBe(
      status.INVALID_ARGUMENT,
    );
    expect(await code(c.router.getStanding({ playerId: "a", boards: Array.from({ length: 17 }, () => ({ board: "r-high" })) }))).toBe(
      status.INVALID_ARGUMENT,
    );
    expect(await code(c.router.getTop({ board: "r-high", cursor: "garbage" }))).toBe(status.INVALID_ARGUMENT);
    const other = await c.router.getTop({ board: "r-low", limit: 5 });
    expect(await code(c.router.getTop({ board: "r-high", cursor: other.nextCursor }))).toBe(status.INVALID_ARGUMENT);
    expect(await code(c.router.getTop({ board: "r-high", cursor: other.nextCursor, offset: 5n }))).toBe(status.INVALID_ARGUMENT);
    expect(await code(c.router.getTop({ board: "r-high", offset: 9_990n, limit: 20 }))).toBe(status.INVALID_ARGUMENT);
    expect(await code(c.router.getRanks({ board: "nope", playerIds: ["a"] }))).toBe(status.NOT_FOUND);
  });
});

describe("rank change on write", () => {
  it("pages and neighbourhoods with a rank mode answer while players move, never refused; ranks of many at most 1 in 100; every answer checked", async () => {
    const { c, admin } = await cluster();
    // many distinct scores: entries moving into a page nearly always bring points it did not hold
    await admin.createBoard({
      board: { name: "r-moving", defaultOp: Operation.SET, rules: { maxPoints: 1_000_000n, resolutionMs: 1000 } },
    });
    for (const from = Date.now(); ; ) {
      const got = await outcome(c.ingest.submitScores({ updates: [{ board: "r-moving", playerId: "probe", value: 2_000_000n }] }));
      if ("code" in got && got.code === status.INVALID_ARGUMENT) break;
      if (Date.now() - from > 10_000) throw new Error("r-moving not known to ingest");
      await new Promise((r) => setTimeout(r, 20));
    }
    const WIDE: Rules = { lowerIsBetter: false, tie: "earliest", minPoints: 0, maxPoints: 1_000_000, resolutionMs: 1000, epochMs: EPOCH };
    let seed = 17;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const unmoved = new Map(Array.from({ length: 1950 }, (_, i) => [`w-${i}`, { score: rand(1_000_000) }]));
    const movers = Array.from({ length: 50 }, (_, i) => `wm-${i}`);
    const offsets: PartitionOffset[] = [];
    const updates = [
      ...[...unmoved].map(([p, { score }]) => ({ board: "r-moving", playerId: p, value: BigInt(score) })),
      ...movers.map((p) => ({ board: "r-moving", playerId: p, value: BigInt(rand(1_000_000)) })),
    ];
    for (let i = 0; i < updates.length; i += 500)
      offsets.push(...(await c.ingest.submitScores({ updates: updates.slice(i, i + 500) })).offsets);
    await c.waitApplied(offsets);

    let stop = false;
    let moves = 0;
    const problems: string[] = [];
    const n = { pages: 0, arounds: 0, ranks: 0, sweeps: 0, refused: 0, busy: 0 };
    const refusals: string[] = [];
    // GetRanks refused for movement (its players kept moving for every round): counted, bounded below; a page or a
    // neighbourhood is never refused for movement (page-ties.ts); refused by a shard of a busy machine (a heartbeat
    // missed): asked again
    const refusedFor = (o: { code: number; details: string }, ranks = false): "moving" | "busy" | undefined =>
      o.code !== status.UNAVAILABLE || o.details === ""
        ? undefined
        : /kept (moving|entering)/.test(o.details)
          ? ranks
            ? (n.refused++, refusals.push(o.details), "moving")
            : undefined
          : (n.busy++, "busy");
    // two writers, one mover each call, without pause: every answer below is read while players move
    const writers = [0, 1].map(async () => {
      while (!stop) {
        const p = movers[rand(movers.length)]!;
        offsets.push(
          ...(await c.ingest.submitScores({ updates: [{ board: "r-moving", playerId: p, value: BigInt(rand(1_000_000)) }] })).offsets,
        );
        moves++;
      }
    });
    const movingSince = Date.now();
    const modes = [RankMode.COMPETITION, RankMode.DENSE] as const;
    // two sweepers and two readers at once: each answer takes longer while the movers move
    const sweeper = async (first: number) => {
      for (let sweep = first; sweep < 6; sweep += 2) {
        const rankMode = modes[sweep % 2]!;
        let cursor = "";
        let backward = false;
        const seen = new Map<string, number>();
        for (;;) {
          const got = await outcome(c.router.getTop({ board: "r-moving", limit: 50, cursor, rankMode }));
          if ("code" in got) {
            const why = refusedFor(got);
            if (!why) {
              problems.push(`getTop: code ${got.code} ${got.details}`);
              break;
            }
            n.pages++;
            continue; // the same page again
          }
          n.pages++;
          const page = got.ok;
          problems.push(...rulesPageProblems(WIDE, page.entries.map(plain), Number(page.total)).map((p) => `page: ${p}`));
          problems.push(...tiedPageProblems("page", rankMode, page.entries, unmoved, movers.length));
          for (const e of page.entries) seen.set(e.playerId, (seen.get(e.playerId) ?? 0) + 1);
          cursor = backward ? page.previousCursor : page.nextCursor;
          if (cursor) continue;
          if (backward) break;
          // forward done: every unmoved player once; then back from the last page
          for (const p of unmoved.keys()) if (seen.get(p) !== 1) problems.push(`sweep forward: ${p} seen ${seen.get(p) ?? 0} times`);
          seen.clear();
          backward = true;
          cursor = page.previousCursor;
          for (const e of page.entries) seen.set(e.playerId, 1);
          if (!cursor) break;
        }
        if (backward)
          for (const p of unmoved.keys()) if (seen.get(p) !== 1) problems.push(`sweep back: ${p} seen ${seen.get(p) ?? 0} times`);
        n.sweeps++;
      }
    };
    const reader = async () => {
      while (!stop) {
        const rankMode = modes[rand(2)]!;
        const who = rand(2) === 0 ? movers[rand(movers.length)]! : `w-${rand(unmoved.size)}`;
        const around = await outcome(c.router.getAround({ board: "r-moving", playerId: who, radius: 10, rankMode }));
        n.arounds++;
        if ("code" in around) {
          if (!refusedFor(around)) problems.push(`getAround: code ${around.code} ${around.details}`);
        } else {
          const page = around.ok.entries;
          problems.push(...rulesPageProblems(WIDE, page.map(plain), Number(around.ok.total)).map((p) => `around: ${p}`));
          problems.push(...tiedPageProblems("around", rankMode, page, unmoved, movers.length));
          if (!page.some((e) => e.playerId === who)) problems.push(`around: ${who} not in its own neighbourhood`);
        }
        const asked = [
          ...new Set(Array.from({ length: 20 }, () => (rand(4) === 0 ? movers[rand(movers.length)]! : `w-${rand(unmoved.size)}`))),
        ];
        const ranks = await outcome(c.router.getRanks({ board: "r-moving", playerIds: asked, rankMode }));
        n.ranks++;
        if ("code" in ranks) {
          if (!refusedFor(ranks, true)) problems.push(`getRanks: code ${ranks.code} ${ranks.details}`);
          continue;
        }
        const entries = ranks.ok.entries.map((e) => e.entry!);
        if (entries.length !== asked.length) problems.push(`getRanks: ${entries.length} found of ${asked.length}`);
        problems.push(
          ...entries.flatMap((e, i) =>
            i > 0 && (e.rank <= entries[i - 1]!.rank || rulesOrder(WIDE, plain(entries[i - 1]!), plain(e)) >= 0)
              ? [`getRanks: ${e.playerId} out of order`]
              : [],
          ),
        );
        // one by one (not a page): each unmoved player's tied rank within its bounds
        for (const e of entries) problems.push(...tiedPageProblems("getRanks", rankMode, [e], unmoved, movers.length));
      }
    };
    const readers = [reader(), reader()];
    await Promise.all([sweeper(0), sweeper(1)]);
    stop = true;
    await Promise.all([...readers, ...writers]);
    const ms = Date.now() - movingSince;
    console.log(`[reads] rank modes under motion: ${moves} moves in ${ms} ms (${Math.round((moves * 1000) / ms)}/s): ${JSON.stringify(n)}`);
    if (refusals.length > 0) console.log(`[reads] refused: ${[...new Set(refusals)].join(" | ")}`);
    expect(problems.slice(0, 5)).toEqual([]);
    expect(n.sweeps).toBe(6);
    expect(n.refused).toBeLessThanOrEqual(0.01 * n.ranks);

    // at rest, after the motion: the whole board by cursor pages, in each rank mode, its tied ranks
    // counted from the entries above each; then the same after a rebuild from the log
    await c.waitApplied(offsets);
    const wholeBoard = async () => {
      const rows: Array<[string, bigint, bigint, bigint, bigint]> = [];
      for (const rankMode of modes) {
        const all: TiedEntry[] = [];
        for (let cursor = "", first = true; first || cursor; first = false) {
          const page = await c.router.getTop({ board: "r-moving", limit: 200, cursor, rankMode });
          all.push(...page.entries);
          cursor = page.nextCursor;
        }
        expect(all.length).toBe(unmoved.size + movers.length);
        all.forEach((e, i) => {
          const better = all.slice(0, i).filter((x) => x.score > e.score);
          const want = 1 + (rankMode === RankMode.COMPETITION ? better.length : new Set(better.map((x) => x.score)).size);
          expect(Number(e.tiedRank), `${e.playerId} at rank ${e.rank}, mode ${rankMode}`).toBe(want);
          expect(Number(e.rank)).toBe(i + 1);
          rows.push([e.playerId, e.score, e.rank, e.tiedRank, BigInt(rankMode)]);
        });
      }
      return rows;
    };
    // and neighbourhoods with tied ranks: the board's rows around each player
    const aroundsMatch = async () => {
      for (const rankMode of modes) {
        const rows = atRest.filter((r) => r[4] === BigInt(rankMode));
        for (let k = 0; k < 10; k++) {
          const at = rand(rows.length);
          const got = await c.router.getAround({ board: "r-moving", playerId: rows[at]![0], radius: 10, rankMode });
          expect(got.entries.map((e) => [e.playerId, e.score, e.rank, e.tiedRank, BigInt(rankMode)])).toEqual(
            rows.slice(Math.max(0, at - 10), at + 11),
          );
        }
      }
    };
    const atRest = await wholeBoard();
    await aroundsMatch();
    for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
    await c.waitApplied(offsets);
    expect(await wholeBoard()).toEqual(atRest);
    await aroundsMatch();
  });

  it("a write reports its player's rank before and after on each board it touched: exact on a quiet board, consistent while others write", async () => {
    const { c, admin } = await cluster();
    const rules: Rules = { ...HIGH, maxPoints: 200 };
    for (const name of ["r-report", "r-report-b"])
      await admin.createBoard({ board: { name, defaultOp: Operation.INCREMENT, rules: { maxPoints: 200n, resolutionMs: 60_000 } } });
    for (const board of ["r-report", "r-report-b"]) {
      for (
        const from = Date.now();
        (await codeOf(c.ingest.submitScores({ updates: [{ board, playerId: "probe", value: 1000n }] }))) !== status.INVALID_ARGUMENT;
      ) {
        if (Date.now() - from > 10_000) throw new Error(`${board} not known to ingest`);
      }
    }
    const oracles = { "r-report": new RulesOracle(rules), "r-report-b": new RulesOracle(rules) };
    let seed = 11;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const base = Date.now() - 3600_000;
    const fill = Array.from({ length: 200 }, (_, i) => {
      const v = rand(40);
      const at = base + rand(5) * 60_000;
      for (const o of Object.values(oracles)) o.apply(`q-${i}`, "inc", v, at);
      return { board: "r-report", playerId: `q-${i}`, value: BigInt(v), timestampMs: BigInt(at), alsoBoards: ["r-report-b"] };
    });
    await c.waitApplied((await c.ingest.submitScores({ updates: fill })).offsets);
    // quiet: one reported write at a time, each against the oracle
    const rankIn = (o: RulesOracle, p: string) => o.sorted().find((e) => e.playerId === p);
    for (let n = 0; n < 20; n++) {
      const player = `q-${rand(230)}`; // some new
      const v = rand(25);
      const at = base + (10 + n) * 60_000;
      const before = Object.fromEntries(Object.entries(oracles).map(([b, o]) => [b, rankIn(o, player)]));
      const res = await c.ingest.submitScores({
        updates: [{ board: "r-report", playerId: player, value: BigInt(v), timestampMs: BigInt(at), alsoBoards: ["r-report-b"] }],
        reportRanks: true,
      });
      for (const o of Object.values(oracles)) o.apply(player, "inc", v, at);
      expect(res.rankChanges.map((r) => r.board)).toEqual(["r-report", "r-report-b"]);
      for (const r of res.rankChanges) {
        const o = oracles[r.board as keyof typeof oracles];
        const after = rankIn(o, player)!;
        const was = before[r.board];
        expect(
          {
            prev: Number(r.previousRank),
            now: Number(r.newRank),
            prevScore: was ? Number(r.previousScore) : undefined,
            score: Number(r.newScore),
            total: Number(r.total),
          },
          `${player} +${v} on ${r.board}`,
        ).toEqual({ prev: was?.rank ?? 0, now: after.rank, prevScore: was?.score, score: after.score, total: o.sorted().length });
      }
    }
    // others write meanwhile: each report is consistent (a better score never a worse rank), ranks within the board
    let stop = false;
    const others = (async () => {
      while (!stop) {
        const updates = Array.from({ length: 50 }, () => ({
          board: "r-report",
          playerId: `q-${rand(200)}`,
          value: BigInt(rand(3)),
          alsoBoards: ["r-report-b"],
        }));
        await c.ingest.submitScores({ updates });
      }
    })();
    const problems: string[] = [];
    let reports = 0;
    for (let n = 0; n < 20; n++) {
      const updates = Array.from({ length: 5 }, (_, i) => ({
        board: "r-report",
        playerId: `q-${(n * 5 + i) % 200}`,
        value: BigInt(rand(4)),
        alsoBoards: ["r-report-b"],
      }));
      const res = await c.ingest.submitScores({ updates, reportRanks: true });
      for (const r of res.rankChanges) {
        reports++;
        const where = `${r.board} update ${r.updateIndex}`;
        if (r.previousRank < 1n || r.newRank < 1n || r.newRank > r.total || r.previousRank > r.total)
          problems.push(`${where}: ranks ${r.previousRank} -> ${r.newRank} of ${r.total}`);
        if (r.newScore > r.previousScore && r.newRank > r.previousRank)
          problems.push(`${where}: ${r.previousScore} -> ${r.newScore} but rank ${r.previousRank} -> ${r.newRank}`);
        if (r.newScore === r.previousScore && r.newRank !== r.previousRank)
          problems.push(`${where}: same score, rank ${r.previousRank} -> ${r.newRank}`);
      }
    }
    stop = true;
    await others;
    expect(problems.slice(0, 5)).toEqual([]);
    expect(reports).toBe(20 * 5 * 2);
    expect(
      await codeOf(
        c.ingest.submitScores({
          updates: Array.from({ length: 101 }, (_, i) => ({ board: "r-report", playerId: `z-${i}`, value: 1n })),
          reportRanks: true,
        }),
      ),
    ).toBe(status.INVALID_ARGUMENT);
  });
});

describe("histograms and approximate ranks", () => {
  it("each board key's histogram is kept current on apply and summed over the shards; approximate ranks state bounds the exact rank lies in", async () => {
    const { c, admin } = await cluster();
    const BOUNDS = [10, 20, 30, 40, 60];
    const rules: Rules = { ...HIGH, maxPoints: 100 };
    const lowRules: Rules = { ...LOW, maxPoints: 100 };
    await admin.createBoard({
      board: {
        name: "r-hist",
        defaultOp: Operation.SET,
        rules: { maxPoints: 100n, resolutionMs: 60_000, histogramBounds: BOUNDS.map(BigInt) },
      },
    });
    await admin.createBoard({
      board: {
        name: "r-hist-low",
        defaultOp: Operation.SET,
        rules: { order: 2, tie: 3, maxPoints: 100n, resolutionMs: 1000, histogramBounds: BOUNDS.map(BigInt) },
      },
    });
    await admin.createBoard({
      board: {
        name: "r-hist-daily",
        defaultOp: Operation.INCREMENT,
        rules: {
          maxPoints: 100n,
          resolutionMs: 60_000,
          period: PeriodKind.DAILY,
          keepPeriods: 2,
          histogramBounds: BOUNDS.map(BigInt),
          windows: [{ name: "2d", periods: 2, combine: WindowCombine.SUM }],
        },
      },
    });
    for (const board of ["r-hist", "r-hist-low", "r-hist-daily"]) {
      for (
        const from = Date.now();
        (await codeOf(c.ingest.submitScores({ updates: [{ board, playerId: "probe", value: 1000n }] }))) !== status.INVALID_ARGUMENT;
      ) {
        if (Date.now() - from > 10_000) throw new Error(`${board} not known to ingest`);
      }
    }
    expect(
      await codeOf(admin.createBoard({ board: { name: "r-hist-bad", rules: { maxPoints: 100n, histogramBounds: [50n, 40n] } } })),
    ).toBe(status.INVALID_ARGUMENT);
    const high = new RulesOracle(rules);
    const low = new RulesOracle(lowRules);
    const days = [dailyId(Date.now() - DAY, "UTC"), dailyId(Date.now(), "UTC")];
    const daily = new Map(days.map((d) => [d, new RulesOracle(rules)]));
    let seed = 23;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const offsets: PartitionOffset[] = [];
    let stop = false;
    const problems: string[] = [];
    let answers = 0;
    let token = "";
    const reader = (async () => {
      while (!stop) {
        const board = ["r-hist", "r-hist-low"][rand(2)]!;
        const asked = Date.now();
        const h = await outcome(c.router.getHistogram({ board }));
        if ("code" in h) {
          problems.push(`getHistogram: ${h.code} ${h.details}`);
          continue;
        }
        answers++;
        const sum = h.ok.buckets.reduce((n, b) => n + b.count, 0n);
        if (sum !== h.ok.total) problems.push(`${board}: buckets hold ${sum}, total ${h.ok.total}`);
        // the router may answer from a histogram it read, but never one read more than its bound before the request
        if (Number(h.ok.readAtMs) < asked - HISTOGRAM_CACHE_MS)
          problems.push(`${board}: histogram read at ${h.ok.readAtMs}, ${asked - Number(h.ok.readAtMs)} ms before the request`);
        const a = await c.router.getApproximateRank({ board, of: { case: "score", value: BigInt(rand(101)) } });
        if (Number(a.readAtMs) < asked - HISTOGRAM_CACHE_MS)
          problems.push(`${board}: approximate rank from a histogram read ${asked - Number(a.readAtMs)} ms before the request`);
        if (!(a.rankAtLeast <= a.rankEstimate && a.rankEstimate <= a.rankAtMost && a.rankAtMost <= a.total + 1n))
          problems.push(`${board}: approximate ${a.rankAtLeast} <= ${a.rankEstimate} <= ${a.rankAtMost} <= ${a.total} + 1 fails`);
      }
    })();
    // 12 rounds of writes, more until the reader has checked enough answers (not a matter of the machine's speed)
    for (let n = 0; n < 12 || (answers <= 5 && n < 100); n++) {
      const updates = Array.from({ length: 80 }, (_, i) => {
        const p = `h-${(n * 31 + i * 7) % 300}`;
        const v = rand(101);
        const at = Date.now() - 3600_000 + Math.min(n, 50) * 60_000;
        high.apply(p, "set", v, at);
        low.apply(p, "set", v, at);
        return { board: "r-hist", playerId: p, value: BigInt(v), timestampMs: BigInt(at), alsoBoards: ["r-hist-low"], op: Operation.SET };
      }).filter((u, i, all) => all.findIndex((x) => x.playerId === u.playerId) === i);
      const dailies = Array.from({ length: 30 }, () => {
        const p = `h-${rand(300)}`;
        const v = 1 + rand(30);
        const ts = rand(2) === 0 ? Date.now() - DAY : Date.now() - rand(600) * 1000;
        const id = dailyId(ts, "UTC");
        (daily.get(id) ?? daily.set(id, new RulesOracle(rules)).get(id)!).apply(p, "inc", v, ts);
        return { board: "r-hist-daily", playerId: p, value: BigInt(v), timestampMs: BigInt(ts) };
      });
      const written = await c.ingest.submitScores({ updates: [...updates, ...dailies] });
      offsets.push(...written.offsets);
      token = written.consistencyToken;
    }
    stop = true;
    await reader;
    expect(problems.slice(0, 5)).toEqual([]);
    expect(answers).toBeGreaterThan(5);
    await c.waitApplied(offsets);
    // at rest: every bucket's count, and the approximate ranks' bounds, from the oracle
    const starts = [0, ...BOUNDS];
    const ranges = starts.map((min, i) => ({ min, max: i + 1 < starts.length ? starts[i + 1]! - 1 : 100 }));
    const histogramOf = (entries: readonly RulesEntry[]) =>
      ranges.map((r) => ({
        minScore: BigInt(r.min),
        maxScore: BigInt(r.max),
        count: BigInt(entries.filter((e) => e.score >= r.min && e.score <= r.max).length),
      }));
    const sumWindow = windowEntries(
      windowRules(rules, "sum", 2),
      "sum",
      days.map((d) => daily.get(d)?.sorted()),
    );
    const expectations: Array<[string, { board: string; period?: string; window?: string }, RulesEntry[], Rules]> = [
      ["r-hist", { board: "r-hist" }, high.sorted(), rules],
      ["r-hist-low", { board: "r-hist-low" }, low.sorted(), lowRules],
      ...days.map((d): [string, { board: string; period: string }, RulesEntry[], Rules] => [
        `r-hist-daily@${d}`,
        { board: "r-hist-daily", period: d },
        daily.get(d)!.sorted(),
        rules,
      ]),
    ];
    // with the last write's token: read after it was applied, never from the router's memory
    for (const [label, where, entries] of expectations) {
      const h = await c.router.getHistogram({ ...where, consistencyToken: token });
      expect(
        { buckets: h.buckets.map((b) => ({ minScore: b.minScore, maxScore: b.maxScore, count: b.count })), total: Number(h.total) },
        `histogram of ${label}`,
      ).toEqual({ buckets: histogramOf(entries), total: entries.length });
    }
    // the SUM window: the same bounds, its last bucket up to the window's sums (200)
    const win = await c.router.getHistogram({ board: "r-hist-daily", window: "2d", consistencyToken: token });
    expect(win.buckets.map((b) => Number(b.count))).toEqual(
      ranges.map((r, i) => sumWindow.filter((e) => e.score >= r.min && (i === ranges.length - 1 || e.score <= r.max)).length),
    );
    for (const [label, where, entries, r] of expectations.slice(0, 2)) {
      const better = (a: number, b: number) => (r.lowerIsBetter ? a < b : a > b);
      for (const e of entries.filter((_, i) => i % 23 === 0)) {
        const a = await c.router.getApproximateRank({ ...where, of: { case: "playerId", value: e.playerId }, consistencyToken: token });
        const bucket = ranges.find((x) => e.score >= x.min && e.score <= x.max)!;
        const ahead = entries.filter(
          (x) =>
            (better(x.score, bucket.min) && better(x.score, bucket.max)) || (r.lowerIsBetter ? x.score < bucket.min : x.score > bucket.max),
        ).length;
        const inBucket = entries.filter((x) => x.score >= bucket.min && x.score <= bucket.max).length;
        expect(
          { atLeast: Number(a.rankAtLeast), atMost: Number(a.rankAtMost), score: Number(a.score) },
          `${label}: approximate rank of ${e.playerId}`,
        ).toEqual({ atLeast: ahead + 1, atMost: ahead + inBucket, score: e.score });
        expect(e.rank >= Number(a.rankAtLeast) && e.rank <= Number(a.rankAtMost), `${label}: exact rank ${e.rank} within the bounds`).toBe(
          true,
        );
      }
    }
    // without a token, once the bound has passed since the writes were applied, the router's memory holds them too
    await new Promise((r) => setTimeout(r, HISTOGRAM_CACHE_MS + 50));
    expect(
      (await c.router.getHistogram({ board: "r-hist" })).buckets.map((b) => b.count),
      "r-hist without a token, past the cache's bound",
    ).toEqual(histogramOf(high.sorted()).map((b) => b.count));
    const top = high.sorted()[0]!;
    const cached = await c.router.getApproximateRank({ board: "r-hist", of: { case: "score", value: BigInt(top.score) } });
    expect(Number(cached.rankAtLeast), "approximate rank of the best score from memory").toBe(1);
    // an erasure takes its entries out of the counts
    const gone = high.sorted()[0]!;
    const erased = await c.ingest.deletePlayer({ playerId: gone.playerId, boards: ["r-hist"] });
    await c.waitApplied([erased.offset!]);
    high.remove(gone.playerId);
    expect(
      (await c.router.getHistogram({ board: "r-hist", consistencyToken: erased.consistencyToken })).buckets.map((b) => b.count),
    ).toEqual(histogramOf(high.sorted()).map((b) => b.count));
    await admin.createBoard({ board: { name: "r-hist-none" } });
    expect(await codeOf(c.router.getHistogram({ board: "r-hist-none" }))).toBe(status.FAILED_PRECONDITION);
  });
});
