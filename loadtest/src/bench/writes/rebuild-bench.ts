/**
 * Benchmark "rebuild": records per second replayed from the score log into 1 and 3 shards,
 * without and with event ids. Method: rebuild.md.
 */
import type { LogClient } from "@ladder/log/log-client";
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { loadConfig } from "@ladder/platform/config";
import { ensureScoreTopic } from "@ladder/log/kafka";
import { buildPlacement } from "@ladder/model/placement";
import { rebuildShard } from "@ladder/store/writer";
import { auditPrefix, builtFrom, keyLayout, shardStamp } from "@ladder/store";
import { seedKafka } from "../../seed/kafka-seeder.js";
import { configuredBoard } from "../../seed/seed-board.js";
import { appliedCounter } from "../../seed/apply-watch.js";
import { progressBar } from "../../seed/progress-bar.js";
import type { Benchmark, BenchContext } from "../context.js";
import { BENCH_BOARD, BENCH_KEY_PREFIX, BENCH_SLOTS, BENCH_SPECS, benchPlayers } from "../infra/bench-board.js";
import { benchLogClient, benchRedis, startRedisFleet } from "../infra/infra-fixtures.js";
import { count, ratio, round2, size } from "../output/format.js";
import { tableOf, type Table } from "../output/table.js";

const VIEW = "bench";
const POLL_MS = 50;

/** A topic seeded for the replays, `eventIds` whether its records carry event ids. */
export type SeedFigures = Awaited<ReturnType<typeof seedTopic>>;

export interface RebuildRun {
  shards: number;
  eventIds: boolean;
  records: number;
  /** Call start → every record applied (bench's 50 ms poll). */
  replaySeconds: number;
  replayPerSec: number;
  /** Call start → first record applied: the consumer group's join. */
  firstRecordSeconds: number;
  /** Call start → rebuildShard returned (for every shard). */
  callSeconds: number;
  /** Members of the rebuilt view's board, summed over the shards. */
  viewPlayers: number;
  /** Event ids the view's dedup sets remember, summed over partitions and shards. */
  viewDedupEntries: number;
}

export const rebuildBenchmark: Benchmark = {
  name: "rebuild",
  method: "writes/rebuild.md",
  title: "Rebuild: replay from Kafka into a shard",
  async run(ctx) {
    const { records, shards: shardCounts, eventIds: variants } = ctx.plan.rebuild;
    const client = await benchLogClient(ctx, await ctx.kafka(), "ladder-bench-rebuild");
    const seeded: SeedFigures[] = [];
    const runs: RebuildRun[] = [];
    try {
      for (const eventIds of variants) {
        const topic = `bench.rebuild.${randomBytes(4).toString("hex")}`;
        await ensureScoreTopic(client, { topic, numSlots: BENCH_SLOTS }, { create: true });
        ctx.say(`seeding ${size(records)} records ${eventIds ? "with" : "without"} event ids into ${topic} with the seeder's Kafka path`);
        const seed = await seedTopic(ctx, client, topic, records, eventIds);
        seeded.push(seed);
        for (const shards of shardCounts) {
          ctx.say(
            `rebuilding ${size(records)} records ${eventIds ? "with" : "without"} event ids into ${shards} shard(s) (audit view "${VIEW}")`,
          );
          runs.push(await rebuildInto(ctx, client, seed, shards));
        }
      }
    } finally {
      await client.close();
    }
    return { figures: { seeded, runs }, tables: [rebuildTable(seeded, runs)] };
  },
};

async function seedTopic(ctx: BenchContext, client: LogClient, topic: string, records: number, eventIds: boolean) {
  const producer = await client.producer({ maxInFlightRequests: 2 });
  const bar = progressBar("produced", records);
  const start = performance.now();
  try {
    const r = await seedKafka({
      producer,
      topic,
      board: BENCH_BOARD,
      target: configuredBoard({ boards: BENCH_SPECS }, BENCH_BOARD),
      batch: 20_000,
      parallel: 2,
      players: benchPlayers(ctx.plan.seed, 0, records),
      onProgress: (n) => bar.update(n),
      ...(eventIds ? { eventIdPrefix: `bench-${randomBytes(4).toString("hex")}` } : {}),
    }).finally(() => bar.finish());
    const seconds = (performance.now() - start) / 1000;
    return { topic, eventIds, records: r.produced, seconds: round2(seconds), perSec: Math.round(r.produced / seconds), logBytes: r.bytes };
  } finally {
    await producer.disconnect();
  }
}

