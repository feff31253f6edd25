/**
 * Reads of a period and of its windows through the router's shard reader (store/src/reader.ts:
 * the same read scripts, heartbeat check and batching the router uses), on one shard: with one
 * shard the router's answer is that shard's (queries.ts: top = the shard's top 10; rank = the
 * owner's standing with radius 0; around = its standing with radius 5), so what is timed here
 * is what the router waits for, without gRPC and without the router's merge and decoding.
 *
 *   first   the first call of each question on each key, alone, right after the keys were
 *           filled: nothing had read them (the scripts were loaded beforehand, on an empty key)
 *   alone   then `alone` more calls one after another: the same question at rest
 *   loop    a closed loop of `concurrency` calls in flight (infra/measure.ts); the reader sends
 *           reads that arrive in one turn of the event loop as one read-batch.lua call, as the
 *           router's does
 */
import type { Redis } from "ioredis";
import type { LatencySummary } from "../../model/loadtest-result.js";
import type { ShardReader } from "@ladder/store";
import { latencyStats, measureClosedLoop, type Measurement } from "../infra/measure.js";
import { redisCpu, selfCpu } from "../infra/cpu-meter.js";
import type { ClosedLoopPlan } from "../plan.js";
import { round3 } from "../output/format.js";

export const READ_QUESTIONS = ["top", "rank", "around"] as const;
export type ReadQuestion = (typeof READ_QUESTIONS)[number];

export interface ReadsPlan extends ClosedLoopPlan {
  alone: number;
  topLimit: number;
  aroundRadius: number;
}

export interface KeyRead {
  question: ReadQuestion;
  /** The first call on the key, ms. */
  firstMs: number;
  alone?: { calls: number; latencyMs: Pick<LatencySummary, "mean" | "p50" | "p99" | "max"> };
  loop?: Measurement;
}

/** One call of `q` on the board stored as `stored`; rejects when the player has no entry. */
export function readCall(
  reader: ShardReader,
  stored: string,
  q: ReadQuestion,
  plan: Pick<ReadsPlan, "topLimit" | "aroundRadius">,
  player: () => string,
): () => Promise<unknown> {
  if (q === "top") return () => reader.top(stored, plan.topLimit);
  const radius = q === "rank" ? 0 : plan.aroundRadius;
  return async () => {
    const id = player();
    const s = await reader.standing(stored, id, radius);
    if (s === undefined) throw Object.assign(new Error(`${id} has no entry in ${stored}`), { code: "NOT_FOUND" });
    return s;
  };
}

/** Loads the read scripts on the reader's connection with a read of an empty board; returns how long each first call took (ms). */
export async function loadReadScripts(
  reader: ShardReader,
  plan: Pick<ReadsPlan, "topLimit" | "aroundRadius">,
): Promise<Record<"top" | "standing", number>> {
  return {
    top: await timeOne(() => reader.top("bench-no-such-board", plan.topLimit)),
    standing: await timeOne(() => reader.standing("bench-no-such-board", "nobody", plan.aroundRadius)),
  };
}

/** The first call of each question on `stored`, one after another. */
export async function firstReads(reader: ShardReader, stored: string, plan: ReadsPlan, player: () => string): Promise<KeyRead[]> {
  const out: KeyRead[] = [];
  for (const question of READ_QUESTIONS) out.push({ question, firstMs: await timeOne(readCall(reader, stored, question, plan, player)) });
  return out;
}

/** The steady state of `read`'s question on `stored`: calls alone, then the closed loop. */
export async function steadyReads(
  reader: ShardReader,
  redis: Redis,
  stored: string,
  read: KeyRead,
  plan: ReadsPlan,
  player: () => string,
): Promise<void> {
  const call = readCall(reader, stored, read.question, plan, player);
  const latencies: number[] = [];
  for (let i = 0; i < plan.alone; i++) latencies.push(await timeOne(call));
  read.alone = { calls: latencies.length, latencyMs: aloneSummary(latencies) };
  read.loop = await measureClosedLoop({ plan, send: call, cpu: { redis: redisCpu(redis), client: selfCpu } });
}

/** Mean, median, 99th percentile (nearest rank) and max of a few hundred latencies, ms. */
export function aloneSummary(latencies: readonly number[]): Pick<LatencySummary, "mean" | "p50" | "p99" | "max"> {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
  return { mean: round3(latencyStats(sorted).mean), p50: round3(at(0.5)), p99: round3(at(0.99)), max: round3(sorted.at(-1) ?? NaN) };
}

async function timeOne(call: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await call();
  return round3(performance.now() - t0);
}
