/**
 * Benchmark "batch": GetRanks, GetStanding and cursor pages against one call at a time, and
 * the router's reads against its own gRPC health check with and without the top cache, on a
 * real cluster (Node client, then h2load). Method: batch.md.
 */
import { LadderClient } from "@ladder/client";
import {
  GetAroundRequestSchema,
  GetRankRequestSchema,
  GetRanksRequestSchema,
  GetStandingRequestSchema,
  GetTopRequestSchema,
  type BoardRef,
} from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { keyLayout } from "@ladder/store";
import { maxOffsets, untilApplied } from "../../seed/apply-watch.js";
import { distinctPlayers, playerId } from "../../workload/player-ids.js";
import { rngFor } from "../../workload/rng.js";
import { aloneSummary } from "../boards/window-reads.js";
import type { Benchmark, BenchContext } from "../context.js";
import { BENCH_KEY_PREFIX, BENCH_SPEC } from "../infra/bench-board.js";
import { pidCpu } from "../infra/cpu-meter.js";
import { HEALTH_CHECK, lb, requireH2load, type GrpcRequest } from "../infra/h2load.js";
import { startIngestCluster, type IngestCluster } from "../infra/ingest-cluster.js";
import { seedThroughKafka } from "../infra/seed-cluster.js";
import { startRouter } from "../infra/router-process.js";
import { batchTables, type H2Row, type NodeRow, type PageRow } from "./batch-tables.js";
import type { BatchPlan } from "../plan.js";
import { round1, size } from "../output/format.js";
import { costProbes, h2loadRounds, medianRatio, medians, restRates, settle, timeBlock } from "./cluster-costs.js";
import type { IdleRates } from "./cost-meter.js";
import { dailyBatches, dailyDefinition, dailyPlayerIndexes, daysWritten, DAILY_WINDOWS, type DayWritten } from "./daily-board.js";
import { inFlight } from "./node-runs.js";
import { cursorDepths, pageAsks, pageLabel, type PageAsk, type Walk, type WalkFigures } from "./page-plan.js";

export const BOARD = "batch-bench";
export const DAILY = "batch-daily";
/** Players of the daily board asked GetStanding (the Node client cycles through them). */
export const STANDING_PLAYERS = 20;
/** Seconds of rest over which the processes' rest rates are read. */
export const QUIET_S = 3;
/**
 * h2load's load for the deepest offset pages: such a page takes tens of ms of router and Redis CPU
 * (every shard reads its first 10,000 entries), so 64 in flight wait seconds each and a run of a few
 * seconds completes only one or two waves of them (a rate of 0 or 64 ÷ seconds). 4 in flight keep
 * the 2 cores as busy, and the run completes many calls.
 */
export const SLOW_PAGE_LOAD = { connections: 1, streams: 4 };

type Router = LadderClient["leaderboard"];
type Ref = Pick<BoardRef, "board" | "period" | "window">;

/** One request h2load sends, with what the tables call it. */
interface Ask extends GrpcRequest {
  part: H2Row["part"];
  /** The router asked: the cluster's, or the second one with the top cache on. */
  router: H2Row["router"];
  label: string;
  /** Ranks (or standings) one call answers. */
  units: number;
  /** h2load's connections x streams when not the plan's (the deepest offset pages: see SLOW_PAGE_LOAD). */
  load?: { connections: number; streams: number };
}

export interface BatchRun {
  h2loadVersion: string;
  seeded: string;
  daily: {
    players: number;
    stride: number;
    days: DayWritten[];
    updates: number;
    ackSeconds: number;
    appliedSeconds: number;
    counts: Record<string, number>;
  };
  idle: IdleRates[];
  node: NodeRow[];
  walk: WalkFigures;
  pages: PageRow[];
  h2: H2Row[];
}

