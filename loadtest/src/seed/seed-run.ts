/**
 * The two seeding paths end to end, with progress bars and the figures of the run
 * (rates, time, memory). main.ts wires the connections; this file runs the phases.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Config } from "@ladder/platform/config";
import { ensureScoreTopic } from "@ladder/log/kafka";
import type { LogClient } from "@ladder/log/log-client";
import type { Placement } from "@ladder/model/placement";
import { keyLayout } from "@ladder/store";
import { scoreSource } from "../workload/score-distribution.js";
import { readApplied, seededCount, watchApplied, type Offsets } from "./apply-watch.js";
import { seedKafka } from "./kafka-seeder.js";
import type { SeedOptions } from "./options.js";
import { population, type SeededPlayer } from "./population.js";
import { progressBar } from "./progress-bar.js";
import { seedRedis, type RedisShard } from "./redis-seeder.js";
import type { SeedBoard } from "./seed-board.js";
import { shardMemory, type ShardMemory } from "./shard-memory.js";

export interface SeedContext {
  options: SeedOptions;
  config: Config;
  placement: Placement;
  shards: readonly RedisShard[];
  /** The board as resolved (seed-board.ts): a defined board's definition, else the configured spec. */
  target: SeedBoard;
  /** Prints one line of the run's narrative. */
  say(line: string): void;
}

export interface PhaseFigures {
  name: string;
  records: number;
  seconds: number;
  perSec: number;
}

export interface SeedResult {
  tool: "ladder-seed";
  startedAt: string;
  options: SeedOptions;
  phases: PhaseFigures[];
  complete: boolean;
  memoryBefore: ShardMemory[];
  memoryAfter: ShardMemory[];
  redisBytesPerMember: number | undefined;
  seederPeakRssMb: number;
  extra: Record<string, unknown>;
}

/** What a path reports; main adds the memory figures. */
export type PathRun = Pick<SeedResult, "phases" | "complete" | "extra">;

const STALL_MS = 120_000; // 2 min without any record applied: give up waiting

function players(ctx: SeedContext): Iterable<SeededPlayer[]> {
  const { options, config } = ctx;
  const scores = scoreSource(ctx.target.spec, options.shape, options.untilMs);
  return population({ first: options.first, count: options.players, seed: options.seed, numSlots: config.numSlots, scores });
}

async function timed<T>(name: string, records: () => number, phases: PhaseFigures[], fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const out = await fn();
  const seconds = (performance.now() - start) / 1000;
  phases.push({ name, records: records(), seconds: Math.round(seconds * 100) / 100, perSec: Math.round(records() / seconds) });
  return out;
}

/** Members straight into the shards' sorted sets. */
export async function runRedisSeed(ctx: SeedContext): Promise<PathRun> {
  const { options, config } = ctx;
  const phases: PhaseFigures[] = [];
  const bar = progressBar("players", options.players);
  let written = 0;
  const result = await timed(
    "zadd",
    () => written,
    phases,
    () =>
      seedRedis({
        shards: ctx.shards,
        placement: ctx.placement,
        key: keyLayout(config.keyPrefix).board(ctx.target.stored),
        spec: ctx.target.spec,
        batch: options.batch,
        parallel: options.parallel,
        players: players(ctx),
        onProgress: (n) => bar.update((written = n)),
      }),
  ).finally(() => bar.finish());
  return { phases, complete: true, extra: { commands: result.commands, perShard: result.perShard } };
}

/** Records into the score topic, then (unless --no-wait) until the shard nodes applied them. */
export async function runKafkaSeed(ctx: SeedContext, client: LogClient): Promise<PathRun> {
  const { options, config } = ctx;
  // The cluster's shard nodes create the score topic (and only over empty shards): seed a running cluster.
  await ensureScoreTopic(
    client,
    { topic: config.scoreTopic, numSlots: config.numSlots, replication: config.topicReplication, minInsyncReplicas: config.topicMinInsync },
    { create: false },
  );
  const endOffsets = (): Promise<Offsets> => client.endOffsetsOnce(config.scoreTopic);
  // records name their partitions; not idempotent (a seed never retries a record), `parallel` requests in flight
  const producer = await client.producer({ maxInFlightRequests: options.parallel });
  const phases: PhaseFigures[] = [];
  try {
    const before = await endOffsets();
    const bar = progressBar("produced", options.players);
    let produced = 0;
    const result = await timed(
      "produce",
      () => produced,
      phases,
      () =>
        seedKafka({
          producer,
          topic: config.scoreTopic,
          board: options.board,
          target: ctx.target,
          batch: options.batch,
          parallel: options.parallel,
          players: players(ctx),
          onProgress: (n) => bar.update((produced = n)),
        }),
    ).finally(() => bar.finish());
    const after = await endOffsets();
    if (!options.wait) return { phases, complete: false, extra: { logBytes: result.bytes, requests: result.requests } };
    ctx.say(
      `waiting for the shard nodes to apply ${seededCount(before, after).toLocaleString("en-US")} records (the log is the truth; they apply it like any other)`,
    );
    const applyBar = progressBar("applied ", seededCount(before, after));
    let applied = 0;
    let appliedBefore: number | undefined; // applied while producing, before the wait began
    const offsetsKey = keyLayout(config.keyPrefix).offsets;
    const complete = await timed(
      "apply tail after produce",
      () => applied - (appliedBefore ?? 0),
      phases,
      () =>
        watchApplied({
          before,
          after,
          read: () =>
            readApplied(
              ctx.shards.map((s) => s.redis),
              offsetsKey,
            ),
          onProgress: (n) => {
            appliedBefore ??= n;
            applyBar.update((applied = n));
          },
          pollMs: 250,
          stallMs: STALL_MS,
          sleep: (ms) => sleep(ms),
          clock: () => performance.now(),
        }),
    ).finally(() => applyBar.finish());
    const total = phases[0]!.seconds + phases[1]!.seconds;
    phases.push({ name: "produce + apply", records: applied, seconds: Math.round(total * 100) / 100, perSec: Math.round(applied / total) });
    return { phases, complete, extra: { logBytes: result.bytes, requests: result.requests } };
  } finally {
    await producer.disconnect();
  }
}

export async function memoryOf(ctx: SeedContext): Promise<ShardMemory[]> {
  return shardMemory(ctx.shards, keyLayout(ctx.config.keyPrefix).board(ctx.target.stored));
}
