// The rank index (router/src/rank-index, LADDER_RANK_INDEX_BOARDS) on the real processes: GetRank of
// an indexed board counts the other shards from the router's copies of them, kept from the shards'
// change streams, and GetRanks counts every shard there once its players' owners confirmed where they
// stand. What must hold:
//   - at rest, every player's GetRank, and GetRanks of every player in batches (unique and competition
//     ranks), equal the oracle's ranks and total exactly, and the copies answered
//     (ladder_router_rank_index_total{source="index"} grows);
//   - while a writer moves a dozen hot players and readers ask GetRank of every kind of player at
//     once, every answer is exact at some instant: total = the board's size, the static players strictly
//     ahead of the (score, time) returned are known from the oracle, so rank lies in
//     [1 + static ahead, 1 + static ahead + hot players other than the one asked], and a static
//     player shows the oracle's score and time; a GetRanks answer of static and hot players at once
//     holds each player once, ranks among them 1..k in rank order, each rank within the same bounds,
//     each competition rank within [1 + static with better points, that + hot players], and between
//     any two static players of one answer the static players between them and at most every hot one;
//     one read in rounds (a copy behind for a player asked) may be refused for movement (documented in
//     reads.md, never a wrong answer); this writer moves its players far more often than reads.int's, so
//     the bound is 1 in 10 GetRanks, there to catch rounds that never settle;
//   - the same through a rebuild of one shard under the readers (its data swapped: its copy's feed
//     resets and the copy is built again; UNAVAILABLE from the rebuilt shard while it is rebuilt,
//     swapped and catching up with the log, as without the index, is counted apart), and at rest
//     after it, exactly, with the copies answering.
//   - GetAround (unique and competition ranks) of an indexed board reads its player's owner and takes the
//     other shards' windows and ties from the copies: at rest every answer equals the oracle's window and
//     competition ranks; under motion and through the rebuild every answer holds the asked player once
//     with its radius each side (clipped at the board's ends), no player twice, ranks consecutive, entries
//     in the board's order, total the board's size, each rank within its static bounds, each competition
//     rank within [1 + static with better points, that + hot players] and equal for equal points, and
//     each static player at the oracle's score;
//   - a board whose entries keep metadata, whether kept before its copies were made or first written
//     after (the change stream's marker), answers GetAround with every entry's metadata (the copies
//     hold none: the other shards are read).
// The board's order is written out in oracle.ts and moving-board.ts, not imported from the implementation.
import { createServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "@ladder/platform/config";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { LeaderboardService, RankMode } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { outcome, spawnMore, startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";
import { Oracle } from "./oracle.js";
import { Scrape } from "./prom-text.js";
import { aheadOf, order, seeded, type Standing } from "./moving-board.js";

const BOARD = "ri";
/** Boards whose entries keep metadata: written with it before its copies are made, and first after. */
const META_BOARD = "ri-meta";
const LATE_META_BOARD = "ri-late";
const META_PLAYERS = 40;
const STATIC = 600;
const HOT = 12;
const TOTAL = STATIC + HOT;
const MAX_LAG_MS = 500;
const READERS = 8;
const HOT_MAX = 3_000; // static points span 0..2,995

const staticId = (i: number) => `s${String(i).padStart(3, "0")}`;
/** When the metadata boards' scores were reached (their metadata written later keeps them). */
const metaBase = Date.now() - 3_600_000;
const metaPlayers = Array.from({ length: META_PLAYERS }, (_, i) => `m${String(i).padStart(2, "0")}`);
const hotId = (i: number) => `h${String(i).padStart(2, "0")}`;
const hotIds = Array.from({ length: HOT }, (_, i) => hotId(i));
const isHot = new Set(hotIds);
const { rand, randInt } = seeded(2026_1205);

let c: TestCluster;
let admin: ClientOf<typeof AdminService>;
const oracle = new Oracle((b) => loadConfig({}).boards.forBoard(b));
let statics: Standing[] = [];
const staticById = new Map<string, Standing>();

const sources = async () => {
  const s = await Scrape.of(c.services.metricsUrl("router"));
  return {
    index: s.sum("ladder_router_rank_index_total", { source: "index" }),
    shard: s.sum("ladder_router_rank_index_total", { source: "shard" }),
  };
};

async function submit(
  updates: Array<{ playerId: string; value: number; timestampMs: number; metadata?: string }>,
  board = BOARD,
): Promise<PartitionOffset[]> {
  const res = await c.ingest.submitScores({
    updates: updates.map((u) => ({
      board,
      playerId: u.playerId,
      op: Operation.SET,
      value: BigInt(u.value),
      timestampMs: BigInt(u.timestampMs),
      metadata: u.metadata ?? "",
    })),
  });
  expect(res.accepted).toBe(updates.length);
  for (const u of updates) oracle.apply({ board, op: Operation.SET, ...u });
  return res.offsets;
}

/** The entries with better points than `points`, on the board the oracle holds now. */
const betterPoints = (points: number) => oracle.sorted(BOARD).filter((e) => e.score > points).length;

/** Every player's GetRank and GetRanks (batches of 100, unique and competition) against the oracle, exactly: the problems found. */
async function exactAtRest(): Promise<string[]> {
  const want = oracle.byPlayer(BOARD);
  const out: string[] = [];
  const ids = [...want.keys()];
  for (let from = 0; from < ids.length; from += 100)
    for (const rankMode of [RankMode.UNSPECIFIED, RankMode.COMPETITION]) {
      const asked = ids.slice(from, from + 100);
      const got = await outcome(c.router.getRanks({ board: BOARD, playerIds: asked, rankMode }));
      if ("code" in got) {
        out.push(`GetRanks from ${from}: ${got.code} ${got.details}`);
        continue;
      }
      if (Number(got.ok.total) !== TOTAL || got.ok.missing.length || got.ok.entries.length !== asked.length)
        out.push(`GetRanks from ${from}: ${got.ok.entries.length} found, ${got.ok.missing.length} missing, total ${got.ok.total}`);
      for (const { entry } of got.ok.entries) {
        const w = want.get(entry!.playerId)!;
        const tied = rankMode === RankMode.COMPETITION ? 1 + betterPoints(w.score) : 0;
        if (Number(entry!.rank) !== w.rank || Number(entry!.score) !== w.score || Number(entry!.tiedRank) !== tied)
          out.push(
            `GetRanks ${entry!.playerId}: rank ${entry!.rank} tied ${entry!.tiedRank} at ${entry!.score}, oracle ${w.rank} tied ${tied} at ${w.score}`,
          );
      }
    }
  // GetAround of every fifth player, radius 3: the oracle's window exactly
  const sorted = oracle.sorted(BOARD);
  await Promise.all(
    sorted
      .filter((_, i) => i % 5 === 0)
      .map(async (w) => {
        const got = await outcome(c.router.getAround({ board: BOARD, playerId: w.playerId, radius: 3, rankMode: RankMode.COMPETITION }));
        if ("code" in got) return void out.push(`GetAround ${w.playerId}: ${got.code} ${got.details}`);
        const seen = got.ok.entries.map((e) => `${e.playerId}#${e.rank}(${e.tiedRank})@${e.score}`).join(" ");
        const expected = sorted
          .slice(Math.max(0, w.rank - 4), w.rank + 3)
          .map((e) => `${e.playerId}#${e.rank}(${1 + betterPoints(e.score)})@${e.score}`)
          .join(" ");
        if (seen !== expected || Number(got.ok.total) !== TOTAL)
          out.push(`GetAround ${w.playerId}: [${seen}] of ${got.ok.total}, oracle [${expected}] of ${TOTAL}`);
      }),
  );
  await Promise.all(
    [...want.values()].map(async (w) => {
      const got = await outcome(c.router.getRank({ board: BOARD, playerId: w.playerId }));
      if ("code" in got) return void out.push(`${w.playerId}: ${got.code} ${got.details}`);
      const e = got.ok.entry!;
      if (Number(e.rank) !== w.rank || Number(got.ok.total) !== TOTAL || Number(e.score) !== w.score)
        out.push(`${w.playerId}: rank ${e.rank} of ${got.ok.total} at ${e.score}, oracle ${w.rank} of ${TOTAL} at ${w.score}`);
    }),
  );
  return out;
}

/** Waits until the copies answer (the router's index counted a shard) and every answer is exact. */
async function settle(label: string): Promise<{ index: number; shard: number }> {
  const until = Date.now() + 60_000;
  let last: string[] = [];
  for (;;) {
    const before = await sources();
    last = await exactAtRest();
    const after = await sources();
    if (last.length === 0 && after.index - before.index >= TOTAL)
      return { index: after.index - before.index, shard: after.shard - before.shard };
    if (Date.now() > until) throw new Error(`${label}: not exact from the index within 60 s: ${last.slice(0, 5).join("; ")}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  c = await startTestCluster("rankindex", {
    ownRedis: true, // it rebuilds a shard
    settings: {
      LADDER_RANK_INDEX_BOARDS: [BOARD, META_BOARD, LATE_META_BOARD].join(","),
      LADDER_RANK_INDEX_MAX_LAG_MS: String(MAX_LAG_MS),
    },
  });
  admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
  // static players: points in steps of 15 shared by threes, two time units, so exact-key ties fall to the player id
  const base = Date.now() - 3_600_000;
  const offsets = await submit(
    Array.from({ length: STATIC }, (_, i) => ({
      playerId: staticId(i),
      value: 15 * Math.floor(i / 3),
      timestampMs: base + (i % 2) * 60_000,
    })),
  );
  statics = oracle.sorted(BOARD).map(({ playerId, score, reachedAtMs }) => ({ playerId, points: score, reachedAtMs }));
  for (const s of statics) staticById.set(s.playerId, s);
  offsets.push(...(await submit(hotIds.map((playerId) => ({ playerId, value: randInt(0, HOT_MAX), timestampMs: Date.now() })))));
  // boards that keep metadata: ingest refuses their metadata (nothing written) until it has seen their definitions, in order
  for (const name of [LATE_META_BOARD, META_BOARD])
    await admin.createBoard({ board: { name, defaultOp: Operation.SET, maxMetadataBytes: 64 } });
  for (const until = Date.now() + 30_000; ; ) {
    const got = await outcome(
      submit(
        metaPlayers.map((playerId, i) => ({ playerId, value: 10 * i, timestampMs: metaBase, metadata: `md-${playerId}` })),
        META_BOARD,
      ),
    );
    if ("ok" in got) {
      offsets.push(...got.ok);
      break;
    }
    if (got.code !== 3 || Date.now() > until) throw new Error(`${META_BOARD}: ${got.code} ${got.details}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  offsets.push(
    ...(await submit(
      metaPlayers.map((playerId, i) => ({ playerId, value: 10 * i, timestampMs: metaBase })),
      LATE_META_BOARD,
    )),
  );
  await c.waitApplied(offsets);
}, 120_000);

afterAll(async () => {
  admin?.close();
  await c?.stop();
});

describe("rank index", () => {
  it("answers every GetRank exactly at rest, from the copies", async () => {
    const counted = await settle("at start");
    console.log(`[rank-index] at rest: ${JSON.stringify(counted)}`);
    // each GetRank counts the 2 shards that do not own its player: all from the copies when they are current
    expect(counted.index).toBeGreaterThanOrEqual(TOTAL);
  });

  it("stays exact while players move and readers ask, through a rebuild of a shard, and after it", { timeout: 180_000 }, async () => {
    const problems: string[] = [];
    const counts = { answers: 0, ranksAnswers: 0, aroundAnswers: 0, ranksMoving: 0, refused: 0, batches: 0 };
    const statics0 = statics;
    let writing = true;
    const writer = async () => {
      while (writing) {
        const half = hotIds.filter(() => rand() < 0.5);
        const picked = half.length ? half : [hotIds[randInt(0, HOT - 1)]!]; // a batch holds at least one update
        await submit(picked.map((playerId) => ({ playerId, value: randInt(0, HOT_MAX), timestampMs: Date.now() })));
        counts.batches++;
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    // refusals by shard-1 while it is rebuilt (the swap, then catching up with the log) are the shard's, index or not
    const rebuild = { from: Infinity };
    // GetRanks of static and hot players at once: checked as a whole (the header's rules)
    const ranksReader = async () => {
      while (writing) {
        const asked = [
          ...new Set(Array.from({ length: 20 }, () => (rand() < 0.3 ? hotIds[randInt(0, HOT - 1)]! : staticId(randInt(0, STATIC - 1))))),
        ];
        const rankMode = rand() < 0.5 ? RankMode.UNSPECIFIED : RankMode.COMPETITION;
        const sentAt = performance.now();
        const got = await outcome(c.router.getRanks({ board: BOARD, playerIds: asked, rankMode }));
        if ("code" in got) {
          if (got.code === 14 && got.details.startsWith("shard-1: ") && sentAt >= rebuild.from) counts.refused++;
          // read in rounds (a copy behind for a player asked), the players kept moving: refused, never answered wrong (reads.md)
          else if (got.code === 14 && got.details.includes("kept moving")) counts.ranksMoving++;
          else problems.push(`GetRanks: ${got.code} ${got.details}`);
          continue;
        }
        counts.ranksAnswers++;
        const { entries, missing, total } = got.ok;
        if (Number(total) !== TOTAL || missing.length || entries.length !== asked.length)
          problems.push(`GetRanks: ${entries.length} of ${asked.length} found, missing ${missing}, total ${total}`);
        if (new Set(entries.map((e) => e.entry!.playerId)).size !== entries.length) problems.push("GetRanks: a player twice");
        const seenStatics: Array<{ seen: Standing; rank: number }> = [];
        entries.forEach(({ entry, rankAmong }, i) => {
          const e = entry!;
          const seen = { playerId: e.playerId, points: Number(e.score), reachedAtMs: Number(e.reachedAtMs) };
          const rank = Number(e.rank);
          if (rankAmong !== i + 1) problems.push(`GetRanks: ${e.playerId} rank among ${rankAmong} at place ${i + 1}`);
          if (i > 0 && rank <= Number(entries[i - 1]!.entry!.rank)) problems.push(`GetRanks: ranks not increasing at ${e.playerId}`);
          const others = HOT - (isHot.has(e.playerId) ? 1 : 0);
          const lo = 1 + aheadOf(statics0, seen);
          if (rank < lo || rank > lo + others) problems.push(`GetRanks: ${e.playerId} rank ${rank} outside [${lo}, ${lo + others}]`);
          if (rankMode === RankMode.COMPETITION) {
            const tlo = 1 + statics0.filter((x) => x.points > seen.points).length;
            if (Number(e.tiedRank) < tlo || Number(e.tiedRank) > tlo + others)
              problems.push(`GetRanks: ${e.playerId} competition rank ${e.tiedRank} outside [${tlo}, ${tlo + others}]`);
          }
          const truth = staticById.get(e.playerId);
          if (truth) {
            if (truth.points !== seen.points || truth.reachedAtMs !== seen.reachedAtMs)
              problems.push(`GetRanks: ${e.playerId} not at the oracle's score`);
            seenStatics.push({ seen, rank });
          }
        });
        // two static players of one answer: the static players between them, and at most every hot player
        for (let i = 1; i < seenStatics.length; i++) {
          const [a, b] = [seenStatics[i - 1]!, seenStatics[i]!];
          const between = aheadOf(statics0, b.seen) - aheadOf(statics0, a.seen);
          const gap = b.rank - a.rank;
          if (gap < between || gap > between + HOT)
            problems.push(`GetRanks: ${b.seen.playerId} ${gap} ranks after ${a.seen.playerId}, ${between} static between`);
        }
      }
    };
    // GetAround (no rank mode): each answer checked as a whole (the header's rules)
    const aroundReader = async () => {
      while (writing) {
        const playerId = rand() < 0.3 ? hotIds[randInt(0, HOT - 1)]! : staticId(randInt(0, STATIC - 1));
        const radius = randInt(1, 6);
        const rankMode = rand() < 0.5 ? RankMode.UNSPECIFIED : RankMode.COMPETITION;
        const sentAt = performance.now();
        const got = await outcome(c.router.getAround({ board: BOARD, playerId, radius, rankMode }));
        if ("code" in got) {
          if (got.code === 14 && got.details.startsWith("shard-1: ") && sentAt >= rebuild.from) counts.refused++;
          else problems.push(`GetAround ${playerId}: ${got.code} ${got.details}`);
          continue;
        }
        counts.aroundAnswers++;
        const entries = got.ok.entries.map((e) => ({
          playerId: e.playerId,
          points: Number(e.score),
          reachedAtMs: Number(e.reachedAtMs),
          rank: Number(e.rank),
          tiedRank: Number(e.tiedRank),
        }));
        const what = `GetAround ${playerId} r${radius} [${entries.map((e) => `${e.playerId}#${e.rank}`).join(" ")}]`;
        if (Number(got.ok.total) !== TOTAL) problems.push(`${what}: total ${got.ok.total}`);
        if (new Set(entries.map((e) => e.playerId)).size !== entries.length) problems.push(`${what}: a player twice`);
        const at = entries.findIndex((e) => e.playerId === playerId);
        if (at < 0) {
          problems.push(`${what}: the player asked is not in it`);
          continue;
        }
        const rank = entries[at]!.rank;
        if (at !== Math.min(radius, rank - 1) || entries.length - at - 1 !== Math.min(radius, TOTAL - rank))
          problems.push(`${what}: not ${radius} each side of rank ${rank} of ${TOTAL}`);
        entries.forEach((e, i) => {
          if (i > 0 && (e.rank !== entries[i - 1]!.rank + 1 || order(entries[i - 1]!, e) >= 0))
            problems.push(`${what}: ${e.playerId} not right after ${entries[i - 1]!.playerId}`);
          const lo = 1 + aheadOf(statics0, e);
          const hi = lo + HOT - (isHot.has(e.playerId) ? 1 : 0);
          if (e.rank < lo || e.rank > hi) problems.push(`${what}: ${e.playerId} rank ${e.rank} outside [${lo}, ${hi}]`);
          if (rankMode === RankMode.COMPETITION) {
            // 1 + the static players with better points, and at most every hot one; equal points, equal ranks
            const tlo = 1 + statics0.filter((x) => x.points > e.points).length;
            if (e.tiedRank < tlo || e.tiedRank > tlo + hi - lo)
              problems.push(`${what}: ${e.playerId} competition rank ${e.tiedRank} outside [${tlo}, ${tlo + hi - lo}]`);
            if (i > 0 && entries[i - 1]!.points === e.points && entries[i - 1]!.tiedRank !== e.tiedRank)
              problems.push(
                `${what}: ${e.playerId} and ${entries[i - 1]!.playerId} tie at ${e.points} with ranks ${entries[i - 1]!.tiedRank} and ${e.tiedRank}`,
              );
          } else if (e.tiedRank !== 0) problems.push(`${what}: ${e.playerId} has a tied rank without a rank mode`);
          const truth = staticById.get(e.playerId);
          if (truth && (truth.points !== e.points || truth.reachedAtMs !== e.reachedAtMs))
            problems.push(`${what}: ${e.playerId} not at the oracle's score`);
        });
      }
    };
    const reader = async () => {
      while (writing) {
        const playerId = rand() < 0.3 ? hotIds[randInt(0, HOT - 1)]! : staticId(randInt(0, STATIC - 1));
        const sentAt = performance.now();
        const got = await outcome(c.router.getRank({ board: BOARD, playerId }));
        if ("code" in got) {
          if (got.code === 14 && got.details.startsWith("shard-1: ") && sentAt >= rebuild.from) counts.refused++;
          else problems.push(`${playerId}: ${got.code} ${got.details}`);
          continue;
        }
        counts.answers++;
        const e = got.ok.entry!;
        const seen = { playerId, points: Number(e.score), reachedAtMs: Number(e.reachedAtMs) };
        const rank = Number(e.rank);
        if (Number(got.ok.total) !== TOTAL) problems.push(`${playerId}: total ${got.ok.total}`);
        const lo = 1 + aheadOf(statics, seen);
        const hi = lo + HOT - (isHot.has(playerId) ? 1 : 0);
        if (rank < lo || rank > hi) problems.push(`${playerId} (${seen.points}, ${seen.reachedAtMs}): rank ${rank} outside [${lo}, ${hi}]`);
        const truth = staticById.get(playerId);
        if (truth && (truth.points !== seen.points || truth.reachedAtMs !== seen.reachedAtMs))
          problems.push(`${playerId} shows (${seen.points}, ${seen.reachedAtMs}), not the oracle's`);
      }
    };
    // reads go on at least `ms`, and until `answers` were checked (the machine's load varies several times over), at most 60 s
    const readFor = async (ms: number, answers: number) => {
      const [from, last] = [Date.now(), Date.now() + 60_000];
      while ((Date.now() - from < ms || counts.answers < answers) && Date.now() < last) await new Promise((r) => setTimeout(r, 100));
    };
    const before = await sources();
    const running = Promise.all([
      writer(),
      ...Array.from({ length: READERS }, () => reader()),
      ranksReader(),
      ranksReader(),
      aroundReader(),
      aroundReader(),
    ]);
    await readFor(4_000, 300);
    const mid = await sources();
    // a rebuild swaps shard-1's data under the readers: its copy's feed resets and the copy is built again
    const rebuildsBefore = (await Scrape.of(c.services.metricsUrl("router"))).sum("ladder_router_rank_index_rebuilds_total");
    rebuild.from = performance.now();
    for await (const p of admin.rebuildShards({ shardIds: ["shard-1"] })) void p;
    // and while it catches up with the log after the swap, however long the machine's load makes that
    // (a shard that never serves again fails the exact reads at rest below)
    await readFor(4_000, counts.answers + 300);
    writing = false;
    await running;
    const during = await sources();
    const rebuilds = (await Scrape.of(c.services.metricsUrl("router"))).sum("ladder_router_rank_index_rebuilds_total") - rebuildsBefore;
    const after = await settle("after the rebuild");
    console.log(
      `[rank-index] under motion: ${JSON.stringify({ ...counts, problems: problems.length, first: problems.slice(0, 3), fromIndex: mid.index - before.index, fromShards: mid.shard - before.shard, wholeRun: { index: during.index - before.index, shard: during.shard - before.shard }, copiesRebuilt: rebuilds, afterRebuild: after })}`,
    );
    expect(problems.slice(0, 10)).toEqual([]);
    expect(counts.answers).toBeGreaterThan(500);
    expect(counts.ranksAnswers).toBeGreaterThan(50);
    expect(counts.aroundAnswers).toBeGreaterThan(50);
    // refused for movement: a minority, at most 1 in 10 GetRanks (the header says why not reads.int's 1 in 100)
    expect(counts.ranksMoving).toBeLessThanOrEqual(Math.ceil((counts.ranksAnswers + counts.ranksMoving) / 10));
    expect(counts.batches).toBeGreaterThan(20);
    expect(mid.index - before.index).toBeGreaterThan(0); // the copies answered while players moved
    expect(rebuilds).toBeGreaterThanOrEqual(1); // shard-1's copy was built again after the swap
  });

  it("reads through the shards, exactly, a board whose copies do not fit LADDER_RANK_INDEX_MAX_ENTRIES", { timeout: 120_000 }, async () => {
    // a second router with room for 100 entries: the board's 612 over 3 shards (about 200 each) do not fit
    const metricsPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const cleanups: Array<() => Promise<unknown>> = [];
    try {
      const small = await spawnMore(c, "router", "router-small", cleanups, {
        LADDER_RANK_INDEX_MAX_ENTRIES: "100",
        LADDER_ROUTER_METRICS_LISTEN: `127.0.0.1:${metricsPort}`,
      });
      const router = createClient(LeaderboardService, small.address, undefined, {}, TEST_TOKENS.read);
      cleanups.push(async () => router.close());
      const want = oracle.byPlayer(BOARD);
      // asked twice, a probe interval apart: the copies were refused at the first ask, and are not tried again for a minute
      for (const round of [1, 2]) {
        for (const w of want.values()) {
          const got = await router.getRank({ board: BOARD, playerId: w.playerId });
          expect([round, w.playerId, Number(got.entry!.rank), Number(got.total)]).toEqual([round, w.playerId, w.rank, TOTAL]);
        }
        const around = await router.getAround({ board: BOARD, playerId: staticId(300), radius: 2 });
        const at = want.get(staticId(300))!.rank;
        expect(around.entries.map((e) => Number(e.rank))).toEqual([at - 2, at - 1, at, at + 1, at + 2]);
        await new Promise((r) => setTimeout(r, 2 * MAX_LAG_MS));
      }
      const scraped = await Scrape.of(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(scraped.sum("ladder_router_rank_index_refused_total")).toBeGreaterThanOrEqual(1);
      expect(scraped.sum("ladder_router_rank_index_total", { source: "index" })).toBe(0);
      expect(scraped.sum("ladder_router_rank_index_entries")).toBeLessThanOrEqual(100);
    } finally {
      for (const stop of cleanups.reverse()) await stop();
    }
  });

  it("answers GetAround of a board that keeps metadata with every entry's metadata, kept before its copies or first after", {
    timeout: 120_000,
  }, async () => {
    // the copies of a board start with its first GetRank, and answer once live: every GetRank then counts both other shards in them
    const copiesLive = async (board: string) => {
      const until = Date.now() + 60_000;
      for (;;) {
        const before = await sources();
        await Promise.all(metaPlayers.map((playerId) => c.router.getRank({ board, playerId })));
        if ((await sources()).index - before.index >= 2 * META_PLAYERS) return;
        if (Date.now() > until) throw new Error(`${board}: its copies did not answer within 60 s`);
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    /** Every player's GetAround (radius 4) against the oracle's window, each entry with `metadata(player)`: the problems. */
    const arounds = async (board: string, metadata: (playerId: string) => string) => {
      const sorted = oracle.sorted(board);
      const out: string[] = [];
      for (const w of sorted) {
        const got = await c.router.getAround({ board, playerId: w.playerId, radius: 4 });
        const seen = got.entries.map((e) => `${e.playerId}#${e.rank}@${e.score}:${e.metadata}`).join(" ");
        const want = sorted
          .slice(Math.max(0, w.rank - 5), w.rank + 4)
          .map((e) => `${e.playerId}#${e.rank}@${e.score}:${metadata(e.playerId)}`)
          .join(" ");
        if (seen !== want) out.push(`${board} around ${w.playerId}: [${seen}], oracle [${want}]`);
      }
      return out;
    };
    const withMetadata = (playerId: string) => `md-${playerId}`;

    // kept before the copies were made: the probe after the scan says so, and GetAround reads the other shards
    await copiesLive(META_BOARD);
    let before = await sources();
    expect(await arounds(META_BOARD, withMetadata)).toEqual([]);
    let after = await sources();
    expect([after.index - before.index, after.shard - before.shard]).toEqual([0, 2 * META_PLAYERS]);

    // none kept yet: the other shards' windows come from the copies
    await copiesLive(LATE_META_BOARD);
    before = await sources();
    expect(await arounds(LATE_META_BOARD, () => "")).toEqual([]);
    after = await sources();
    expect(after.index - before.index).toBeGreaterThan(0); // each copy answers while current within the bound (a busy machine may miss it for some)

    // then every player's metadata, its score unchanged: the copies hear the stream's marker and stop answering GetAround
    await c.waitApplied(
      await submit(
        metaPlayers.map((playerId, i) => ({ playerId, value: 10 * i, timestampMs: metaBase, metadata: withMetadata(playerId) })),
        LATE_META_BOARD,
      ),
    );
    await vi.waitFor(async () => expect(await arounds(LATE_META_BOARD, withMetadata)).toEqual([]), { timeout: 10_000, interval: 200 });
    before = await sources();
    expect(await arounds(LATE_META_BOARD, withMetadata)).toEqual([]);
    after = await sources();
    expect([after.index - before.index, after.shard - before.shard]).toEqual([0, 2 * META_PLAYERS]);
  });
});
