/**
 * Benchmark "reads": the router over 1, 2 and 4 shards against one Redis asked directly, in
 * closed loops, and the bytes per player of the layouts it seeds. Method: reads.md, memory.md.
 */
import { loadConfig } from "@ladder/platform/config";
import { buildPlacement } from "@ladder/model/placement";
import { builtFrom, shardStamp } from "@ladder/store";
import { ShardWriter } from "@ladder/store/writer";
import { clusterClients, type ClusterClients } from "../../run/cluster-clients.js";
import { playerId } from "../../workload/player-ids.js";
import { rngFor } from "../../workload/rng.js";
import type { Benchmark, BenchContext } from "../context.js";
import { BENCH_BOARD, BENCH_KEY_PREFIX, BENCH_SLOTS } from "../infra/bench-board.js";
import { pidCpu, redisCpu, selfCpu, sumProbes } from "../infra/cpu-meter.js";
import { measureClosedLoop } from "../infra/measure.js";
import { layoutRouterSettings, startRouter, type RouterProcess } from "../infra/router-process.js";
import { BOARD_KEY, type Layout } from "../infra/seeded-layouts.js";
import { size } from "../output/format.js";
import { memoryTable, readsTables, type ReadRow } from "./reads-table.js";
import { compareAnswers, type Agreement } from "./answers-agree.js";
import { asker, floorAnswers, QUESTIONS, routerAnswers, type Question, type ReadAnswers } from "./read-questions.js";

const HEARTBEAT_TTL_MS = 3600_000; // 1 h: longer than any run

interface RouterUnderTest {
  router: RouterProcess;
  clients: ClusterClients;
  answers: ReadAnswers;
}

/** One size of the run: the floor at that size, and who to ask about. */
interface SizeRound {
  players: number;
  floor: ReadAnswers;
  /** The players to ask `q` about, the same sequence for the floor and every router. */
  pick(q: Question): () => string;
  /** Players whose answers are compared before timing. */
  sample: string[];
}

interface RunState {
  rows: ReadRow[];
  agreement: Array<Agreement & { players: number; shards: number }>;
  /** A router per layout, started at its first size and kept for the next. */
  routers: Map<number, RouterUnderTest>;
}

export const readsBenchmark: Benchmark = {
  name: "reads",
  method: "reads/reads.md",
  title: "Reads: router vs the floor",
  async run(ctx) {
    const state: RunState = { rows: [], agreement: [], routers: new Map() };
    ctx.say(
      "seeding with the seeder's Redis path (seed/redis-seeder.ts): ZADD straight into each shard's sorted set. This skips Kafka: these boards are for reads only.",
    );
    ctx.say(
      `no shard node runs here: the bench sets each shard's heartbeat key itself (ShardWriter.heartbeat, TTL ${HEARTBEAT_TTL_MS / 60_000} min) so the router serves reads.`,
    );
    try {
      for (const [sizeIndex, players] of ctx.plan.sizes.entries()) {
        const round = await floorRound(ctx, players, sizeIndex, state);
        for (const shards of ctx.plan.shardCounts) await routerRound(ctx, round, shards, state);
      }
    } finally {
      for (const r of state.routers.values()) {
        r.clients.close();
        await r.router.stop();
      }
    }
    // the layouts' memory, read right after each seeding step before any query (memory.md)
    const readings = [...ctx.layouts.readings].sort((a, b) => a.players - b.players || a.shards - b.shards);
    return {
      figures: {
        rows: state.rows,
        agreement: state.agreement,
        seeding: ctx.layouts.steps,
        memory: readings,
        plan: ctx.plan.reads,
        heartbeat: `set by the bench, TTL ${HEARTBEAT_TTL_MS} ms; no shard node ran`,
      },
      tables: [...readsTables(state.rows), memoryTable(readings)],
    };
  },
};

