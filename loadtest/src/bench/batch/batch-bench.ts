/**
 * Benchmark "batch": GetRanks, GetStanding and cursor pages against one call at a time, and
 * the router's reads against its own gRPC health check with and without the top cache, on a
 * real cluster (Node client, then h2load). Method: batch.md.
 */
import type { DescMessage, MessageInitShape } from "@bufbuild/protobuf";
import { LadderClient } from "@ladder/client";
import { HealthCheckRequestSchema } from "@ladder/proto/grpc/health/v1/health_pb";
import {
  GetAroundRequestSchema,
  GetRankRequestSchema,
  GetRanksRequestSchema,
  GetStandingRequestSchema,
  GetTopRequestSchema,
  type BoardRef,
} from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { keyLayout } from "@ladder/store";
import { clusterClients, type ClusterClients } from "../../run/cluster-clients.js";
import { readApplied } from "../../seed/apply-watch.js";
import { distinctPlayers, playerId } from "../../workload/player-ids.js";
import { rngFor } from "../../workload/rng.js";
import { aloneSummary } from "../boards/window-reads.js";
import type { Benchmark, BenchContext } from "../context.js";
import { BENCH_KEY_PREFIX, BENCH_SPEC } from "../infra/bench-board.js";
import { pidCpu } from "../infra/cpu-meter.js";
import { grpcFrame, median, requireH2load } from "../infra/h2load.js";
import { startIngestCluster, type IngestCluster } from "../infra/ingest-cluster.js";
import { benchPort } from "../infra/ports.js";
import { seedThroughKafka } from "../infra/seed-cluster.js";
import { startService } from "../infra/service-process.js";
import { batchTables, type H2Row, type NodeRow, type PageRow } from "./batch-tables.js";
import type { BatchPlan } from "../plan.js";
import { round1, size } from "../output/format.js";
import { costProbes, h2loadRun, restRates, settle, timeBlock } from "./cluster-costs.js";
import type { CostProbes, IdleRates } from "./cost-meter.js";
import {
  behind,
  dailyBatches,
  dailyDefinition,
  dailyPlayerIndexes,
  daysWritten,
  maxOffsets,
  DAILY_WINDOWS,
  type DayWritten,
} from "./daily-board.js";
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
interface Ask<D extends DescMessage = DescMessage> {
  part: H2Row["part"];
  /** The router asked: the cluster's, or the second one with the top cache on. */
  router: H2Row["router"];
  label: string;
  path: string;
  schema: D;
  init: MessageInitShape<D>;
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
    const cluster = await startIngestCluster(ctx, 3);
    const address = cluster.services.routerAddress;
    const reader = clusterClients({
      router: address,
      ingest: cluster.services.ingestAddress,
      connections: 2,
      timeoutMs: 60_000,
      token: undefined,
    });
    const writer = clusterClients({
      router: address,
      ingest: cluster.services.ingestAddress,
      connections: 2,
      timeoutMs: 60_000,
      token: cluster.writeToken,
    });
    const admin = new LadderClient({ router: address, token: cluster.adminToken });
    try {
      const seeded = await seedThroughKafka(ctx, cluster, BOARD, p.players);
      const daily = await writeDaily(ctx, cluster, writer, admin.admin, reader);
      const router = () => reader.router();

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
      const cached = await startCachedRouter(ctx, cluster);
      // h2load counts HTTP statuses only (infra/h2load.ts): the top-cache router answers a real client first
      const cachedClient = clusterClients({
        router: cached.address,
        ingest: cached.address,
        connections: 1,
        timeoutMs: 10_000,
        token: undefined,
      });
      const cachedTop = await cachedClient
        .router()
        .getTop({ board: BOARD, limit: 10 })
        .finally(() => cachedClient.close());
      if (cachedTop.entries.length !== 10)
        throw new Error(`the top-cache router's GetTop (10) answered ${cachedTop.entries.length} entries`);
      const routers = {
        main: { address, probes },
        cached: { address: cached.address, probes: { ...probes, routerS: pidCpu(cached.pid) } },
      };
      const h2 = await h2loadRounds(ctx, routers, idle[0]!, p, { rankSets, standingPlayers, refs, pages }).finally(() => cached.stop());
      for (const row of pageRows) row.h2 = h2.find((h) => h.part === "pages" && h.router === "main" && h.label === pageLabel(row));

      const run: BatchRun = { h2loadVersion, seeded, daily: daily.figures, idle, node, walk: walk.figures, pages: pageRows, h2 };
      return {
        figures: { plan: p, refs, rankSets: rankSets.map((s) => s.slice(0, 5)), standingPlayers, ...run },
        tables: batchTables(run, p),
      };
    } finally {
      reader.close();
      writer.close();
      admin.close();
      await cluster.stop();
    }
  },
};

