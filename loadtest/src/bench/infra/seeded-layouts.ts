/**
 * Seeded boards for the read benchmark: per shard count, fresh redis-servers holding
 * the bench's players where placement puts them, written with the seeder's Redis path (variadic
 * ZADD, no Kafka), grown in steps (1M, then 9M more) so every size is measured on the same servers.
 * After each step used_memory is read as seeded and once more after any incremental rehash is
 * finished (finish-rehash.ts). The one-shard layout is the read benchmark's floor and its memory
 * table's fresh server.
 */
import type { Redis } from "ioredis";
import { buildPlacement, type Placement } from "@ladder/model/placement";
import { keyLayout } from "@ladder/store";
import { progressBar } from "../../seed/progress-bar.js";
import { seedRedis } from "../../seed/redis-seeder.js";
import { usedMemory } from "../../seed/shard-memory.js";
import type { RedisServer } from "@ladder/deploy/redis-server";
import { BENCH_BOARD, BENCH_KEY_PREFIX, BENCH_SLOTS, BENCH_SPEC, benchPlayers } from "./bench-board.js";
import { finishRehash } from "./finish-rehash.js";
import { benchRedis, startRedisFleet, type FixtureDeps, type RedisFleet } from "./infra-fixtures.js";
import { round2 } from "../output/format.js";

export interface Layout {
  shards: number;
  shardIds: string[];
  servers: RedisServer[];
  /** The bench's own connection to each shard's Redis, in shardIds order. */
  redis: Redis[];
  placement: Placement;
  /** Players 0 .. seeded-1 are on the board. */
  seeded: number;
  /** Summed used_memory of the empty servers. */
  emptyUsedMemory: number;
}

export interface MemoryReading {
  shards: number;
  players: number;
  /** used_memory summed over the layout's servers (rehash finished), and the same before any player. */
  usedMemoryBytes: number;
  emptyUsedMemoryBytes: number;
  usedMemoryRssBytes: number;
  /** (usedMemoryBytes - emptyUsedMemoryBytes) / players. */
  bytesPerPlayer: number;
  /** The same right after seeding, while a hash table may still be mid-rehash. */
  asSeededUsedMemoryBytes: number;
  asSeededBytesPerPlayer: number;
  /** Lookups made to finish the rehash, summed over the servers. */
  rehashLookups: number;
}

export interface SeedStep {
  shards: number;
  fromPlayers: number;
  toPlayers: number;
  seconds: number;
  perSec: number;
}

export const BOARD_KEY = keyLayout(BENCH_KEY_PREFIX).board(BENCH_BOARD);

export class SeededLayouts {
  readonly readings: MemoryReading[] = [];
  readonly steps: SeedStep[] = [];
  private readonly live = new Map<number, { layout: Layout; fleet: RedisFleet }>();

  constructor(private readonly deps: FixtureDeps & { seed: number }) {}

  /** The layout of `shards` shards, started empty if it is not running. */
  async layout(shards: number): Promise<Layout> {
    const running = this.live.get(shards);
    if (running) return running.layout;
    const fleet = await startRedisFleet(this.deps, `layout${shards}`, shards);
    const redis = fleet.servers.map((s) => benchRedis(s.url));
    const shardIds = fleet.servers.map((_, i) => `shard-${i}`);
    const layout: Layout = {
      shards,
      shardIds,
      servers: fleet.servers,
      redis,
      placement: buildPlacement(shardIds, BENCH_SLOTS),
      seeded: 0,
      emptyUsedMemory: 0,
    };
    layout.emptyUsedMemory = (await infoMemory(redis)).used;
    this.live.set(shards, { layout, fleet });
    return layout;
  }

  /** Seeds players layout.seeded .. players-1, then reads the memory figures. */
  async growTo(layout: Layout, players: number): Promise<MemoryReading> {
    if (players > layout.seeded) {
      await this.seed(layout, players);
      this.readings.push(await readMemory(layout, players));
    }
    return this.reading(layout.shards, players)!;
  }

  private async seed(layout: Layout, players: number): Promise<void> {
    const from = layout.seeded;
    const bar = progressBar(`seeding ${layout.shards} shard(s)`, players - from);
    const start = performance.now();
    await seedRedis({
      shards: layout.shardIds.map((id, i) => ({ id, redis: layout.redis[i]! })),
      placement: layout.placement,
      key: BOARD_KEY,
      spec: BENCH_SPEC,
      batch: 1000,
      parallel: 8,
      players: benchPlayers(this.deps.seed, from, players - from),
      onProgress: (n) => bar.update(n),
    }).finally(() => bar.finish());
    const seconds = (performance.now() - start) / 1000;
    layout.seeded = players;
    this.steps.push({
      shards: layout.shards,
      fromPlayers: from,
      toPlayers: players,
      seconds: round2(seconds),
      perSec: Math.round((players - from) / seconds),
    });
  }

  /** The memory figures taken when the layout of `shards` reached `players`. */
  reading(shards: number, players: number): MemoryReading | undefined {
    return this.readings.find((r) => r.shards === shards && r.players === players);
  }

  /** Stops the layout's servers (its figures stay). */
  async stop(shards: number): Promise<void> {
    const running = this.live.get(shards);
    if (!running) return;
    this.live.delete(shards);
    running.layout.redis.forEach((r) => r.disconnect());
    await running.fleet.stop();
  }

  async stopAll(): Promise<void> {
    for (const shards of [...this.live.keys()]) await this.stop(shards);
  }
}

/** used_memory as seeded, then once any rehash of the board's hash table is finished. */
async function readMemory(layout: Layout, players: number): Promise<MemoryReading> {
  const seeded = await infoMemory(layout.redis);
  const lookups = await Promise.all(layout.redis.map((r) => finishRehash(r, BOARD_KEY)));
  const steady = await infoMemory(layout.redis);
  const perPlayer = (used: number) => round2((used - layout.emptyUsedMemory) / players);
  return {
    shards: layout.shards,
    players,
    usedMemoryBytes: steady.used,
    emptyUsedMemoryBytes: layout.emptyUsedMemory,
    usedMemoryRssBytes: steady.rss,
    bytesPerPlayer: perPlayer(steady.used),
    asSeededUsedMemoryBytes: seeded.used,
    asSeededBytesPerPlayer: perPlayer(seeded.used),
    rehashLookups: lookups.reduce((a, b) => a + b, 0),
  };
}

async function infoMemory(redis: readonly Redis[]): Promise<{ used: number; rss: number }> {
  const infos = await Promise.all(redis.map((r) => r.info("memory")));
  const rss = (info: string) => Number(/^used_memory_rss:(\d+)/m.exec(info)?.[1] ?? NaN);
  return { used: infos.reduce((a, i) => a + usedMemory(i), 0), rss: infos.reduce((a, i) => a + rss(i), 0) };
}
