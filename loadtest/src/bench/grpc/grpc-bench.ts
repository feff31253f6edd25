/**
 * Benchmark "grpc": the router's reads (GetRank, GetTop, GetAround) against its own gRPC health
 * check, the cheapest call the same router answers, through h2load on a real cluster, with the
 * top cache off (the default) and on (a second router over the same shards), and that second
 * router again as 2 processes behind one port. Method: grpc.md.
 */
import { LadderClient } from "@ladder/client";
import { GetAroundRequestSchema, GetRankRequestSchema, GetTopRequestSchema } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { distinctPlayers } from "../../workload/player-ids.js";
import type { Benchmark } from "../context.js";
import { pidCpu, treeCpu } from "../infra/cpu-meter.js";
import { lb, requireH2load } from "../infra/h2load.js";
import { costProbes, medianRatio, roundsTitle, routerRounds, type Question } from "../infra/h2load-rounds.js";
import { startIngestCluster } from "../infra/ingest-cluster.js";
import { startRouter } from "../infra/router-process.js";
import { seedThroughKafka } from "../infra/seed-cluster.js";
import { ms, pct, rate, size, whole } from "../output/format.js";
import { tableOf } from "../output/table.js";

export const BOARD = "grpc-bench";
const CACHED = "router, top cache 100 ms";
const TWO_PROCESSES = `${CACHED}, 2 processes`;

/** What each round asks each router (after its health check): about the round's player. */
function questions(playerId: string): Question[] {
  return [
    { label: "GetRank", ...lb("GetRank", GetRankRequestSchema, { board: BOARD, playerId }) },
    { label: "GetTop (10)", ...lb("GetTop", GetTopRequestSchema, { board: BOARD, limit: 10 }) },
    { label: "GetAround (±5)", ...lb("GetAround", GetAroundRequestSchema, { board: BOARD, playerId, radius: 5 }) },
  ];
}

export const grpcBenchmark: Benchmark = {
  name: "grpc",
  method: "grpc/grpc.md",
  title: "Router vs its own gRPC floor, on a real cluster, with h2load",
  async run(ctx) {
    const h2loadVersion = await requireH2load();
    const p = ctx.plan.grpc;
    ctx.say(`starting a 3-shard cluster; ${size(p.players)} players through Kafka on "${BOARD}"`);
    const cluster = await startIngestCluster(ctx, { shards: 3 });
    try {
      const seeded = await seedThroughKafka(ctx, cluster, BOARD, p.players);
      const cachedEnv = { ...cluster.services.env, LADDER_TOP_CACHE_MS: "100" };
      const cached = await startRouter(ctx, "router (top cache on)", cachedEnv);
      // the same router as 2 processes sharing one port (router/src/control/processes.ts): its CPU is the tree's
      const two = await startRouter(ctx, "router (top cache on, 2 processes)", { ...cachedEnv, LADDER_ROUTER_PROCESSES: "2" });
      const probes = costProbes(cluster);
      const routers = {
        router: { address: cluster.services.routerAddress, probes },
        [CACHED]: { address: cached.address, probes: { ...probes, routerS: pidCpu(cached.pid) } },
        [TWO_PROCESSES]: { address: two.address, probes: { ...probes, routerS: treeCpu(two.pid) } },
      };
      const players = distinctPlayers(ctx.plan.seed, 700, p.rounds, p.players);
      for (const r of Object.values(routers)) await checkAnswers(r.address, players);
      const rounds = await routerRounds(ctx, p, { probes, routers, questionsOf: questions, players }).finally(() =>
        Promise.all([cached.stop(), two.stop()]),
      );
      const { idle, runsOf } = rounds;
      const rows = rounds.rows.map((r) => ({
        ...r,
        // the 2-process router's rate over the 1-process one's (the same settings) in the same round
        ofOneProcess: r.router === TWO_PROCESSES ? medianRatio(runsOf(r.router, r.label), runsOf(CACHED, r.label)) : undefined,
      }));
      const table = tableOf(roundsTitle("Router vs its own health check", p, ", 3 shards"), rows, [
        ["router", (r) => r.router],
        ["question", (r) => r.label],
        ["calls/s", (r) => rate(r.rate)],
        ["÷ health check", (r) => pct(r.ofFloor)],
        ["÷ 1 process", (r) => (r.ofOneProcess === undefined ? "—" : r.ofOneProcess.toFixed(2))],
        ["router CPU µs/call", (r) => whole(r.routerUsPerCall)],
        ["h2load mean ms", (r) => ms(r.meanMs)],
      ]);
      return { figures: { plan: p, h2loadVersion, seeded, players, idle, rows }, tables: [table] };
    } finally {
      await cluster.stop();
    }
  },
};

/** Each question once with the Node client: h2load counts HTTP statuses only (infra/h2load.ts), so the answers are checked here. */
async function checkAnswers(address: string, players: readonly string[]): Promise<void> {
  const client = new LadderClient({ router: address, timeoutMs: 10_000 });
  try {
    for (const playerId of players) {
      const rank = await client.leaderboard.getRank({ board: BOARD, playerId });
      if (rank.entry?.playerId !== playerId) throw new Error(`GetRank of ${playerId} on ${address} answered ${JSON.stringify(rank.entry)}`);
      const around = await client.leaderboard.getAround({ board: BOARD, playerId, radius: 5 });
      if (!around.entries.some((e) => e.playerId === playerId)) throw new Error(`GetAround of ${playerId} on ${address} misses the player`);
    }
    const top = await client.leaderboard.getTop({ board: BOARD, limit: 10 });
    if (top.entries.length !== 10) throw new Error(`GetTop (10) on ${address} answered ${top.entries.length} entries`);
  } finally {
    client.close();
  }
}
