/**
 * One closed-loop measurement: `concurrency` workers each send the next request as soon
 * as the previous one is answered (run/closed-loop.ts), first for the warm-up (nothing
 * recorded), then for the measured duration. Every answered call of the measured period
 * is in the figures, failed ones included; calls still in flight when the duration ends
 * are awaited and counted, and the elapsed time runs to the last answer. Throughput is
 * calls / elapsed: the most this client, at this concurrency, got from the server.
 */
import * as grpc from "@grpc/grpc-js";
import type { LatencySummary } from "../../model/loadtest-result.js";
import { runClosedLoop } from "../../run/closed-loop.js";
import { newHistogram } from "../../run/latency-recorder.js";
import { latencySummary } from "../../run/summary.js";
import type { ClosedLoopPlan } from "../plan.js";
import { machineCpu, startCpuMeter, type CpuProbe } from "./cpu-meter.js";

export interface Measurement {
  concurrency: number;
  calls: number;
  errors: number;
  errorsByCode: Record<string, number>;
  elapsedMs: number;
  opsPerSec: number;
  latencyMs: LatencySummary;
  /** Cores used by each probed process during the measured period. */
  cpuCores: Record<string, number>;
}

export interface MeasureDeps {
  plan: ClosedLoopPlan;
  /** Sends one request; resolves when answered, rejects on failure. */
  send(): Promise<unknown>;
  /** Processes to account CPU for; `machine` (all CPUs) is always added. */
  cpu?: Readonly<Record<string, CpuProbe>>;
  /** Called as the measured period starts (after the warm-up). */
  onMeasureStart?(): Promise<void> | void;
}

export async function measureClosedLoop({ plan, send, cpu = {}, onMeasureStart }: MeasureDeps): Promise<Measurement> {
  const clock = () => performance.now();
  const never = () => false;
  if (plan.warmupMs > 0) await runClosedLoop({ concurrency: plan.concurrency, durationMs: plan.warmupMs, clock, stopped: never, send: () => send().then(() => undefined, () => undefined) });
  const histogram = newHistogram();
  const errorsByCode: Record<string, number> = {};
  let calls = 0;
  await onMeasureStart?.();
  const stopCpu = await startCpuMeter({ ...cpu, machine: machineCpu });
  const start = clock();
  await runClosedLoop({
    concurrency: plan.concurrency, durationMs: plan.durationMs, clock, stopped: never,
    send: async (startedMs) => {
      try {
        await send();
      } catch (err) {
        const code = errorCode(err);
        errorsByCode[code] = (errorsByCode[code] ?? 0) + 1;
      }
      histogram.recordValue(Math.max(1, Math.round((clock() - startedMs) * 1000)));
      calls++;
    },
  });
  const elapsedMs = clock() - start;
  const cpuCores = await stopCpu();
  const errors = Object.values(errorsByCode).reduce((a, b) => a + b, 0);
  const result = { concurrency: plan.concurrency, calls, errors, errorsByCode, elapsedMs: Math.round(elapsedMs), opsPerSec: Math.round((calls / elapsedMs) * 100_000) / 100, latencyMs: latencySummary(histogram), cpuCores };
  histogram.destroy();
  return result;
}

/** A failure's code: the gRPC status name, a driver's code (PostgreSQL SQLSTATE...), or ERROR. */
export function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === "number" && grpc.status[code] !== undefined) return grpc.status[code];
  if (typeof code === "string" && code) return code;
  return "ERROR";
}
