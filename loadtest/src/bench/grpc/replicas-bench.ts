/**
 * Benchmark "replicas": GetRank on a cluster whose shards are behind a Redis Sentinel, with 0, then 1,
 * then 2 read replicas per shard (Redis replication; the router spreads reads over the replicas that
 * are current, router/src/read/replicas.ts), against the router's health check in the same round,
 * with the share of the shards' reads the replicas served. Method: replicas.md.
 */
import { join } from "node:path";
import type { Redis } from "ioredis";
import { startRedisServer } from "@ladder/deploy/redis-server";
import { retryUntil } from "@ladder/platform/backoff";
import { distinctPlayers } from "../../workload/player-ids.js";
import type { Benchmark, BenchContext } from "../context.js";
import { redisCpu, sumProbes } from "../infra/cpu-meter.js";
import { requireH2load } from "../infra/h2load.js";
import { costProbes, getRankOf, roundColumns, roundsTitle, routerRounds, scriptsRun } from "../infra/h2load-rounds.js";
import { benchRedis } from "../infra/infra-fixtures.js";
import { SENTINEL_NAME, startIngestCluster } from "../infra/ingest-cluster.js";
import { benchPort } from "../infra/ports.js";
import { seedThroughKafka } from "../infra/seed-cluster.js";
import { pct, size } from "../output/format.js";
import { tableOf } from "../output/table.js";

export const BOARD = "replicas-bench";

export const replicasBenchmark: Benchmark = {
  name: "replicas",
  method: "grpc/replicas.md",
  title: "GetRank with 0, 1 and 2 read replicas per shard",
  async run(ctx) {
    const h2loadVersion = await requireH2load();
    const p = ctx.plan.replicas;
    ctx.say(`starting a ${p.shards}-shard cluster behind a Sentinel; ${size(p.players)} players through Kafka on "${BOARD}"`);
    const cluster = await startIngestCluster(ctx, { shards: p.shards, sentinel: true });
    try {
      const seeded = await seedThroughKafka(ctx, cluster, BOARD, p.players);
      const asSentinel = benchRedis(`redis://${cluster.sentinel!.address}`);
      const replicas: Redis[][] = cluster.redis.map(() => []);
      const players = distinctPlayers(ctx.plan.seed, 900, p.rounds, p.players);
      const rows = [];
      const served = [];
      for (const count of p.replicas) {
        await addReplicas(ctx, cluster.fleet.servers, replicas, count, asSentinel);
        await new Promise((r) => setTimeout(r, 3_000)); // several of the router's probes: it reads the new replicas too
        const all = replicas.flat();
        // every shard read is one script: which nodes answered GetRank over the rounds (only GetRank reads a shard)
        const [onPrimaries, onReplicas] = [scriptsRun(cluster.redis), scriptsRun(all)];
        const base = costProbes(cluster);
        const probes = {
          ...base,
          redisS: sumProbes([base.redisS, ...all.map(redisCpu)]),
          redisScripts: sumProbes([base.redisScripts, onReplicas]),
        };
        const label = `${count} replica${count === 1 ? "" : "s"} per shard`;
        const routers = { [label]: { address: cluster.services.routerAddress, probes } };
        const before = [await onPrimaries(), await onReplicas()];
        const round = await routerRounds(ctx, p, { probes, routers, questionsOf: getRankOf(BOARD), players });
        rows.push(...round.rows.map((r) => ({ replicas: count, ...r })));
        const [primaries, byReplicas] = [(await onPrimaries()) - before[0]!, (await onReplicas()) - before[1]!];
        served.push({ replicas: count, fromReplicas: byReplicas / (byReplicas + primaries) });
      }
      asSentinel.disconnect();
      replicas.flat().forEach((r) => r.disconnect());
      const table = tableOf(roundsTitle("GetRank vs the router's health check", p), rows, [
        ["replicas per shard", (r) => String(r.replicas)],
        ...roundColumns<(typeof rows)[number]>("Redis CPU µs/call (all nodes)"),
      ]);
      const spread = tableOf("Shard reads of GetRank served by replicas", served, [
        ["replicas per shard", (r) => String(r.replicas)],
        ["served by replicas", (r) => pct(r.fromReplicas)],
      ]);
      return { figures: { plan: p, h2loadVersion, seeded, rows, served }, tables: [table, spread] };
    } finally {
      await cluster.stop();
    }
  },
};

/**
 * Starts replicas of each primary until it has `count`, each in sync (master_link_status:up), and
 * waits until the Sentinel lists `count` replicas of every primary, none of them down.
 */
async function addReplicas(ctx: BenchContext, primaries: readonly { port: number }[], replicas: Redis[][], count: number, sentinel: Redis) {
  for (const [i, primary] of primaries.entries())
    while (replicas[i]!.length < count) {
      const server = await startRedisServer({
        dataDir: join(ctx.dataDir, `replica-${i}-${replicas[i]!.length + 1}`),
        port: await benchPort(ctx.ports),
        persist: false,
        replicaOf: `127.0.0.1:${primary.port}`,
        log: ctx.log,
      });
      ctx.cleanup.push(`redis-server ${server.url} (replica of shard ${i})`, () => server.stop());
      replicas[i]!.push(benchRedis(server.url));
    }
  const retry = { initialMs: 200, maxMs: 1_000, timeoutMs: 120_000 };
  for (const r of replicas.flat())
    await retryUntil(
      async () => {
        if (!/master_link_status:up/.test(await r.info("replication"))) throw new Error("not in sync yet");
      },
      { ...retry, what: "a replica in sync with its primary" },
    );
  for (const i of primaries.keys())
    await retryUntil(
      async () => {
        const listed = (await sentinel.call("SENTINEL", "REPLICAS", SENTINEL_NAME(i))) as string[][];
        const up = listed.filter((fields) => !/down|disconnected/.test(fields[fields.indexOf("flags") + 1] ?? ""));
        if (up.length < count) throw new Error(`the Sentinel lists ${up.length} replicas of ${SENTINEL_NAME(i)}`);
      },
      { ...retry, what: `the Sentinel listing ${count} replicas of ${SENTINEL_NAME(i)}` },
    );
  ctx.say(`  ${count} replica(s) per shard in sync, listed by the Sentinel`);
}