export const batchBenchmark: Benchmark = {
  name: "batch",
  method: "batch/batch.md",
  title: "Batched reads and deep pages vs one call at a time, on a real cluster",
  async run(ctx) {
    const h2loadVersion = await requireH2load();
    const p = ctx.plan.batch;
    ctx.say(
      `starting a 3-shard cluster; ${size(p.players)} players through Kafka on "${BOARD}", ${size(p.dailyPlayers)} of them through ingest on the daily board "${DAILY}" (2 days)`,
    );
    const cluster = await startIngestCluster(ctx, { shards: 3 });
    const address = cluster.services.routerAddress;
    try {
      const seeded = await seedThroughKafka(ctx, cluster, BOARD, p.players);
      const daily = await writeDaily(ctx, cluster);
      const router = () => cluster.reader.router();

      // who is asked
      const rankSets = Array.from({ length: Math.max(p.rounds, 3) }, (_, s) => distinctPlayers(ctx.plan.seed, 700 + s, p.asked, p.players));
      const standingRng = rngFor(ctx.plan.seed, 750);
      const standingIndexes = new Map<string, number>();
      while (standingIndexes.size < Math.min(STANDING_PLAYERS, daily.indexes.length)) {
        const i = daily.indexes[standingRng.nextInt(daily.indexes.length)]!;
        standingIndexes.set(playerId(i), i);
      }
      const standingPlayers = [...standingIndexes.keys()];
      const [yesterday, today] = daily.days;
      const refs: Ref[] = [
        { board: BOARD, period: "", window: "" },
        { board: DAILY, period: today.id, window: "" },
        { board: DAILY, period: yesterday.id, window: "" },
        ...DAILY_WINDOWS.map((w) => ({ board: DAILY, period: today.id, window: w.name })),
      ];

      const walk = await walkBoard(ctx, router, p);
      const pages = pageAsks(BOARD, walk, p);

      // the Node client: units one after another, their costs
      const probes = costProbes(cluster);
      await settle(probes);
      const idle = [await restRates(probes, QUIET_S)];
      const node: NodeRow[] = [];
      const block = async (part: NodeRow["part"], way: string, units: number, reps: number, unit: (rep: number) => Promise<unknown>) => {
        const { ms, cost } = await timeBlock(probes, idle[0]!, reps, unit);
        node.push({ part, way, units, reps, latencyMs: aloneSummary(ms), cost });
        ctx.say(
          `  ${way}: p50 ${aloneSummary(ms).p50} ms per unit, router ${cost.routerMs} ms, Redis ${cost.redisMs} ms, ${cost.redisScripts} scripts; others ${cost.othersCores} cores`,
        );
      };
      const setOf = (rep: number) => rankSets[rep % rankSets.length]!;
      const rank = (playerId: string, r: Ref = refs[0]!) =>
        router().getRank({ board: r.board, period: r.period, window: r.window, playerId });
      await block("ranks", `GetRanks (${p.asked} players), one call`, p.asked, p.rankReps, async (rep) => {
        const res = await router().getRanks({ board: BOARD, playerIds: setOf(rep) });
        if (res.entries.length !== p.asked) throw new Error(`GetRanks answered ${res.entries.length} entries`);
      });
      await block("ranks", `GetRank x ${p.asked}, one after another`, p.asked, p.rankReps, (rep) =>
        inFlight(p.asked, 1, (i) => rank(setOf(rep)[i]!)),
      );
      for (const k of p.inFlight)
        await block("ranks", `GetRank x ${p.asked}, ${k} in flight`, p.asked, p.rankReps, (rep) =>
          inFlight(p.asked, k, (i) => rank(setOf(rep)[i]!)),
        );
      const standingOf = (rep: number) => standingPlayers[rep % standingPlayers.length]!;
      await block("standing", `GetStanding (${refs.length} boards), one call`, refs.length, p.standingReps, async (rep) => {
        const res = await router().getStanding({ playerId: standingOf(rep), boards: refs });
        if (res.standings.some((s) => !s.found)) throw new Error("GetStanding: a standing not found");
      });
      await block("standing", `GetRank x ${refs.length} (one per board), one after another`, refs.length, p.standingReps, (rep) =>
        inFlight(refs.length, 1, (i) => rank(standingOf(rep), refs[i])),
      );
      await block("standing", `GetRank x ${refs.length} (one per board), all in flight`, refs.length, p.standingReps, (rep) =>
        inFlight(refs.length, refs.length, (i) => rank(standingOf(rep), refs[i])),
      );
      const pageRows: PageRow[] = [];
      for (const a of pages) {
        await block("pages", `page ${a.label}, limit ${a.limit}`, 1, p.pageCalls, async () => {
          const res = await router().getTop(a.request);
          if (res.entries.length !== a.limit || Number(res.entries[0]!.rank) !== a.firstRank)
            throw new Error(`${a.label}: ${res.entries.length} entries from rank ${res.entries[0]?.rank}`);
        });
        pageRows.push({ limit: a.limit, kind: a.kind, label: a.label, firstRank: a.firstRank, node: node.at(-1)! });
      }
      idle.push(await restRates(probes, QUIET_S));

      // h2load: rates, in rounds
      // a second router over the cluster's shards with the top cache on (the cluster's has it off, the default)
      const cached = await startRouter(ctx, "router (top cache on)", { ...cluster.services.env, LADDER_TOP_CACHE_MS: "100" });
      // h2load counts HTTP statuses only (infra/h2load.ts): the top-cache router answers a real client first
      const cachedClient = new LadderClient({ router: cached.address, timeoutMs: 10_000 });
      const cachedTop = await cachedClient.leaderboard.getTop({ board: BOARD, limit: 10 }).finally(() => cachedClient.close());
      if (cachedTop.entries.length !== 10)
        throw new Error(`the top-cache router's GetTop (10) answered ${cachedTop.entries.length} entries`);
      const routers = {
        main: { address, probes },
        cached: { address: cached.address, probes: { ...probes, routerS: pidCpu(cached.pid) } },
      };
      const asked = { rankSets, standingPlayers, refs, pages };
      const runs = await h2loadRounds(ctx, p.rounds, idle[0]!, (round) =>
        roundAsks(round, asked).map((a) => ({
          key: keyOf(a),
          ...routers[a.router],
          path: a.path,
          body: a.body,
          shape: { seconds: p.seconds, ...(a.load ?? p) },
        })),
      ).finally(() => cached.stop());
      const h2 = roundAsks(0, asked).map(
        (a): H2Row => ({
          part: a.part,
          router: a.router,
          label: a.label,
          units: a.units,
          load: a.load ?? { connections: p.connections, streams: p.streams },
          ...medians(runs.get(keyOf(a))!),
          ofFloor: medianRatio(runs.get(keyOf(a))!, runs.get(`${a.router} ${FLOOR}`)),
        }),
      );
      for (const row of pageRows) row.h2 = h2.find((h) => h.part === "pages" && h.router === "main" && h.label === pageLabel(row));

      const run: BatchRun = { h2loadVersion, seeded, daily: daily.figures, idle, node, walk: walk.figures, pages: pageRows, h2 };
      return {
        figures: { plan: p, refs, rankSets: rankSets.map((s) => s.slice(0, 5)), standingPlayers, ...run },
        tables: batchTables(run, p),
      };
    } finally {
      await cluster.stop();
    }
  },
};

