/**
 * One loadtest run: builds the workload (Zipf players, synthetic scores, the mix), paces
 * it with the open- or closed-loop driver, records every call, runs the freshness probes,
 * prints a progress line every second, and returns the result document.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { BoardSpec } from "@ladder/common/board-spec";
import type { LoadtestResult } from "../model/loadtest-result.js";
import { OPERATIONS, pickOperation } from "../workload/op-mix.js";
import { activePlayers } from "../workload/player-ids.js";
import { rngFor, type Rng } from "../workload/rng.js";
import { DEFAULT_SCORE_SHAPE, scoreSource } from "../workload/score-distribution.js";
import { runClosedLoop } from "./closed-loop.js";
import { statusName, type ClusterClients } from "./cluster-clients.js";
import { FreshnessProbe } from "./freshness-probe.js";
import { LatencyRecorder } from "./latency-recorder.js";
import { runOpenLoop } from "./open-loop.js";
import { operationRunner, scoreReader, type OperationRunner } from "./operations.js";
import type { LoadtestOptions } from "./options.js";
import { startTicker } from "./progress-ticker.js";
import { timetable } from "./rate-schedule.js";
import { buildResult } from "./results.js";

export interface LoadtestDeps {
  options: LoadtestOptions;
  spec: BoardSpec;
  clients: ClusterClients;
  /** Prints one progress line. */
  print(line: string): void;
  /** Aborted to stop sending early; the run still finishes and reports. */
  signal: AbortSignal;
}

const TICK_MS = 1000; // progress line and time-series resolution
const clock = () => performance.now();

export async function runLoadtest({ options, spec, clients, print, signal }: LoadtestDeps): Promise<LoadtestResult> {
  const rng = rngFor(options.seed);
  const ops = new LatencyRecorder(OPERATIONS, options.warmupMs === 0);
  const lag = new LatencyRecorder(["lag"] as const, options.warmupMs === 0);
  const probe = new FreshnessProbe(options.lag, { read: scoreReader(clients, options.board), onLag: (ms) => lag.record("lag", ms), clock, sleep: (ms) => sleep(ms) });
  const runner = operationRunner({
    clients, options, rng, probe, clock,
    players: activePlayers(options.players, options.zipf, options.seed),
    scores: scoreSource(spec, DEFAULT_SCORE_SHAPE, Date.now()),
    runId: `lt${options.seed}-${Date.now().toString(36)}`,
  });
  const sender = recordingSender(options, runner, ops, rng);
  const startedAt = new Date();
  let measureStart = clock();
  const cpuStart = process.cpuUsage();
  const ticker = startTicker({ ops, lag, showLag: options.lag.everyMs > 0, inFlight: sender.inFlight, print, clock, everyMs: TICK_MS });
  const warmup = setTimeout(() => {
    measureStart = clock();
    ops.startMeasuring();
    lag.startMeasuring();
    print(`warm-up over: measuring for ${options.durationMs / 1000} s`);
  }, options.warmupMs);
  try {
    const pacing = await drive(options, sender.send, () => signal.aborted);
    const elapsedMs = clock() - measureStart; // until the last answer; the probes' tail is not counted
    await probe.drain();
    ticker.stop();
    const cpu = process.cpuUsage(cpuStart);
    const client = { peakRssMb: Math.round(ticker.peakRss / 2 ** 20), cpuUserSec: cpu.user / 1e6, cpuSystemSec: cpu.system / 1e6 };
    return buildResult({ options, startedAt, elapsedMs, pacing, ops, lag, probes: probe.stats, client });
  } finally {
    clearTimeout(warmup);
    ticker.stop();
  }
}

/** Sends one operation of the mix and records its latency from `fromMs` and its outcome. */
function recordingSender(options: LoadtestOptions, runner: OperationRunner, ops: LatencyRecorder<(typeof OPERATIONS)[number]>, rng: Rng) {
  let inFlight = 0;
  const send = async (fromMs: number) => {
    const op = pickOperation(options.mix, rng.nextDouble());
    inFlight++;
    try {
      await runner(op);
      ops.record(op, clock() - fromMs);
    } catch (err) {
      ops.record(op, clock() - fromMs, statusName(err));
    } finally {
      inFlight--;
    }
  };
  return { send, inFlight: () => inFlight };
}

async function drive(options: LoadtestOptions, send: (fromMs: number) => Promise<void>, stopped: () => boolean): Promise<LoadtestResult["pacing"]> {
  const { pacing } = options;
  const durationMs = options.warmupMs + options.durationMs;
  if (pacing.kind === "open") {
    const r = await runOpenLoop({ timetable: timetable(pacing.ratePerSec, durationMs), durationMs, maxInFlight: pacing.maxInFlight, send, clock, stopped });
    return { kind: "open", ...r };
  }
  const r = await runClosedLoop({ concurrency: pacing.concurrency, durationMs, send, clock, stopped });
  return { kind: "closed", sent: r.sent, unsent: 0 };
}
