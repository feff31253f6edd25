/**
 * Reads of a period and of its windows through the router's shard reader (store/src/reader.ts:
 * the same read scripts, heartbeat check and batching the router uses), on one shard: with one
 * shard the router's answer is that shard's (queries.ts: top = the shard's top 10; rank = the
 * owner's standing with radius 0; around = its standing with radius 5), so what is timed here
 * is what the router waits for, without gRPC and without the router's merge and decoding: a
 * closed loop of `concurrency` calls in flight (infra/measure.ts), in which the reader sends reads
 * that arrive in one turn of the event loop as one read-batch.lua call, as the router's does.
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
  topLimit: number;
  aroundRadius: number;
}

export interface KeyRead {
  question: ReadQuestion;
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

/** The closed loop of `read`'s question on `stored`. */
export async function steadyReads(
  reader: ShardReader,
  redis: Redis,
  stored: string,
  read: KeyRead,
  plan: ReadsPlan,
  player: () => string,
): Promise<void> {
  const call = readCall(reader, stored, read.question, plan, player);
  read.loop = await measureClosedLoop({ plan, send: call, cpu: { redis: redisCpu(redis), client: selfCpu } });
}

/** Mean, median, 99th percentile (nearest rank) and max of a few hundred latencies, ms. */
export function aloneSummary(latencies: readonly number[]): Pick<LatencySummary, "mean" | "p50" | "p99" | "max"> {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
  return { mean: round3(latencyStats(sorted).mean), p50: round3(at(0.5)), p99: round3(at(0.99)), max: round3(sorted.at(-1) ?? NaN) };
}