async function rebuildInto(ctx: BenchContext, client: LogClient, seeded: SeedFigures, shards: number): Promise<RebuildRun> {
  const { topic, records, eventIds } = seeded;
  const fleet = await startRedisFleet(ctx, `rebuild${shards}`, shards);
  const redis = fleet.servers.map((s) => benchRedis(s.url));
  const defaults = loadConfig({}); // the services' defaults: apply batch, dedup window
  const ids = fleet.servers.map((_, i) => `shard-${i}`);
  const placement = buildPlacement(ids, BENCH_SLOTS);
  const viewKeys = keyLayout(auditPrefix(BENCH_KEY_PREFIX, VIEW));
  const applied = appliedCounter(redis, viewKeys.offsets, new Map());
  try {
    const start = performance.now();
    let firstAt: number | undefined;
    let doneAt: number | undefined;
    const check = async () => {
      const n = await applied().catch(() => 0);
      if (n > 0) firstAt ??= performance.now();
      if (n >= records) doneAt ??= performance.now();
    };
    const poll = setInterval(() => void check(), POLL_MS);
    const stampOf = (id: string) =>
      shardStamp({ shardId: id, topic, numSlots: BENCH_SLOTS, slots: placement.slotsOf.get(id) ?? [], boards: BENCH_SPECS });
    await Promise.all(
      ids.map((id, i) =>
        rebuildShard({
          logClient: client,
          topic,
          shardId: id,
          stamp: stampOf(id),
          builtFrom: builtFrom(stampOf(id), topic),
          slots: placement.slotsOf.get(id) ?? [],
          redisUrl: fleet.servers[i]!.url,
          keyPrefix: BENCH_KEY_PREFIX,
          boards: BENCH_SPECS,
          applyBatch: defaults.applyBatch,
          dedupWindowMs: defaults.dedupWindowMs,
          mode: { kind: "audit", view: VIEW, asOfOffsets: new Map(), asOfTimestampMs: 0 },
          onProgress: () => {},
          log: ctx.log,
        }),
      ),
    );
    const end = performance.now();
    clearInterval(poll);
    if ((await applied()) >= records) doneAt ??= end;
    const viewPlayers = (await Promise.all(redis.map((r) => r.zcard(viewKeys.board(BENCH_BOARD))))).reduce((a, b) => a + b, 0);
    const viewDedupEntries = (await Promise.all(redis.map((r) => dedupEntries(r, viewKeys)))).reduce((a, b) => a + b, 0);
    const replaySeconds = ((doneAt ?? end) - start) / 1000;
    return {
      shards,
      eventIds,
      records,
      replaySeconds: round2(replaySeconds),
      replayPerSec: Math.round(records / replaySeconds),
      firstRecordSeconds: round2(((firstAt ?? end) - start) / 1000),
      callSeconds: round2((end - start) / 1000),
      viewPlayers,
      viewDedupEntries,
    };
  } finally {
    redis.forEach((r) => r.disconnect());
    await fleet.stop();
  }
}

/** Members of the dedup sets of every partition in one shard's Redis (a partition the shard does not own has none). */
async function dedupEntries(redis: Redis, keys: ReturnType<typeof keyLayout>): Promise<number> {
  const pipeline = redis.pipeline();
  for (let p = 0; p < BENCH_SLOTS; p++) pipeline.zcard(keys.dedup(p));
  const replies = (await pipeline.exec()) ?? [];
  return replies.reduce((n, [err, v]) => n + (err ? 0 : Number(v)), 0);
}

export function rebuildTable(seeded: readonly SeedFigures[], runs: readonly RebuildRun[]): Table {
  const withoutIds = (r: RebuildRun) => runs.find((x) => !x.eventIds && x.shards === r.shards);
  const lines = [
    ...runs.map((r) => ({
      into: `${r.shards} shard${r.shards > 1 ? "s" : ""}${r.shards > 1 ? " in parallel" : " (all 64 partitions)"}`,
      run: r,
      ...r,
      perSec: r.replayPerSec,
      seconds: r.replaySeconds,
    })),
    ...seeded.map((s) => ({ into: "(seeding the topic: seeder's Kafka path)", run: undefined, ...s })),
  ];
  const ofRun = (f: (r: RebuildRun) => string) => (l: (typeof lines)[number]) => (l.run ? f(l.run) : "—");
  return tableOf(`Rebuild: ${size(seeded[0]?.records ?? 0)} records replayed from Kafka (audit mode, one process)`, lines, [
    ["into", (l) => l.into],
    ["event ids", (l) => (l.eventIds ? "yes (dedup path)" : "no")],
    ["records", (l) => count(l.records)],
    ["records/s", (l) => count(l.perSec)],
    ["÷ without ids", ofRun((r) => (r.eventIds ? ratio(r.replayPerSec, withoutIds(r)?.replayPerSec) : "—"))],
    ["replay s", (l) => l.seconds.toFixed(2)],
    ["first record after s", ofRun((r) => r.firstRecordSeconds.toFixed(2))],
    ["rebuildShard returned after s", ofRun((r) => r.callSeconds.toFixed(2))],
    ["players in the view", ofRun((r) => count(r.viewPlayers))],
    ["dedup entries in the view", ofRun((r) => count(r.viewDedupEntries))],
  ]);
}
