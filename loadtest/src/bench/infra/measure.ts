/**
 * One closed-loop measurement: `concurrency` workers, each sending its next request as
 * soon as the previous one is answered, without a pause from the first request to the
 * last, through three phases:
 *
 *   warm-up   at least `warmupMs`, and until every worker has had WARMUP_ANSWERS answers,
 *             so the workers no longer move in step (they all start at once) and caches
 *             are warm; nothing is recorded.
 *   window    the measured calls: those SENT in it. It stays open at least `durationMs`,
 *             and longer until `minCalls` calls were sent in it (a slow server's handful of
 *             answers is not a figure), but never past `maxDurationMs`.
 *   tail      the load goes on, unrecorded, until every call of the window is answered,
 *             so each measured call ran with `concurrency` in flight like the others (a
 *             loop that stopped sending at the end of the window would let its last calls
 *             finish on an emptying server, faster).
 *
 * Figures: n = calls sent in the window, failed ones included; latency from send to
 * answer. A call sent during the warm-up is never counted, however late it is answered.
 * ops/s = concurrency / the mean time a worker spends per measured call: each worker's
 * measured calls run back to back, from its first measured send to its last measured
 * answer (the client's own time between calls included), and these spans, summed over
 * the workers, divided by n, are that mean (Little's law for a closed loop). Unlike
 * n / window, it does not depend on where the window's edges fall among the calls: with
 * 32 calls of 8 s in flight, a window could open just after 32 sends (none counted) or
 * just before them (all counted), a difference of one whole round. n / window comes
 * along as a check, and the 95% confidence interval of the median latency (order
 * statistics: no assumption on the distribution) says how well n calls pin the median
 * down; it assumes independent calls, and the run-to-run noise of a shared machine is
 * larger than it shows.
 */
import * as grpc from "@grpc/grpc-js";
import type { LatencySummary } from "../../model/loadtest-result.js";
import { newHistogram } from "../../run/latency-recorder.js";
import { latencySummary } from "../../run/summary.js";
import type { ClosedLoopPlan } from "../plan.js";
import { machineCpu, othersCpu, startCpuMeter, type CpuProbe } from "./cpu-meter.js";
import { round2, round3 } from "../output/format.js";

/** Answers each worker gets in the warm-up, at least. */
export const WARMUP_ANSWERS = 2;

export interface Measurement {
  concurrency: number;
  /** n: calls sent in the window, every one answered. */
  calls: number;
  errors: number;
  errorsByCode: Record<string, number>;
  /** The window's length. */
  elapsedMs: number;
  /** concurrency × calls / the workers' spans summed (each: its first measured send to its last measured answer). */
  opsPerSec: number;
  /** calls / window: a check of opsPerSec. */
  windowOpsPerSec: number;
  latencyMs: LatencySummary;
  /** 95% confidence interval of the median latency, ms; absent below 6 calls. */
  p50CiMs?: [number, number];
  /** Why the window closed: its duration passed with minCalls sent, it waited for minCalls, or it hit maxDurationMs. */
  closedBy: "duration" | "min calls" | "time cap";
  warmupMs: number;
  /** Cores used by each probed process during the window. */
  cpuCores: Record<string, number>;
}

export interface MeasureDeps {
  plan: ClosedLoopPlan;
  /** Sends one request; resolves when answered, rejects on failure. */
  send(): Promise<unknown>;
  /** Processes to account CPU for; `machine` (all CPUs) and `others` (all but the bench's processes) are always added. */
  cpu?: Readonly<Record<string, CpuProbe>>;
  /** Called as the window opens (after the warm-up). */
  onMeasureStart?(): Promise<void> | void;
  /** Called as the window closes (the tail's load goes on meanwhile). */
  onMeasureEnd?(): Promise<void> | void;
  /** Clock, ms (performance.now unless a test fakes it). */
  clock?(): number;
  /** The CPU meter (cpu-meter.ts unless a test fakes it). */
  cpuMeter?: typeof startCpuMeter;
}