/** Defines the daily board, writes its players' two days through ingest, waits until applied, and checks its sizes. */
async function writeDaily(ctx: BenchContext, cluster: IngestCluster) {
  const p = ctx.plan.batch;
  const { reader, writer } = cluster;
  await cluster.admin.createBoard({ board: dailyDefinition(DAILY) });
  const periods = (await reader.router().listPeriods({ board: DAILY })).periods;
  const days = daysWritten(periods, Date.now());
  const stride = Math.floor(p.players / p.dailyPlayers);
  const indexes = dailyPlayerIndexes(p.dailyPlayers, stride);
  const target = new Map<number, bigint>();
  const batches = dailyBatches(DAILY, ctx.plan.seed, indexes, days, BENCH_SPEC, p.writeBatch);
  const t0 = performance.now();
  let updates = 0;
  await Promise.all(
    Array.from({ length: p.writeInFlight }, async () => {
      for (let b = batches.next(); !b.done; b = batches.next()) {
        const res = await writer.ingest().submitScores({ updates: b.value });
        updates += res.accepted;
        maxOffsets(target, res.offsets);
      }
    }),
  );
  const ackSeconds = (performance.now() - t0) / 1000;
  await untilApplied(cluster.redis, keyLayout(BENCH_KEY_PREFIX).offsets, target, 120_000);
  const appliedSeconds = (performance.now() - t0) / 1000;
  ctx.say(
    `  daily board: ${updates.toLocaleString("en-US")} updates (${days.map((d) => d.id).join(", ")}) acknowledged in ${ackSeconds.toFixed(1)} s, applied in ${appliedSeconds.toFixed(1)} s`,
  );
  // every key holds every player: GetCount of each (a read new with the others)
  const counts: Record<string, number> = {};
  const keys = [
    { period: days[0].id, window: "" },
    { period: days[1].id, window: "" },
    ...DAILY_WINDOWS.map((w) => ({ period: days[1].id, window: w.name })),
  ];
  for (const k of keys) {
    const c = await reader.router().getCount({ board: DAILY, ...k });
    counts[`${k.period}${k.window ? `~${k.window}` : ""}`] = Number(c.count);
    if (Number(c.count) !== p.dailyPlayers || Number(c.total) !== p.dailyPlayers)
      throw new Error(
        `GetCount of ${DAILY} ${k.period} ${k.window}: count ${c.count}, total ${c.total}, ${p.dailyPlayers} players written`,
      );
  }
  return {
    days,
    indexes,
    figures: {
      players: p.dailyPlayers,
      stride,
      days,
      updates,
      ackSeconds: round1(ackSeconds),
      appliedSeconds: round1(appliedSeconds),
      counts,
    },
  };
}

