/**
 * Benchmark "ingest": updates per second through the whole write path against raw Kafka and raw
 * Redis (raw-paths.ts). Method: ingest.md.
 */
import { randomBytes } from "node:crypto";
import { createScoreProducer, ensureScoreTopic } from "@ladder/log/kafka";
import type { LogClient } from "@ladder/log/log-client";
import { buildPlacement } from "@ladder/model/placement";
import { keyLayout } from "@ladder/store";
import { appliedCounter, seededCount, untilApplied } from "../../seed/apply-watch.js";
import type { Benchmark, BenchContext } from "../context.js";
import { BENCH_BOARD, BENCH_KEY_PREFIX, BENCH_SLOTS } from "../infra/bench-board.js";
import { redisCpu, selfCpu, sumProbes } from "../infra/cpu-meter.js";
import { benchLogClient, benchRedis } from "../infra/infra-fixtures.js";
import { startIngestCluster, type IngestCluster } from "../infra/ingest-cluster.js";
import { measureClosedLoop } from "../infra/measure.js";
import { clusterCpuFigures, clusterCpuTable, clusterProcesses, readCpu, restCores, type ClusterProcess } from "./cluster-cpu.js";
import { ingestTable, type IngestFigures } from "./ingest-table.js";
import { produceBatch, zaddBatch } from "./raw-paths.js";
import { asSet, updateBatches } from "./update-stream.js";

const DRAIN_STALL_MS = 300_000; // 5 min without a partition catching up
/** Seconds of rest over which the cluster's processes' rest rates are read. */
const REST_S = 3;

export const ingestBenchmark: Benchmark = {
  name: "ingest",
  method: "writes/ingest.md",
  title: "Ingest end to end vs raw Kafka and raw Redis",
  async run(ctx) {
    const p = ctx.plan.ingest;
    ctx.say(
      `starting a ${p.shards}-shard cluster (Kafka, ${p.shards} redis-servers without persistence, ${p.shards} shard nodes, router, ingest)`,
    );
    const cluster = await startIngestCluster(ctx, { shards: p.shards });
    const broker = await ctx.kafka();
    const client = await benchLogClient(ctx, broker, "ladder-bench");
    try {
      const endToEnd = await measureEndToEnd(ctx, cluster, client, clusterProcesses(cluster, broker.process?.pid));
      await cluster.stopServices();
      const rawKafka = [];
      for (const batch of p.rawKafkaBatches) {
        ctx.say(`raw Kafka: kafkajs idempotent producer, acks=all, produce requests of ${batch} records, one at a time`);
        rawKafka.push(await measureRawKafka(ctx, client, batch));
      }
      ctx.say(`raw Redis: ZADD per update, one pipeline per shard per batch of ${p.batch}, ${p.raw.concurrency} batches in flight`);
      const rawRedis = await measureRawRedis(ctx, cluster);
      const figures: IngestFigures = { plan: p, endToEnd, rawKafka, rawRedis };
      return { figures: { ...figures }, tables: [ingestTable(figures), clusterCpuTable(endToEnd.clusterCpu)] };
    } finally {
      await client.close();
      await cluster.stop();
    }
  },
};