export async function measureClosedLoop(deps: MeasureDeps): Promise<Measurement> {
  const { plan, send, cpu = {}, onMeasureStart, onMeasureEnd, clock = () => performance.now(), cpuMeter = startCpuMeter } = deps;
  const histogram = newHistogram();
  const latencies: number[] = [];
  const errorsByCode: Record<string, number> = {};
  const answersOf = new Array<number>(plan.concurrency).fill(0);
  const sentBy = new Array<number>(plan.concurrency).fill(0); // in the window
  /** Per worker: its measured calls, its first measured send and its last measured answer. */
  const spans = Array.from({ length: plan.concurrency }, () => ({ calls: 0, firstSent: 0, lastAnswered: 0 }));
  const t0 = clock();
  let phase: "warm-up" | "window" | "tail" = "warm-up";
  let windowStart = 0;
  let windowEnd = 0;
  let sent = 0;
  let answered = 0;
  let waitedForCalls = false;
  let closedBy: Measurement["closedBy"] = "duration";
  let opening: Promise<() => Promise<Record<string, number>>> | undefined; // resolves to the CPU meter's stop
  let closing: Promise<Record<string, number>> | undefined;

  // The hooks and the CPU meter run as the window opens and closes, while the load goes on (a few ms of I/O).
  const open = (now: number) => {
    phase = "window";
    windowStart = now;
    opening = Promise.resolve(onMeasureStart?.()).then(() => cpuMeter({ ...cpu, machine: machineCpu, others: othersCpu }));
  };
  const close = (now: number, why: Measurement["closedBy"]) => {
    phase = "tail";
    windowEnd = now;
    closedBy = why;
    closing = Promise.all([opening!.then((stop) => stop()), onMeasureEnd?.()]).then(([cores]) => cores);
  };
  /** Moves the phase on at `now`; called before each send. The window closes only once every worker sent in it (else a worker held up by one long call would count for nothing). */
  const advance = (now: number) => {
    if (phase === "warm-up" && now - t0 >= plan.warmupMs && answersOf.every((a) => a >= WARMUP_ANSWERS)) open(now);
    else if (phase === "window") {
      const elapsed = now - windowStart;
      if (elapsed >= plan.maxDurationMs) close(now, "time cap");
      else if (elapsed >= plan.durationMs) {
        if (sent < plan.minCalls) waitedForCalls = true;
        else if (sentBy.every((n) => n > 0)) close(now, waitedForCalls ? "min calls" : "duration");
      }
    }
  };

  const worker = async (w: number) => {
    for (;;) {
      advance(clock());
      if (phase === "tail" && answered === sent) return;
      const counted = phase === "window";
      if (counted) {
        sent++;
        sentBy[w]!++;
      }
      const startedMs = clock();
      let code: string | undefined;
      try {
        await send();
      } catch (err) {
        code = errorCode(err);
      }
      answersOf[w]!++;
      if (!counted) continue;
      const answeredMs = clock();
      const latency = answeredMs - startedMs;
      const span = spans[w]!;
      if (span.calls++ === 0) span.firstSent = startedMs;
      span.lastAnswered = answeredMs;
      histogram.recordValue(Math.max(1, Math.round(latency * 1000)));
      latencies.push(latency);
      if (code !== undefined) errorsByCode[code] = (errorsByCode[code] ?? 0) + 1;
      answered++;
    }
  };
  await Promise.all(Array.from({ length: plan.concurrency }, (_, w) => worker(w)));
  const cpuCores = (await closing) ?? {};
  const elapsedMs = windowEnd - windowStart;
  const errors = Object.values(errorsByCode).reduce((a, b) => a + b, 0);
  const stats = latencyStats(latencies);
  const busyMs = spans.reduce((sum, s) => sum + (s.calls > 0 ? s.lastAnswered - s.firstSent : 0), 0);
  const result: Measurement = {
    concurrency: plan.concurrency,
    calls: sent,
    errors,
    errorsByCode,
    elapsedMs: round3(elapsedMs),
    opsPerSec: round2((plan.concurrency * sent * 1000) / Math.max(1e-3, busyMs)),
    windowOpsPerSec: round2((sent / elapsedMs) * 1000),
    latencyMs: latencySummary(histogram),
    ...(stats.p50Ci ? { p50CiMs: stats.p50Ci } : {}),
    closedBy,
    warmupMs: round3(windowStart - t0),
    cpuCores,
  };
  histogram.destroy();
  return result;
}

/** Mean and the 95% confidence interval of the median (order statistics j, k around n/2: no assumption on the distribution). */
export function latencyStats(latencies: readonly number[]): { mean: number; p50Ci?: [number, number] } {
  const n = latencies.length;
  if (n === 0) return { mean: 0 };
  const mean = latencies.reduce((a, b) => a + b, 0) / n;
  if (n < 6) return { mean }; // below 6 the interval is wider than the sample
  const sorted = [...latencies].sort((a, b) => a - b);
  const half = 0.98 * Math.sqrt(n); // 1.96 · √n / 2
  const j = Math.max(1, Math.floor(n / 2 - half)); // 1-based ranks
  const k = Math.min(n, Math.ceil(n / 2 + 1 + half));
  return { mean, p50Ci: [round3(sorted[j - 1]!), round3(sorted[k - 1]!)] };
}

/** A failure's code: the gRPC status name, a string code (an ioredis or Node error), or ERROR. */
export function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === "number" && grpc.status[code] !== undefined) return grpc.status[code];
  if (typeof code === "string" && code) return code;
  return "ERROR";
}
