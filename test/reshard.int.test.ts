// Resharding online (issue #13): shards added and removed back and forth with AdminService.Reshard
// (add shard-3, remove shard-1, add shard-4, remove shard-3), beside a larger board that does not move
// (LADDER_TEST_RESHARD_BESIDE players, 20,000 unless set: the moves replay it too), while a writer
// moves a dozen hot players (INCREMENT with event ids) and readers ask GetTop, GetRank and GetAround
// the whole time. No read is refused (the router tries a read again across a move's cut-over, which
// lasts until the changed shards' nodes serve the new placement: issue #31 item 6; the longest wait
// for one answer is printed), and every answer must be exact at some instant:
//   - no player twice, consecutive ranks, entries in the board's order, total = the board's size;
//   - each rank lies in [1 + static players ahead, that + hot players other than it] (only the hot
//     players move; the statics' scores are known), and a static entry shows its own score.
// The shards that stay move in place (store/src/writer/move.ts), the added one is rebuilt. GetRank of
// the moving board counts the other shards from the router's rank index when its copies may answer
// (they are built again for each placement; the shards are read meanwhile): the same checks hold.
// Then, at rest: every hot player's score is the sum of its acknowledged increments (0 lost, 0
// doubled), the whole board equals the oracle, and so do the larger board's total and sampled ranks; each shard's Redis holds exactly the players of
// the slots the new placement gives it (the old owners hold none of the moved ones); reads and
// writes by the old placement are refused by the shards themselves.
// A board with three 64-bit columns (docs/columns.md: its members hold the values, a companion finds a
// player's member) moves with the rest: at rest its every entry is where the oracle puts it and each
// shard holds exactly its slots' players, in the board key and in the companion.
// The shard nodes take snapshots every few thousand records; before the first move every old owner has
// one, and each shard that gains slots in it must seed them from those snapshots (store/src/writer/
// move-seed.ts: the added shard into its spare database, a shard that stays and gains a slot in place) and
// replay only the log after them; the later moves seed from what snapshots there are. The same checks hold.
// LADDER_TEST_RESHARD_SEEDS=0 runs it without snapshots (every gained slot replayed from offset 0),
// to compare the moves' times (printed as reshardMs).
// The board's order is written out here (points desc, reached-at asc, id bytes asc), not imported.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { status } from "@grpc/grpc-js";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { silentLogger } from "@ladder/platform/logger";
import { slotOf } from "@ladder/model/placement";
import { placementOf } from "@ladder/model/placement-record";
import { startRedisServer, type RedisServer } from "@ladder/deploy/redis-server";
import { AdminService, ReshardResponse_Phase as Phase, type ReshardResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, SortOrder, type Entry } from "@ladder/proto/leaderboard/v1/common_pb";
import { playerOfMember } from "@ladder/model/columns";
import { builtFrom, keyLayout, shardStamp, ShardReader, StampMismatch } from "@ladder/store";
import { ShardWriter } from "@ladder/store/writer";
import { loadConfig } from "@ladder/platform/config";
import { aheadOf, order, seeded, type Standing } from "./moving-board.js";
import { outcome, startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";
import { Scrape } from "./prom-text.js";

const BOARD = "moving";
const SLOTS = 12;
const STATIC = 240;
const HOT = 12;
const TOTAL = STATIC + HOT;
const HOT_MAX = 1500;
const READERS = 6;
const BESIDE_BOARD = "beside";
/** A board with columns beside the moving one: COLUMN_PLAYERS static players, values past 2^53. */
const COLUMN_BOARD = "columned";
const COLUMN_PLAYERS = 300;
const columnValues = (i: number) => [BigInt(i % 7) << 60n, BigInt((i * 31) % 11), BigInt(i)];
const columnId = (i: number) => `c${String(i).padStart(4, "0")}`;
const BESIDE = Number(process.env.LADDER_TEST_RESHARD_BESIDE ?? 20_000);
/** LADDER_TEST_RESHARD_SEEDS=0: no snapshots, every gained slot replayed from offset 0 (to compare the moves' times). */
const SEEDS = process.env.LADDER_TEST_RESHARD_SEEDS !== "0";
/** The larger board's players: every tenth score shared by ten players, one reached-at, so ties go by id. */
const besideId = (i: number) => `b${String(i).padStart(8, "0")}`;
const besidePoints = (i: number) => (i * 7919) % Math.max(1, Math.floor(BESIDE / 10));
const log = silentLogger();

const staticId = (i: number) => `s${String(i).padStart(3, "0")}`;
const hotIds = Array.from({ length: HOT }, (_, i) => `h${String(i).padStart(2, "0")}`);
const isHot = new Set(hotIds);
const { rand, randInt } = seeded(13_2026);

let dataDir: string;
let redis: RedisServer[] = [];
let c: TestCluster;
let admin: ClientOf<typeof AdminService>;
const statics: Standing[] = [];
let columnStored = "";
const staticById = new Map<string, Standing>();

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "ladder-reshard-"));
  // own Redis servers: a reshard swaps whole databases (SWAPDB); the fourth and fifth are the shards added
  redis = await Promise.all([0, 1, 2, 3, 4].map((i) => startRedisServer({ dataDir: join(dataDir, `r${i}`), persist: false, log })));
  c = await startTestCluster("reshard", {
    redisUrls: redis.slice(0, 3).map((r) => r.url),
    // GetRank of the moving board goes through the rank index (router/src/rank-index) when its copies may answer
    // snapshots small and often: the added shard and the shards that gain a removed one's slots seed from them (move-seed.ts)
    settings: {
      LADDER_SNAPSHOTS: SEEDS ? "1" : "0",
      LADDER_SNAPSHOT_RECORDS: "3000",
      LADDER_SNAPSHOT_MIN_INTERVAL_MS: "2000",
      LADDER_SLOTS: String(SLOTS),
      LADDER_RANK_INDEX_BOARDS: BOARD,
    },
  });
  admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
}, 180_000);
afterAll(async () => {
  admin?.close();
  await c?.stop();
  await Promise.all(redis.map((r) => r.stop()));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The number of static players strictly ahead of `e`. */
const staticAhead = (e: Standing) => aheadOf(statics, e);

const plain = (e: Entry) => ({ playerId: e.playerId, points: Number(e.score), reachedAtMs: Number(e.reachedAtMs), rank: Number(e.rank) });

/** Every problem of one answer (empty when it holds at some instant). */
function problems(entries: Array<ReturnType<typeof plain>>, total: number): string[] {
  const out: string[] = [];
  if (total !== TOTAL) out.push(`total ${total} != ${TOTAL}`);
  const ids = new Set<string>();
  for (const [i, e] of entries.entries()) {
    if (ids.has(e.playerId)) out.push(`${e.playerId} twice`);
    ids.add(e.playerId);
    if (i > 0 && e.rank !== entries[i - 1]!.rank + 1) out.push(`rank ${e.rank} after ${entries[i - 1]!.rank}`);
    if (i > 0 && order(entries[i - 1]!, e) >= 0) out.push(`${entries[i - 1]!.playerId} not ahead of ${e.playerId}`);
    const lo = 1 + staticAhead(e);
    const hi = lo + HOT - (isHot.has(e.playerId) ? 1 : 0);
    if (e.rank < lo || e.rank > hi) out.push(`${e.playerId} (${e.points}) rank ${e.rank} outside [${lo}, ${hi}]`);
    const truth = staticById.get(e.playerId);
    if (!isHot.has(e.playerId) && (!truth || truth.points !== e.points || truth.reachedAtMs !== e.reachedAtMs))
      out.push(`${e.playerId} shows ${e.points}, not the oracle's`);
  }
  return out;
}

/** Snapshots shard `id`'s node has taken. */
const snapshotsTaken = async (id: string) =>
  (await Scrape.of(c.services.metricsUrl(id))).sum("ladder_shard_snapshots_total", { outcome: "taken" });

/**
 * Until each of `ids` has taken a snapshot more: `nudge` (records to its partitions), then up to 20 s
 * for it, three times at most (a shard takes one once it has as many new records as its last one had players).
 */
async function newSnapshots(ids: readonly string[], nudge: () => Promise<void>): Promise<void> {
  const before = new Map(await Promise.all(ids.map(async (id) => [id, await snapshotsTaken(id)] as const)));
  let now: Array<readonly [string, number]> = [];
  for (let round = 0; round < 3; round++) {
    await nudge();
    for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
      now = await Promise.all(ids.map(async (id) => [id, await snapshotsTaken(id)] as const));
      if (now.every(([id, n]) => n > before.get(id)!)) return;
    }
  }
  throw new Error(`no new snapshot: ${JSON.stringify(now)}, before ${JSON.stringify([...before])}`);
}

/** A reshard's reports of shard `id` building: the most players it seeded, and the shards it seeded from. */
function seedsOf(out: readonly ReshardResponse[], id: string): { players: number; from: string[] } {
  const building = out.filter((m) => m.phase === Phase.BUILDING && m.shardId === id);
  const from = new Set(building.flatMap((m) => m.seededFrom.map((f) => f.split("/")[0]!)));
  return { players: Math.max(0, ...building.map((m) => Number(m.playersSeeded))), from: [...from].sort() };
}

/** How long each reshard took, ms (printed), and when the one running began. */
const reshardMs: number[] = [];
/** The router's longest event-loop stall during each reshard, ms (it runs the moves beside its reads). */
const routerStallMs: number[] = [];
const routerStall = async () => (await Scrape.of(c.services.metricsUrl("router"))).sum("nodejs_eventloop_lag_max_seconds") * 1000;
let moveStartedAt = 0;
let moveRunning = false;

/** Runs a reshard to its end; its messages. */
async function reshard(req: { add?: Array<{ id: string; redisUrl: string }>; remove?: string[] }): Promise<ReshardResponse[]> {
  const out: ReshardResponse[] = [];
  await routerStall(); // the router's measure starts again at each scrape
  const t0 = (moveStartedAt = performance.now());
  moveRunning = true;
  for await (const m of admin.reshard({ add: req.add ?? [], remove: req.remove ?? [] })) out.push(m);
  moveRunning = false;
  reshardMs.push(Math.round(performance.now() - t0));
  routerStallMs.push(Math.round(await routerStall()));
  return out;
}

// a larger board beside (LADDER_TEST_RESHARD_BESIDE): its seeding and the moves' replays take minutes
describe("resharding online", { timeout: BESIDE > 100_000 ? 3_600_000 : 180_000 }, () => {
  it("adds and removes shards back and forth while players move: no read refused, every answer exact, nothing lost or doubled, every shard holding exactly its slots", async () => {
    // the board: statics in steps of 15 shared by threes over two time units, never written again; hot players walk
    const base = Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000;
    for (let i = 0; i < STATIC; i++)
      statics.push({ playerId: staticId(i), points: 15 * Math.floor(i / 3), reachedAtMs: base + (i % 2) * 60_000 });
    statics.sort(order);
    for (const s of statics) staticById.set(s.playerId, s);
    const walk = hotIds.map(() => randInt(0, HOT_MAX));
    let token = (
      await c.ingest.submitScores({
        updates: [
          ...statics.map((s) => ({
            board: BOARD,
            playerId: s.playerId,
            op: Operation.SET,
            value: BigInt(s.points),
            timestampMs: BigInt(s.reachedAtMs),
          })),
          ...hotIds.map((playerId, i) => ({
            board: BOARD,
            playerId,
            op: Operation.SET,
            value: BigInt(walk[i]!),
            eventId: `${playerId}-set`,
          })),
        ],
      })
    ).consistencyToken;
    expect(Number((await c.router.getTop({ board: BOARD, limit: 1, consistencyToken: token })).total)).toBe(TOTAL);
    // the board with columns: points (higher first), time (lower first), kills (higher first)
    const columned = await admin.createBoard({
      board: {
        name: COLUMN_BOARD,
        defaultOp: Operation.SET,
        rules: {
          columns: [
            { name: "points", order: SortOrder.HIGHER_IS_BETTER },
            { name: "time", order: SortOrder.LOWER_IS_BETTER },
            { name: "kills", order: SortOrder.HIGHER_IS_BETTER },
          ],
        },
      },
    });
    columnStored = `${COLUMN_BOARD}#${columned.board!.rules!.generation}`;
    for (const from = Date.now(); ; await new Promise((r) => setTimeout(r, 100))) {
      const got = await outcome(
        c.ingest.submitScores({
          updates: Array.from({ length: COLUMN_PLAYERS }, (_, i) => ({
            board: COLUMN_BOARD,
            playerId: columnId(i),
            columns: columnValues(i),
            timestampMs: BigInt(base),
          })),
        }),
      );
      if ("ok" in got) {
        token = got.ok.consistencyToken;
        break;
      }
      if (Date.now() - from > 30_000) throw new Error(`ingest does not take board ${COLUMN_BOARD}: ${got.details}`);
    }
    // the larger board beside, through the log as any write (four batches of 1,000 in flight); sent
    // again (the same values: nothing changes but the log's length) to bring a snapshot about
    const besideAt = BigInt(base);
    const sendBeside = async () => {
      const batches = Array.from({ length: Math.ceil(BESIDE / 1000) }, (_, b) => b);
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let b = batches.shift(); b !== undefined; b = batches.shift()) {
            const ids = Array.from({ length: Math.min(1000, BESIDE - b * 1000) }, (_, k) => b * 1000 + k);
            const t = await c.ingest.submitScores({
              updates: ids.map((i) => ({
                board: BESIDE_BOARD,
                playerId: besideId(i),
                op: Operation.SET,
                value: BigInt(besidePoints(i)),
                timestampMs: besideAt,
              })),
            });
            await c.router.getRank({ board: BESIDE_BOARD, playerId: besideId(ids[0]!), consistencyToken: t.consistencyToken });
          }
        }),
      );
    };
    if (SEEDS)
      await newSnapshots(["shard-0", "shard-1", "shard-2"], sendBeside); // every shard has a snapshot to seed from
    else await sendBeside(); // the same log, without snapshots

    let stop = false;
    const counts = { answers: 0, refused: 0, batches: 0 };
    const found: string[] = [];
    const refusals: string[] = []; // the first few refusals' kinds and reasons, printed if any
    let longestRefusalMs = 0;
    let longestReadMs = 0; // one read's wait for its answer, the router's retries across a move included
    let longestReadAt = ""; // which move it waited in, and how far from that move's start
    // this process's own stalls (its event loop blocked: garbage collection of the larger board's
    // batches) lengthen the waits it measures: printed beside them
    const stalls = monitorEventLoopDelay({ resolution: 10 });
    stalls.enable();
    const writer = (async () => {
      while (!stop) {
        const updates = hotIds.map((playerId, i) => {
          let step = randInt(1, 60) * (rand() < 0.5 ? -1 : 1);
          if (walk[i]! + step < 0 || walk[i]! + step > HOT_MAX) step = -step;
          walk[i]! += step;
          return { board: BOARD, playerId, op: Operation.INCREMENT, value: BigInt(step), eventId: `${playerId}-${counts.batches}` };
        });
        token = (await c.ingest.submitScores({ updates })).consistencyToken; // every batch acknowledged: its steps count
        counts.batches++;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const readers = Array.from({ length: READERS }, async (_, r) => {
      let refusedSince = 0;
      while (!stop) {
        const kind = (r + counts.answers) % 3;
        const player = kind === 1 ? statics[randInt(0, STATIC - 1)]!.playerId : hotIds[randInt(0, HOT - 1)]!;
        const asked = performance.now();
        const got = await outcome(
          kind === 0
            ? c.router.getTop({ board: BOARD, limit: 60, offset: BigInt(randInt(0, 190)) })
            : kind === 1
              ? c.router.getRank({ board: BOARD, playerId: player }).then((x) => ({ entries: [x.entry!], total: x.total }))
              : c.router.getAround({ board: BOARD, playerId: player, radius: 3 }),
        );
        if (performance.now() - asked > longestReadMs) {
          longestReadMs = performance.now() - asked;
          longestReadAt = moveStartedAt
            ? `${Math.round(asked - moveStartedAt)} ms after move ${reshardMs.length + (moveRunning ? 1 : 0)} began${moveRunning ? "" : " (after it ended)"}`
            : "before the moves";
        }
        if ("code" in got) {
          if (got.code !== status.UNAVAILABLE) found.push(`code ${got.code}: ${got.details}`);
          counts.refused++;
          if (refusals.length < 5) refusals.push(`${["top", "rank", "around"][kind]}: ${got.details}`);
          refusedSince ||= performance.now();
          continue;
        }
        if (refusedSince) longestRefusalMs = Math.max(longestRefusalMs, performance.now() - refusedSince);
        refusedSince = 0;
        counts.answers++;
        const p = problems(got.ok.entries.map(plain), Number(got.ok.total));
        if (p.length) found.push(`${["top", "rank", "around"][kind]}: ${p.slice(0, 3).join("; ")}`);
      }
    });

    // add shard-3 (its node runs first, waiting for a placement that names it), then remove shard-1
    await new Promise((r) => setTimeout(r, 1000));
    // push streams across the moves: the router follows each new placement (watchers read again)
    const watching = new AbortController();
    const watched = [statics[3]!.playerId, statics[120]!.playerId, hotIds[0]!];
    const streams = watched.map(async (playerId) => {
      const got: Array<{ rank: number; points: number; resynced: boolean }> = [];
      try {
        for await (const m of c.router.watchPlayer({ board: BOARD, playerId, intervalMs: 50 }, { signal: watching.signal }))
          got.push({ rank: Number(m.entry?.rank ?? 0), points: Number(m.entry?.score ?? -1), resynced: m.resynced });
      } catch (err) {
        if ((err as { code?: number }).code !== status.CANCELLED) found.push(`watch ${playerId}: ${(err as Error).message}`);
      }
      return { playerId, got };
    });
    // back and forth: every shard that stays moves in place each time, each added one is rebuilt
    const moves: Array<{ from: number; out: ReshardResponse[] }> = [];
    const pause = () => new Promise((r) => setTimeout(r, 1500));
    await c.services.addShardNode("shard-3", redis[3]!.url);
    moves.push({ from: 1, out: await reshard({ add: [{ id: "shard-3", redisUrl: redis[3]!.url }] }) });
    await pause();
    moves.push({ from: 2, out: await reshard({ remove: ["shard-1"] }) });
    await pause();
    await c.services.addShardNode("shard-4", redis[4]!.url);
    moves.push({ from: 3, out: await reshard({ add: [{ id: "shard-4", redisUrl: redis[4]!.url }] }) });
    await pause();
    moves.push({ from: 4, out: await reshard({ remove: ["shard-3"] }) });
    await pause();
    stop = true;
    stalls.disable();
    await Promise.all([writer, ...readers]);
    await c.router.getRank({ board: BOARD, playerId: hotIds[0]!, consistencyToken: token });
    await new Promise((r) => setTimeout(r, 1000)); // the streams' last messages
    watching.abort();
    for (const { playerId, got } of await Promise.all(streams)) {
      if (got.length === 0) found.push(`watch ${playerId}: no message`);
      for (const m of got) {
        const lo = 1 + staticAhead({ playerId, points: m.points, reachedAtMs: staticById.get(playerId)?.reachedAtMs ?? 0 });
        if (!isHot.has(playerId) && (m.rank < lo || m.rank > lo + HOT))
          found.push(`watch ${playerId}: rank ${m.rank} outside [${lo}, ${lo + HOT}]`);
      }
      const final = await c.router.getRank({ board: BOARD, playerId, consistencyToken: token });
      if (got.at(-1)?.rank !== Number(final.entry!.rank))
        found.push(`watch ${playerId}: last message rank ${got.at(-1)?.rank}, board ${final.entry!.rank}`);
      if (!got.some((m) => m.resynced)) found.push(`watch ${playerId}: never read again across two moves`);
    }
    const rankIndex = await Scrape.of(c.services.metricsUrl("router"));
    const fromCopies = rankIndex.sum("ladder_router_rank_index_total", { source: "index" });
    console.log(
      `[reshard] ${JSON.stringify({ ...counts, rankCountsFromCopies: fromCopies, fromShards: rankIndex.sum("ladder_router_rank_index_total", { source: "shard" }), beside: BESIDE, longestRefusalMs: Math.round(longestRefusalMs), longestReadMs: Math.round(longestReadMs), longestReadAt, longestStallMs: Math.round(stalls.max / 1e6), routerStallMs, reshardMs, cutOverMs: moves.map((m) => Number(m.out.at(-1)?.cutOverMs)), moved: moves.map((m) => m.out[0]?.movedSlots.length), seeded: moves.map((m) => m.out.filter((x) => x.phase === Phase.BUILDING).reduce((n, x) => Math.max(n, Number(x.playersSeeded)), 0)) })}`,
    );
    expect(fromCopies).toBeGreaterThan(0); // the rank index answered between the moves
    expect(found.slice(0, 5)).toEqual([]);
    expect(counts.refused, `reads refused after the router's tries across the moves: ${refusals.join(" | ")}`).toBe(0);
    expect(counts.answers).toBeGreaterThan(100);
    for (const { out: m, from } of moves) {
      expect(m.map((x) => x.phase).filter((p) => p !== Phase.BUILDING && p !== Phase.DELETING)).toEqual([
        Phase.PLANNED,
        Phase.CUT_OVER,
        Phase.DONE,
      ]);
      expect(Number(m[0]!.fromEpoch)).toBe(from);
      expect(m[0]!.movedSlots.length).toBeGreaterThan(0);
    }
    // the first move followed a snapshot of every old owner: each shard that gained slots seeded them from
    // their old owners' snapshots (the added one into its spare database; an old one, given a slot by the
    // rebalance, in place). The later moves seed from whatever snapshots their old owners have by then.
    {
      const out = moves[0]!.out;
      const gainers = new Set(out[0]!.movedSlots.map((x) => x.toShard));
      expect(gainers.size).toBeGreaterThan(1); // the added shard, and at least one that stays
      for (const id of gainers) {
        const owners = [...new Set(out[0]!.movedSlots.filter((x) => x.toShard === id).map((x) => x.fromShard))].sort();
        const seeds = seedsOf(out, id);
        expect(seeds.from, `${id} seeded from`).toEqual(SEEDS ? owners : []);
        if (SEEDS) expect(seeds.players, `${id} players seeded`).toBeGreaterThan(0);
      }
    }

    // at rest: nothing lost, nothing doubled, the whole board as the oracle has it
    const page = await c.router.getTop({ board: BOARD, limit: 1000, consistencyToken: token });
    expect(Number(page.total)).toBe(TOTAL);
    const got = page.entries.map(plain);
    expect(new Map(got.filter((e) => isHot.has(e.playerId)).map((e) => [e.playerId, e.points]))).toEqual(
      new Map(hotIds.map((id, i) => [id, walk[i]!])),
    );
    expect(got.filter((e) => !isHot.has(e.playerId)).map((e) => e.playerId)).toEqual(statics.map((s) => s.playerId));
    expect(problems(got, Number(page.total))).toEqual([]);

    // the larger board: every player once, sampled ranks as its order has them
    expect(Number((await c.router.getTop({ board: BESIDE_BOARD, limit: 1, consistencyToken: token })).total)).toBe(BESIDE);
    for (let k = 0; k < 20; k++) {
      const i = randInt(0, BESIDE - 1);
      const mine = { playerId: besideId(i), points: besidePoints(i) };
      let ahead = 0;
      for (let j = 0; j < BESIDE; j++) {
        const p = besidePoints(j);
        if (p > mine.points || (p === mine.points && j < i)) ahead++; // ids zero-padded: byte order is index order
      }
      const got = await c.router.getRank({ board: BESIDE_BOARD, playerId: mine.playerId });
      expect({ rank: Number(got.entry!.rank), points: Number(got.entry!.score) }, mine.playerId).toEqual({
        rank: ahead + 1,
        points: mine.points,
      });
    }

    // the board with columns: every entry where the oracle puts it (values, then id bytes: one time)
    const better = (a: bigint[], b: bigint[]) => {
      const lower = [false, true, false];
      for (let k = 0; k < 3; k++) if (a[k] !== b[k]) return lower[k] ? a[k]! < b[k]! : a[k]! > b[k]!;
      return false;
    };
    const columnOracle = Array.from({ length: COLUMN_PLAYERS }, (_, i) => i).sort((x, y) =>
      better(columnValues(x), columnValues(y)) ? -1 : better(columnValues(y), columnValues(x)) ? 1 : x - y,
    );
    const columnPage = await c.router.getTop({ board: COLUMN_BOARD, limit: 1000, consistencyToken: token });
    expect(columnPage.entries.map((e) => [e.playerId, e.columns.map(String), Number(e.rank)])).toEqual(
      columnOracle.map((i, r) => [columnId(i), columnValues(i).map(String), r + 1]),
    );
    for (const r of [0, 150, COLUMN_PLAYERS - 1]) {
      const got = await c.router.getAround({ board: COLUMN_BOARD, playerId: columnId(columnOracle[r]!), radius: 2 });
      expect(got.entries.map((e) => e.playerId)).toEqual(columnOracle.slice(Math.max(0, r - 2), r + 3).map(columnId));
    }

    // the placement: epoch 5 over shard-0, shard-2, shard-4; each Redis holds exactly its slots' players
    const placed = await admin.getPlacement({});
    expect({ epoch: Number(placed.epoch), shards: placed.shards.map((s) => s.id).sort() }).toEqual({
      epoch: 5,
      shards: ["shard-0", "shard-2", "shard-4"],
    });
    const boardKey = keyLayout(c.ns.keyPrefix).board(BOARD);
    const urlOf = new Map([
      ["shard-0", redis[0]!.url],
      ["shard-1", redis[1]!.url],
      ["shard-2", redis[2]!.url],
      ["shard-3", redis[3]!.url],
      ["shard-4", redis[4]!.url],
    ]);
    for (const s of placed.shards) {
      const r = new Redis(urlOf.get(s.id)!);
      const members = await r.zrange(boardKey, "0", "-1");
      const columnKey = keyLayout(c.ns.keyPrefix).board(columnStored);
      const columnMembers = (await r.zrange(columnKey, "0", "-1")).map(playerOfMember);
      const companion = (await r.zrange(`${columnKey}!cols`, "0", "-1")).map((m) => m.slice(0, m.indexOf("\n")));
      const leftovers = [
        ...(await r.keys(`${c.ns.keyPrefix}move`)),
        ...(await r.keys(`${c.ns.keyPrefix}board:*!arr`)),
        ...(await r.keys(`${c.ns.keyPrefix}board:*!dep`)),
      ];
      const spare = await r.select(1).then(() => r.dbsize());
      await r.quit();
      const mine = new Set(s.slots);
      expect(
        members.filter((m) => !mine.has(slotOf(m, SLOTS))),
        `${s.id} holds players of other slots`,
      ).toEqual([]);
      expect(members.length, `${s.id} holds every player of its slots`).toBe(
        [...staticById.keys(), ...hotIds].filter((p) => mine.has(slotOf(p, SLOTS))).length,
      );
      expect(spare, `${s.id}'s spare database is empty again`).toBe(0);
      const columnPlayers = Array.from({ length: COLUMN_PLAYERS }, (_, i) => columnId(i)).filter((p) => mine.has(slotOf(p, SLOTS)));
      expect(columnMembers.sort(), `${s.id} holds exactly its slots' players of the board with columns`).toEqual(columnPlayers.sort());
      expect(companion.sort(), `${s.id}'s companion of the board with columns`).toEqual(columnPlayers.sort());
      expect(leftovers, `${s.id}'s moves in place are drained and ended`).toEqual([]);
    }

    // the old placement is refused by the shards themselves: a read by epoch 1, a write built for it
    const config = loadConfig({
      LADDER_SHARDS: redis
        .slice(0, 3)
        .map((r, i) => `shard-${i}=${r.url}`)
        .join(","),
      LADDER_SLOTS: String(SLOTS),
    });
    const old = placementOf(1, config.shards, SLOTS);
    const oldStamp = shardStamp({
      shardId: "shard-0",
      topic: c.ns.topic,
      numSlots: SLOTS,
      slots: old.placement.slotsOf.get("shard-0")!,
      boards: config.boards,
    });
    const r0 = new Redis(redis[0]!.url);
    try {
      const reader = new ShardReader({ shardId: "shard-0", stamp: oldStamp, redis: r0, keyPrefix: c.ns.keyPrefix });
      const refused = await reader.top(BOARD, 5).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(StampMismatch);
      const stale = new ShardWriter({
        shardId: "shard-0",
        stamp: oldStamp,
        builtFrom: builtFrom(oldStamp, "any-topic-id"),
        redis: r0,
        keyPrefix: c.ns.keyPrefix,
        dedupWindowMs: 60_000,
      });
      const applied = await stale.apply(old.placement.slotsOf.get("shard-0")![0]!, []);
      expect(applied.drift, "a writer by the old placement is refused").toBeDefined();
    } finally {
      await r0.quit();
    }
  });
});