/** Defines the daily board, writes its players' two days through ingest, waits until applied, and checks its sizes. */
async function writeDaily(
  ctx: BenchContext,
  cluster: IngestCluster,
  writer: ClusterClients,
  admin: LadderClient["admin"],
  reader: ClusterClients,
) {
  const p = ctx.plan.batch;
  await admin.createBoard({ board: dailyDefinition(DAILY) });
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
  const offsetsKey = keyLayout(BENCH_KEY_PREFIX).offsets;
  for (let last = "", since = performance.now(); ; ) {
    const left = behind(target, await readApplied(cluster.redis, offsetsKey));
    if (left.length === 0) break;
    const now = `${left.length}`;
    if (now !== last) [last, since] = [now, performance.now()];
    if (performance.now() - since > 120_000)
      throw new Error(`the shard nodes applied nothing more for 2 min; partitions behind: ${left.join(", ")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
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

const SERVICE = "/leaderboard.v1.LeaderboardService";

/** Every request of round `r`, the health check first. */
function roundAsks(r: number, a: Asked): Ask[] {
  const set = a.rankSets[r % a.rankSets.length]!;
  const player = a.standingPlayers[r % a.standingPlayers.length]!;
  const refLabel = (ref: Ref) =>
    `${ref.board === BOARD ? "all-time board" : "daily"}${ref.window ? ` ${ref.window}` : ref.board === DAILY ? (ref === a.refs[1] ? " today" : " yesterday") : ""}`;
  const floor = (router: Ask["router"]): Ask[] => [
    {
      part: "floor",
      router,
      label: "health check (the floor)",
      path: "/grpc.health.v1.Health/Check",
      schema: HealthCheckRequestSchema,
      init: {},
      units: 1,
    },
    {
      part: "ranks",
      router,
      label: "GetRank",
      path: `${SERVICE}/GetRank`,
      schema: GetRankRequestSchema,
      init: { board: BOARD, playerId: set[0]! },
      units: 1,
    },
    {
      part: "reads",
      router,
      label: "GetTop (10)",
      path: `${SERVICE}/GetTop`,
      schema: GetTopRequestSchema,
      init: { board: BOARD, limit: 10 },
      units: 1,
    },
    {
      part: "reads",
      router,
      label: "GetAround (±5)",
      path: `${SERVICE}/GetAround`,
      schema: GetAroundRequestSchema,
      init: { board: BOARD, playerId: set[0]!, radius: 5 },
      units: 1,
    },
  ];
  const router = "main" as const;
  return [
    ...floor("main"),
    {
      part: "ranks",
      router,
      label: `GetRanks (${set.length} players)`,
      path: `${SERVICE}/GetRanks`,
      schema: GetRanksRequestSchema,
      init: { board: BOARD, playerIds: set },
      units: set.length,
    },
    {
      part: "standing",
      router,
      label: `GetStanding (${a.refs.length} boards)`,
      path: `${SERVICE}/GetStanding`,
      schema: GetStandingRequestSchema,
      init: { playerId: player, boards: a.refs },
      units: a.refs.length,
    },
    ...a.refs.map(
      (ref): Ask => ({
        part: "standing",
        router,
        label: `GetRank, ${refLabel(ref)}`,
        path: `${SERVICE}/GetRank`,
        schema: GetRankRequestSchema,
        init: { board: ref.board, period: ref.period, window: ref.window, playerId: player },
        units: 1,
      }),
    ),
    ...a.pages.map(
      (pg): Ask => ({
        part: "pages",
        router,
        label: pageLabel(pg),
        path: `${SERVICE}/GetTop`,
        schema: GetTopRequestSchema,
        init: pg.request,
        units: 1,
        ...(pg.kind === "offset" ? { load: SLOW_PAGE_LOAD } : {}),
      }),
    ),
    ...floor("cached"),
  ];
}

/** A second router over the cluster's shards with LADDER_TOP_CACHE_MS=100 (the cluster's runs with it off, the default). */
async function startCachedRouter(
  ctx: BenchContext,
  cluster: IngestCluster,
): Promise<{ address: string; pid: number; stop(): Promise<void> }> {
  const address = `127.0.0.1:${await benchPort(ctx.ports)}`;
  const started = await startService({
    name: "router (top cache on)",
    entry: "router/src/main.ts",
    ready: "router listening",
    log: ctx.log,
    settings: {
      ...cluster.services.env,
      LADDER_ROUTER_LISTEN: address,
      LADDER_ROUTER_METRICS_LISTEN: "127.0.0.1:0",
      LADDER_TOP_CACHE_MS: "100",
    },
  });
  const entry = ctx.cleanup.push("router with the top cache", async () => void (await started.process.stop(10_000)));
  return { address, pid: started.process.pid!, stop: () => entry.release() };
}

type Routers = Record<H2Row["router"], { address: string; probes: CostProbes }>;

async function h2loadRounds(ctx: BenchContext, routers: Routers, idle: IdleRates, p: BatchPlan, asked: Asked): Promise<H2Row[]> {
  const samples = new Map<string, { ask: Ask; rounds: H2Row["rounds"] }>();
  for (let round = 0; round < p.rounds; round++) {
    const floor: Record<H2Row["router"], number> = { main: NaN, cached: NaN };
    for (const ask of roundAsks(round, asked)) {
      const { address, probes } = routers[ask.router];
      const key = `${ask.router} ${ask.label}`;
      const run = { address, path: ask.path, body: grpcFrame(ask.schema, ask.init as never), tag: `batch-${round}-${key}` };
      const r = await h2loadRun(ctx.dataDir, run, { seconds: p.seconds, ...(ask.load ?? p) }, probes, idle);
      if (ask.part === "floor") floor[ask.router] = r.rate;
      const s = samples.get(key) ?? { ask, rounds: [] };
      s.rounds.push({ ...r, ofFloor: r.rate / floor[ask.router] });
      samples.set(key, s);
      ctx.say(
        `  round ${round + 1}/${p.rounds}: ${ask.router === "cached" ? "top-cache router: " : ""}${ask.label} ${Math.round(r.rate)}/s (${((r.rate / floor[ask.router]) * 100).toFixed(0)}% of the floor), router ${r.routerUsPerCall.toFixed(0)} µs/call, others ${r.othersCores} cores${r.settledS > 0.5 ? `, ${r.settledS} s to settle` : ""}`,
      );
    }
  }
  return [...samples.values()].map(({ ask, rounds }) => ({
    part: ask.part,
    router: ask.router,
    label: ask.label,
    units: ask.units,
    load: ask.load ?? { connections: p.connections, streams: p.streams },
    rounds,
    rate: median(rounds.map((x) => x.rate)),
    ofFloor: median(rounds.map((x) => x.ofFloor)),
    meanMs: median(rounds.map((x) => x.meanMs)),
    routerUsPerCall: median(rounds.map((x) => x.routerUsPerCall)),
    redisUsPerCall: median(rounds.map((x) => x.redisUsPerCall)),
  }));
}
