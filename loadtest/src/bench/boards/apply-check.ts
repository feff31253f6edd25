/**
 * Checks the pre-filled keys against the apply path: a sample of the players' records, encoded
 * as ingest encodes them (bench-boards.ts), go through prepareEvent and ShardWriter.apply into a
 * namespace of their own on the same Redis (key prefix CHECK_PREFIX); then every pre-filled key
 * must hold, for each sampled player, the score the apply path stored, and expire when the apply
 * path made its twin expire. The apply path must also have made no key the pre-fill lacks.
 * Differences are reported, not mended: they say the pre-fill (board-state.ts, from the essay of
 * model/src/windows.ts) and the apply script disagree. The namespace is deleted afterwards.
 */
import type { Redis } from "ioredis";
import type { BoardSpec, BoardSpecs } from "@ladder/model/board-spec";
import type { Period } from "@ladder/model/periods";
import { slotOf } from "@ladder/model/placement";
import { ShardWriter } from "@ladder/store/writer";
import { playerId } from "../../workload/player-ids.js";
import { BENCH_SLOTS } from "../infra/bench-board.js";
import { applyChunk } from "./apply-cost.js";
import { BLOCK, blockScores } from "./daily-players.js";
import type { DayScore } from "./board-state.js";

export const CHECK_PREFIX = "bench-check:";

export interface CheckResult {
  what: string;
  players: number;
  keys: number;
  /** (key, player) pairs compared. */
  compared: number;
  /** Up to 20 of them, as text. */
  differences: string[];
  differing: number;
  /** Keys the apply path made that the pre-fill does not hold. */
  unexpectedKeys: string[];
}

/** A key compared: its name under the bench's prefix, and its stored board name (the same under CHECK_PREFIX). */
export interface ComparedKey {
  label: string;
  benchKey: string;
  checkKey: string;
}

/** The scores of the sampled players on each day, as the pre-fill drew them. */
export function sampleScores(seed: number, sample: readonly number[], spec: BoardSpec, days: readonly Period[]): Map<number, DayScore[]> {
  const byBlock = new Map<number, DayScore[][]>();
  const out = new Map<number, DayScore[]>();
  for (const i of sample) {
    const block = Math.floor(i / BLOCK);
    let scores = byBlock.get(block);
    if (!scores) byBlock.set(block, (scores = blockScores(seed, block, BLOCK, spec, days)));
    out.set(i, scores[i % BLOCK]!);
  }
  return out;
}

/**
 * Applies `records` (in order; each with its player) under CHECK_PREFIX in chunks of `chunk` per
 * partition, compares `keys` for the players, and deletes the namespace. `allowedKeys`: every key
 * the apply path may make (stored names under CHECK_PREFIX).
 */
export async function checkAgainstApply(o: {
  what: string;
  redis: Redis;
  boards: BoardSpecs;
  chunk: number;
  dedupWindowMs: number;
  records: ReadonlyArray<{ player: string; value: Buffer }>;
  players: readonly string[];
  keys: readonly ComparedKey[];
  allowedKeys: ReadonlySet<string>;
}): Promise<CheckResult> {
  const writer = new ShardWriter({
    shardId: "check",
    stamp: "bench-check",
    builtFrom: "bench-check",
    redis: o.redis,
    keyPrefix: CHECK_PREFIX,
    dedupWindowMs: o.dedupWindowMs,
  });
  try {
    const byPartition = new Map<number, Buffer[]>();
    for (const r of o.records) {
      const p = slotOf(r.player, BENCH_SLOTS);
      byPartition.set(p, [...(byPartition.get(p) ?? []), r.value]);
    }
    for (const [partition, values] of byPartition) {
      for (let i = 0; i < values.length; i += o.chunk)
        await applyChunk(writer, o.boards, { partition, firstOffset: BigInt(i), items: values.slice(i, i + o.chunk) });
    }
    const made = await scanKeys(o.redis, `${CHECK_PREFIX}board:*`);
    const unexpectedKeys = made.filter((k) => !o.allowedKeys.has(k));
    const differences: string[] = [];
    let differing = 0;
    for (const k of o.keys) {
      const pipe = o.redis.pipeline();
      for (const id of o.players) pipe.zscore(k.benchKey, id).zscore(k.checkKey, id);
      pipe.pexpiretime(k.benchKey).pexpiretime(k.checkKey);
      const replies = ((await pipe.exec()) ?? []).map(([err, v]) => (err ? `error: ${err.message}` : v));
      o.players.forEach((id, j) => {
        const [filled, applied] = [replies[2 * j], replies[2 * j + 1]];
        if (filled === applied) return;
        differing++;
        if (differences.length < 20)
          differences.push(`${k.label}, ${id}: pre-filled ${filled ?? "no entry"}, apply path ${applied ?? "no entry"}`);
      });
      const [filledAt, appliedAt] = replies.slice(-2);
      if (filledAt !== appliedAt) {
        differing++;
        differences.push(`${k.label}: pre-filled key expires at ${filledAt}, the apply path's at ${appliedAt}`);
      }
    }
    return {
      what: o.what,
      players: o.players.length,
      keys: o.keys.length,
      compared: o.keys.length * o.players.length,
      differences,
      differing,
      unexpectedKeys,
    };
  } finally {
    const mine = await scanKeys(o.redis, `${CHECK_PREFIX}*`);
    for (let i = 0; i < mine.length; i += 1000) await o.redis.unlink(...mine.slice(i, i + 1000));
  }
}

async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, page] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 10_000);
    cursor = next;
    keys.push(...page);
  } while (cursor !== "0");
  return keys;
}

/** Distinct random player indexes below `players` (at most `count`), from `rng`. */
export function samplePlayers(players: number, count: number, nextInt: (n: number) => number): number[] {
  const picked = new Set<number>();
  while (picked.size < Math.min(count, players)) picked.add(nextInt(players));
  return [...picked].sort((a, b) => a - b);
}

export const idsOf = (indexes: readonly number[]) => indexes.map(playerId);