/** Grows the one-Redis layout to `players` and times the floor's questions. */
async function floorRound(ctx: BenchContext, players: number, sizeIndex: number, state: RunState): Promise<SizeRound> {
  const layout = await ctx.layouts.layout(1);
  await ctx.layouts.growTo(layout, players);
  const redis = layout.redis[0]!;
  const sample = playerPicker(ctx.plan.seed + 1, sizeIndex, players);
  const round: SizeRound = {
    players,
    floor: floorAnswers(redis, BOARD_KEY, ctx.plan.reads),
    pick: (q) => playerPicker(ctx.plan.seed, sizeIndex * 10 + QUESTIONS.indexOf(q), players),
    sample: Array.from({ length: ctx.plan.reads.checkedPlayers }, () => sample()),
  };
  for (const q of QUESTIONS) {
    ctx.say(`${size(players)} players, floor (one Redis), ${q}`);
    const m = await measureClosedLoop({
      plan: ctx.plan.reads,
      send: asker(round.floor, q, round.pick(q)),
      cpu: { redis: redisCpu(redis), client: selfCpu },
    });
    state.rows.push({ players, target: "floor", shards: 1, question: q, m });
  }
  return round;
}

/** Grows the layout of `shards` shards to the round's size, checks the router's answers against the floor's, and times them. */
async function routerRound(ctx: BenchContext, round: SizeRound, shards: number, state: RunState): Promise<void> {
  const { players } = round;
  const layout = await ctx.layouts.layout(shards);
  await ctx.layouts.growTo(layout, players);
  await serveReads(layout);
  const under = state.routers.get(shards) ?? (await routerUnderTest(ctx, layout));
  state.routers.set(shards, under);
  const agreed = await compareAnswers(under.answers, round.floor, round.sample);
  state.agreement.push({ players, shards, ...agreed });
  if (agreed.differences.length)
    ctx.say(`WARNING: router (${shards} shards) and floor disagree at ${size(players)}:\n  ${agreed.differences.slice(0, 5).join("\n  ")}`);
  for (const q of QUESTIONS) {
    ctx.say(`${size(players)} players, router over ${shards} shard(s), ${q}`);
    const cpu = { router: pidCpu(under.router.pid), redis: sumProbes(layout.redis.map(redisCpu)), client: selfCpu };
    const m = await measureClosedLoop({ plan: ctx.plan.reads, send: asker(under.answers, q, round.pick(q)), cpu });
    state.rows.push({ players, target: "router", shards, question: q, m });
  }
}

/** Uniform random seeded players, a reproducible sequence per stream. */
function playerPicker(seed: number, stream: number, players: number): () => string {
  const rng = rngFor(seed, stream);
  return () => playerId(rng.nextInt(players));
}

/** Sets every shard's heartbeat key to the stamp the bench's router expects (its default topic and boards), as a running shard node would. */
async function serveReads(layout: Layout): Promise<void> {
  const config = loadConfig({ LADDER_SLOTS: String(BENCH_SLOTS) });
  const placement = buildPlacement(layout.shardIds, BENCH_SLOTS);
  await Promise.all(
    layout.shardIds.map((id, i) => {
      const stamp = shardStamp({
        shardId: id,
        topic: config.scoreTopic,
        numSlots: BENCH_SLOTS,
        slots: placement.slotsOf.get(id) ?? [],
        boards: config.boards,
      });
      return new ShardWriter({
        shardId: id,
        stamp,
        builtFrom: builtFrom(stamp, "seeded-by-the-bench"),
        redis: layout.redis[i]!,
        keyPrefix: BENCH_KEY_PREFIX,
        dedupWindowMs: 0,
      }).markServing(HEARTBEAT_TTL_MS);
    }),
  );
}

async function routerUnderTest(ctx: BenchContext, layout: Layout): Promise<RouterUnderTest> {
  const router = await startRouter(ctx, "router", layoutRouterSettings(layout.shardIds, layout.servers, (await ctx.kafka()).brokers));
  const clients = clusterClients({
    router: router.address,
    ingest: router.address,
    connections: ctx.plan.reads.connections,
    timeoutMs: 30_000,
    token: undefined,
  });
  return { router, clients, answers: routerAnswers(clients, BENCH_BOARD, ctx.plan.reads) };
}