/** The whole board from the top through next_cursor, walkLimit entries a page; keeps the next_cursor at each measured depth. */
async function walkBoard(ctx: BenchContext, router: () => Router, p: BatchPlan): Promise<Walk> {
  const depths = cursorDepths(p.players, p.walkLimit);
  const kept = new Map<number, string>();
  const t0 = performance.now();
  let depth = 0;
  let pages = 0;
  let cursor = "";
  do {
    const page = await router().getTop({ board: BOARD, limit: p.walkLimit, ...(cursor ? { cursor } : {}) });
    if (page.entries.length === 0) break;
    pages++;
    depth += page.entries.length;
    cursor = page.nextCursor;
    if (depths.includes(depth)) kept.set(depth, cursor);
  } while (cursor !== "");
  if (depth !== p.players) throw new Error(`the walk through next_cursor saw ${depth} ranks of ${p.players}`);
  const figures: WalkFigures = { limit: p.walkLimit, pages, ranks: depth, seconds: round1((performance.now() - t0) / 1000) };
  ctx.say(`  walk: ${figures.pages} pages of ${p.walkLimit} in ${figures.seconds} s`);
  return { figures, kept, depths };
}

interface Asked {
  rankSets: string[][];
  standingPlayers: string[];
  refs: Ref[];
  pages: PageAsk[];
}

const FLOOR = "health check (the floor)";
const keyOf = (a: Ask) => `${a.router} ${a.label}`;

/** Every request of round `r`, the health check first. */
function roundAsks(r: number, a: Asked): Ask[] {
  const set = a.rankSets[r % a.rankSets.length]!;
  const player = a.standingPlayers[r % a.standingPlayers.length]!;
  const refLabel = (ref: Ref) =>
    `${ref.board === BOARD ? "all-time board" : "daily"}${ref.window ? ` ${ref.window}` : ref.board === DAILY ? (ref === a.refs[1] ? " today" : " yesterday") : ""}`;
  const floor = (router: Ask["router"]): Ask[] => [
    { part: "floor", router, label: FLOOR, units: 1, ...HEALTH_CHECK },
    { part: "ranks", router, label: "GetRank", units: 1, ...lb("GetRank", GetRankRequestSchema, { board: BOARD, playerId: set[0]! }) },
    { part: "reads", router, label: "GetTop (10)", units: 1, ...lb("GetTop", GetTopRequestSchema, { board: BOARD, limit: 10 }) },
    {
      ...{ part: "reads", router, label: "GetAround (±5)", units: 1 },
      ...lb("GetAround", GetAroundRequestSchema, { board: BOARD, playerId: set[0]!, radius: 5 }),
    },
  ];
  const router = "main" as const;
  return [
    ...floor("main"),
    {
      ...{ part: "ranks", router, label: `GetRanks (${set.length} players)`, units: set.length },
      ...lb("GetRanks", GetRanksRequestSchema, { board: BOARD, playerIds: set }),
    },
    {
      ...{ part: "standing", router, label: `GetStanding (${a.refs.length} boards)`, units: a.refs.length },
      ...lb("GetStanding", GetStandingRequestSchema, { playerId: player, boards: a.refs }),
    },
    ...a.refs.map(
      (ref): Ask => ({
        ...{ part: "standing", router, label: `GetRank, ${refLabel(ref)}`, units: 1 },
        ...lb("GetRank", GetRankRequestSchema, { board: ref.board, period: ref.period, window: ref.window, playerId: player }),
      }),
    ),
    ...a.pages.map(
      (pg): Ask => ({
        ...{ part: "pages", router, label: pageLabel(pg), units: 1, ...lb("GetTop", GetTopRequestSchema, pg.request) },
        ...(pg.kind === "offset" ? { load: SLOW_PAGE_LOAD } : {}),
      }),
    ),
    ...floor("cached"),
  ];
}
