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
import { appliedCounter, readApplied, seededCount, watchApplied, type Offsets } from "./apply-watch.js";
import { seedKafka } from "./kafka-seeder.js";
import type { SeedOptions } from "./options.js";
import { population, type SeededPlayer } from "./population.js";
import { progressBar, type ProgressBar } from "./progress-bar.js";
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

export type PhaseFigures = ReturnType<typeof phase>;

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

/** A phase's figures: its rate, and its seconds to 0.01 s. */
function phase(name: string, records: number, seconds: number) {
  return { name, records, seconds: Math.round(seconds * 100) / 100, perSec: Math.round(records / seconds) };
}

/**
 * Runs `work` as the phase `name`, `bar` showing its progress (`work` reports it), then adds the phase's figures to
 * `phases`: the bar's last count, less `before()` (what was done before the phase began), over its time.
 */
async function timed<T>(
  phases: PhaseFigures[],
  name: string,
  bar: ProgressBar,
  work: (onProgress: (done: number) => void) => Promise<T>,
  before = () => 0,
): Promise<T> {
  const start = performance.now();
  let done = 0;
  try {
    const out = await work((n) => bar.update((done = n)));
    phases.push(phase(name, done - before(), (performance.now() - start) / 1000));
    return out;
  } finally {
    bar.finish();
  }
}

/** Members straight into the shards' sorted sets. */
export async function runRedisSeed(ctx: SeedContext): Promise<PathRun> {
  const { options, config, shards, placement, target } = ctx;
  const phases: PhaseFigures[] = [];
  const key = keyLayout(config.keyPrefix).board(target.stored);
  const { batch, parallel } = options;
  const result = await timed(phases, "zadd", progressBar("players", options.players), (onProgress) =>
    seedRedis({ shards, placement, key, spec: target.spec, batch, parallel, players: players(ctx), onProgress }),
  );
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
    const { board, batch, parallel } = options;
    const offsetsKey = keyLayout(config.keyPrefix).offsets;
    const redis = ctx.shards.map((s) => s.redis);
    const pace =
      options.maxBehind > 0
        ? { maxBehind: options.maxBehind, applied: appliedCounter(redis, offsetsKey, before), pollMs: 50, sleep }
        : undefined;
    const result = await timed(phases, "produce", progressBar("produced", options.players), (onProgress) =>
      seedKafka({
        producer,
        topic: config.scoreTopic,
        board,
        target: ctx.target,
        batch,
        parallel,
        players: players(ctx),
        onProgress,
        pace,
      }),
    );
    const after = await endOffsets();
    const extra = {
      logBytes: result.bytes,
      requests: result.requests,
      maxBehind: options.maxBehind,
      pacedRequests: result.pauses,
      pacedSeconds: result.pausedMs / 1000,
    };
    if (!options.wait) return { phases, complete: false, extra };
    ctx.say(
      `waiting for the shard nodes to apply ${seededCount(before, after).toLocaleString("en-US")} records (the log is the truth; they apply it like any other)`,
    );
    let applied = 0;
    let appliedBefore: number | undefined; // applied while producing, before the wait began
    const complete = await timed(
      phases,
      "apply tail after produce",
      progressBar("applied ", seededCount(before, after)),
      (onProgress) =>
        watchApplied({
          before,
          after,
          read: () => readApplied(redis, offsetsKey),
          onProgress: (n) => {
            appliedBefore ??= n;
            onProgress((applied = n));
          },
          pollMs: 250,
          stallMs: STALL_MS,
          sleep: (ms) => sleep(ms),
          clock: () => performance.now(),
        }),
      () => appliedBefore ?? 0,
    );
    phases.push(phase("produce + apply", applied, phases[0]!.seconds + phases[1]!.seconds));
    return { phases, complete, extra };
  } finally {
    await producer.disconnect();
  }
}

export async function memoryOf(ctx: SeedContext): Promise<ShardMemory[]> {
  return shardMemory(ctx.shards, keyLayout(ctx.config.keyPrefix).board(ctx.target.stored));
}
