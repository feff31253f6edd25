// The boards benchmark pre-fills its keys with ZADD of entries it works out itself (board-state.ts)
// instead of applying millions of windowed records. Its figures mean something only if the
// pre-fill is what the apply path leaves: here, on a real Redis (test/global-setup.ts), the same
// players' 7 daily records go through prepareEvent and ShardWriter.apply under another prefix,
// and every key must match the pre-filled one entry for entry, with the same expiry, and the
// apply path must make no key the pre-fill lacks. Likewise the plain board and its also_boards,
// copies of day 7 in the benchmark, against one record of day 7 on each.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, inject, it } from "vitest";
import { loadConfig } from "@ladder/platform/config";
import { slotOf } from "@ladder/model/placement";
import { ShardWriter } from "@ladder/store/writer";
import { playerId } from "../../workload/player-ids.js";
import { BENCH_SLOTS, BENCH_SPECS } from "../infra/bench-board.js";
import { applyChunk } from "./apply-cost.js";
import { benchBoards, benchDays, boardKey, DAYS, encodeRecord, type BenchBoard } from "./bench-boards.js";
import { stateKeys } from "./board-state.js";
import { playerBlocks } from "./daily-players.js";
import { copyKey, fillKeys } from "./prefill.js";

const PLAYERS = 1500; // two generator blocks, the second partial
const SEED = 7;
const NS = `prefill-${randomBytes(4).toString("hex")}:`; // a namespace of this run's own on the shared Redis
const redis = new Redis(inject("redisUrls")[0]!);
afterAll(async () => {
  const mine = await redis.keys(`${NS}*`);
  if (mine.length) await redis.unlink(...mine);
  await redis.quit();
});

/** Applies `records` (each with its player) under `prefix`, in chunks of the apply batch per partition, as a shard node does. */
async function applyRecords(prefix: string, records: ReadonlyArray<{ player: string; value: Buffer }>): Promise<void> {
  const config = loadConfig({});
  const writer = new ShardWriter({
    shardId: "check",
    stamp: "check",
    builtFrom: "check",
    redis,
    keyPrefix: prefix,
    dedupWindowMs: config.dedupWindowMs,
  });
  const byPartition = new Map<number, Buffer[]>();
  for (const r of records)
    byPartition.set(slotOf(r.player, BENCH_SLOTS), [...(byPartition.get(slotOf(r.player, BENCH_SLOTS)) ?? []), r.value]);
  for (const [partition, values] of byPartition)
    for (let i = 0; i < values.length; i += config.applyBatch)
      await applyChunk(writer, BENCH_SPECS, { partition, firstOffset: BigInt(i), items: values.slice(i, i + config.applyBatch) });
}

/**
 * Every board key under `prefix`, without it, with its members and scores and its expiry; not the
 * shard's own sets under "board:~" (records per player, hides, deletions: store/src/keys.ts), which
 * the benchmark's reads never touch.
 */
async function boardState(prefix: string): Promise<Record<string, { entries: string[]; expireAtMs: number }>> {
  const keys = (await redis.keys(`${prefix}board:*`)).filter((k) => !k.startsWith(`${prefix}board:~`)).sort();
  const out: Record<string, { entries: string[]; expireAtMs: number }> = {};
  for (const k of keys)
    out[k.slice(prefix.length)] = { entries: await redis.zrange(k, "0", "-1", "WITHSCORES"), expireAtMs: await redis.pexpiretime(k) };
  return out;
}

describe("bench > boards > pre-fill", () => {
  const nowMs = Date.now();
  const boards = benchBoards(nowMs);
  const spec = boards.windowed.spec;
  const days = benchDays(spec, nowMs, 6);
  const scores = [...playerBlocks(SEED, 0, PLAYERS, spec, days.slice(0, DAYS))].flatMap((b) => b.scores);
  const record = (main: BenchBoard, also: readonly BenchBoard[], i: number, day: number) => {
    const s = scores[i]![day]!;
    return {
      player: playerId(i),
      value: encodeRecord(main, also, { playerId: playerId(i), value: s.points, timestampMs: s.reachedAtMs }, nowMs),
    };
  };

  it("holds what the apply path leaves of 7 daily records on a board with two windows", async () => {
    const keys = stateKeys(spec, days, DAYS);
    const targets = keys.map((key) => ({ key, redisKey: boardKey(`${NS}fill:`, boards.windowed, key.period.id, key.window?.name ?? "") }));
    await fillKeys({ redis, spec, seed: SEED, players: PLAYERS, days: days.slice(0, DAYS), targets, label: "pre-fill" });
    await applyRecords(
      `${NS}apply:`,
      Array.from({ length: DAYS }, (_, d) => scores.map((_, i) => record(boards.windowed, [], i, d))).flat(),
    );
    const filled = await boardState(`${NS}fill:`);
    expect(Object.keys(filled)).toHaveLength(keys.length);
    expect(filled).toEqual(await boardState(`${NS}apply:`));
  });

  it("holds what the apply path leaves of day 7's record on the plain board and 8 also_boards", async () => {
    const d7 = days[DAYS - 1]!;
    const key = (b: BenchBoard) => ({ redisKey: boardKey(`${NS}copy:`, b, d7.id), expireAtMs: d7.expireAtMs });
    const day7 = stateKeys(spec, days, DAYS).find((k) => k.day === DAYS - 1 && !k.window)!;
    await fillKeys({
      redis,
      spec,
      seed: SEED,
      players: PLAYERS,
      days: days.slice(0, DAYS),
      targets: [{ key: day7, ...key(boards.plain) }],
      label: "pre-fill",
    });
    await redis.pexpireat(key(boards.plain).redisKey, d7.expireAtMs); // the benchmark renames or copies day 7 and gives it a plain board's expiry
    await copyKey(redis, key(boards.plain).redisKey, boards.also.map(key));
    await applyRecords(
      `${NS}also:`,
      scores.map((_, i) => record(boards.plain, boards.also, i, DAYS - 1)),
    );
    const copied = await boardState(`${NS}copy:`);
    expect(Object.keys(copied)).toHaveLength(1 + boards.also.length);
    expect(copied).toEqual(await boardState(`${NS}also:`));
  });
});