async function measureEndToEnd(ctx: BenchContext, cluster: IngestCluster, client: LogClient, processes: readonly ClusterProcess[]) {
  const p = ctx.plan.ingest;
  const start = await client.endOffsetsOnce(cluster.topic);
  const applied = appliedCounter(cluster.redis, keyLayout(BENCH_KEY_PREFIX).offsets, start);
  const next = updateBatches(ctx.plan.seed, p.players, `bench-${randomBytes(4).toString("hex")}`);
  let acknowledged = 0; // updates, over the whole run (warm-up and tail included)
  const send = async () => {
    const res = await cluster.writer.ingest().submitScores({ updates: next(p.batch).map((u) => asSet(u, 0)) });
    acknowledged += res.accepted;
  };
  ctx.say(`  the cluster's processes at rest, over ${REST_S} s`);
  const rest = await restCores(processes, REST_S);
  const cpuAtStart = await readCpu(processes);
  const { ingest, shardNodes, redis, client: self } = cluster.cpu;
  const cpu = { ingest, shardNodes, redis, client: self };
  ctx.say(
    `end to end: SubmitScores of ${p.batch} SETs, ${p.concurrency} in flight, ${p.warmupMs / 1000} s warm-up + ${p.durationMs / 1000} s`,
  );
  const firstSend = performance.now();
  let appliedAtStart = 0;
  let appliedAtEnd = 0;
  const m = await measureClosedLoop({
    plan: p,
    send,
    cpu,
    onMeasureStart: async () => void (appliedAtStart = await applied()),
    onMeasureEnd: async () => void (appliedAtEnd = await applied()),
  });
  const loadEnd = performance.now();
  const end = await client.endOffsetsOnce(cluster.topic);
  const produced = seededCount(start, end);
  ctx.say(`waiting for the shard nodes to apply all ${produced.toLocaleString("en-US")} acknowledged updates`);
  const last = new Map([...end].filter(([p, o]) => o > (start.get(p) ?? 0n)).map(([p, o]) => [p, o - 1n]));
  await untilApplied(cluster.redis, keyLayout(BENCH_KEY_PREFIX).offsets, last, DRAIN_STALL_MS);
  const allApplied = performance.now();
  const clusterCpu = clusterCpuFigures(processes, {
    start: cpuAtStart,
    end: await readCpu(processes),
    rest,
    seconds: (allApplied - firstSend) / 1000,
    updates: acknowledged,
  });
  const seconds = m.elapsedMs / 1000;
  return {
    call: m,
    batch: p.batch,
    ackedPerSec: Math.round(((m.calls - m.errors) * p.batch) / seconds),
    visiblePerSec: Math.round((appliedAtEnd - appliedAtStart) / seconds),
    appliedInWindow: appliedAtEnd - appliedAtStart,
    drainMs: Math.round(allApplied - loadEnd),
    produced,
    overallPerSec: Math.round(produced / ((allApplied - firstSend) / 1000)),
    clusterCpu,
  };
}

async function measureRawKafka(ctx: BenchContext, client: LogClient, batch: number): Promise<IngestFigures["rawKafka"][number]> {
  const p = ctx.plan.ingest;
  const topic = `bench.raw.${randomBytes(4).toString("hex")}`;
  await ensureScoreTopic(client, { topic, numSlots: BENCH_SLOTS }, { create: true }); // created like the score topic
  const producer = await createScoreProducer(client);
  try {
    const next = updateBatches(ctx.plan.seed, p.players, `raw-${randomBytes(4).toString("hex")}`);
    const m = await measureClosedLoop({
      plan: { ...p.raw, concurrency: 1 },
      send: () => produceBatch(producer, topic, next(batch)),
      cpu: { client: selfCpu },
    });
    return { call: m, batch, perSec: Math.round(((m.calls - m.errors) * batch) / (m.elapsedMs / 1000)), topic };
  } finally {
    await producer.disconnect();
  }
}

async function measureRawRedis(ctx: BenchContext, cluster: IngestCluster): Promise<IngestFigures["rawRedis"]> {
  const p = ctx.plan.ingest;
  const ids = cluster.services.shardIds;
  const connections = ids.map((_, i) => benchRedis(cluster.fleet.servers[i]!.url));
  try {
    const target = {
      placement: buildPlacement(ids, BENCH_SLOTS),
      redis: new Map(ids.map((id, i) => [id, connections[i]!])),
      key: keyLayout("bench-raw:").board(BENCH_BOARD),
    };
    const next = updateBatches(ctx.plan.seed, p.players, "raw");
    const m = await measureClosedLoop({
      plan: p.raw,
      send: () => zaddBatch(target, next(p.batch)),
      cpu: { redis: sumProbes(connections.map(redisCpu)), client: selfCpu },
    });
    return { call: m, batch: p.batch, perSec: Math.round(((m.calls - m.errors) * p.batch) / (m.elapsedMs / 1000)) };
  } finally {
    connections.forEach((c) => c.disconnect());
  }
}
