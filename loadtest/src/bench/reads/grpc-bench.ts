/**
 * Benchmark "grpc": the router of a real cluster against its own gRPC health check, with and
 * without the top cache, through h2load. Method: grpc.md.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { HealthCheckRequestSchema } from "@ladder/proto/grpc/health/v1/health_pb";
import { GetAroundRequestSchema, GetRankRequestSchema, GetTopRequestSchema } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { clusterClients } from "../../run/cluster-clients.js";
import type { Benchmark } from "../context.js";
import { pidCpu } from "../infra/cpu-meter.js";
import { grpcFrame as frame, h2load, median, requireH2load } from "../infra/h2load.js";
import { startIngestCluster } from "../infra/ingest-cluster.js";
import { benchPort } from "../infra/ports.js";
import { seedThroughKafka } from "../infra/seed-cluster.js";
import { startService } from "../infra/service-process.js";
import { count, size } from "../output/format.js";

const BOARD = "grpc-bench";

interface Question {
  name: string;
  path: string;
  body: (player: string) => Uint8Array;
}

const QUESTIONS: readonly Question[] = [
  { name: "health check (the floor)", path: "/grpc.health.v1.Health/Check", body: () => frame(HealthCheckRequestSchema, {}) },
  { name: "GetRank", path: "/leaderboard.v1.LeaderboardService/GetRank", body: (playerId) => frame(GetRankRequestSchema, { board: BOARD, playerId }) },
  { name: "GetTop (10)", path: "/leaderboard.v1.LeaderboardService/GetTop", body: () => frame(GetTopRequestSchema, { board: BOARD, limit: 10 }) },
  { name: "GetAround (±5)", path: "/leaderboard.v1.LeaderboardService/GetAround", body: (playerId) => frame(GetAroundRequestSchema, { board: BOARD, playerId, radius: 5 }) },
];

interface Sample {
  rate: number;
  ratio: number;
  cpuUsPerCall: number;
  p50Ms: number;
}

export const grpcBenchmark: Benchmark = {
  name: "grpc",
  method: "reads/grpc.md",
  title: "Router vs its own gRPC floor, on a real cluster, with h2load",
  async run(ctx) {
    await requireH2load();
    const p = ctx.plan.grpc;
    ctx.say(`starting a 3-shard cluster and seeding ${size(p.players)} players through Kafka`);
    const cluster = await startIngestCluster(ctx, 3);
    try {
      await seedThroughKafka(ctx, cluster.services.env, BOARD, p.players);
      const cachedAddress = `127.0.0.1:${await benchPort(ctx.ports)}`;
      const cached = await startService({
        name: "router (top cache on)", entry: "router/src/main.ts", ready: "router listening", log: ctx.log,
        settings: { ...cluster.services.env, LADDER_ROUTER_LISTEN: cachedAddress, LADDER_ROUTER_METRICS_LISTEN: "127.0.0.1:0", LADDER_TOP_CACHE_MS: "100" },
      });
      const cachedEntry = ctx.cleanup.push("router with the top cache", async () => void (await cached.process.stop(10_000)));
      const routers = [
        { label: "router", address: cluster.services.routerAddress, pid: cluster.services.router().pid! },
        { label: "router, top cache 100 ms", address: cachedAddress, pid: cached.process.pid! },
      ];
      const players = Array.from({ length: p.rounds }, (_, r) => `p:${String(Math.floor(((r + 1) * p.players) / (p.rounds + 2))).padStart(12, "0")}`);
      for (const router of routers) await checkAnswers(router.address, players);

      const samples = new Map<string, Sample[]>();
      for (let round = 0; round < p.rounds; round++) {
        for (const router of routers) {
          let floor = 0;
          for (const q of QUESTIONS) {
            const file = join(ctx.dataDir, `h2load-body-${round}-${q.name.replace(/\W+/g, "-")}.bin`);
            await writeFile(file, q.body(players[round]!));
            const cpu = pidCpu(router.pid);
            const before = await cpu();
            const r = await h2load(router.address, q.path, file, p);
            const cpuUsPerCall = ((await cpu()) - before) / Math.max(1, r.done) * 1e6;
            if (q === QUESTIONS[0]) floor = r.rate;
            const key = `${router.label}\u0000${q.name}`;
            samples.set(key, [...(samples.get(key) ?? []), { rate: r.rate, ratio: r.rate / floor, cpuUsPerCall, p50Ms: r.meanMs }]);
            ctx.say(`  round ${round + 1}/${p.rounds} ${router.label}: ${q.name} ${Math.round(r.rate)}/s (${((r.rate / floor) * 100).toFixed(0)}% of the floor), ${cpuUsPerCall.toFixed(0)} µs of router CPU per call`);
          }
        }
      }
      await cachedEntry.release();
      const rows = routers.flatMap((router) => QUESTIONS.map((q) => {
        const s = samples.get(`${router.label}\u0000${q.name}`)!;
        return { router: router.label, question: q.name, rate: median(s.map((x) => x.rate)), ratio: median(s.map((x) => x.ratio)), cpuUsPerCall: median(s.map((x) => x.cpuUsPerCall)), p50Ms: median(s.map((x) => x.p50Ms)), rounds: s };
      }));
      return {
        figures: { players: p.players, rounds: p.rounds, seconds: p.seconds, connections: p.connections, streams: p.streams, rows },
        tables: [{
          title: `Router vs its own health check, h2load ${p.connections} connections x ${p.streams} streams, ${size(p.players)} players, 3 shards (median of ${p.rounds} rounds)`,
          columns: ["router", "question", "calls/s", "÷ health check", "router CPU µs/call", "p50 ms"],
          rows: rows.map((r) => [r.router, r.question, count(r.rate), `${(r.ratio * 100).toFixed(0)}%`, r.cpuUsPerCall.toFixed(0), r.p50Ms.toFixed(2)]),
        }],
      };
    } finally {
      await cluster.stop();
    }
  },
};

/** Each question once with the Node client: h2load sees HTTP statuses only, so the gRPC status is checked here. */
async function checkAnswers(address: string, players: readonly string[]): Promise<void> {
  const c = clusterClients({ router: address, ingest: address, connections: 1, timeoutMs: 10_000, token: undefined });
  try {
    for (const playerId of players) {
      const rank = await c.router().getRank({ board: BOARD, playerId });
      if (rank.entry?.playerId !== playerId) throw new Error(`GetRank of ${playerId} on ${address} answered ${JSON.stringify(rank.entry)}`);
      await c.router().getAround({ board: BOARD, playerId, radius: 5 });
    }
    const top = await c.router().getTop({ board: BOARD, limit: 10 });
    if (top.entries.length !== 10) throw new Error(`GetTop on ${address} answered ${top.entries.length} entries`);
  } finally {
    c.close();
  }
}
