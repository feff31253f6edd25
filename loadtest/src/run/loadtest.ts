/**
 * One loadtest run: builds the workload (Zipf players, synthetic scores, the mix), paces
 * it with the open- or closed-loop driver, records every call, runs the freshness probes,
 * prints a progress line every second, and returns the result document. The figures are
 * the calls SENT in the measured window, after the warm-up (measured-window.ts); the time
 * series shows every call, warm-up included, by when it was answered.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { BoardSpec } from "@ladder/model/board-spec";
import type { LoadtestResult } from "../model/loadtest-result.js";
import { OPERATIONS, pickOperation } from "../workload/op-mix.js";
import { activePlayers } from "../workload/player-ids.js";
import { rngFor } from "../workload/rng.js";
import { DEFAULT_SCORE_SHAPE, scoreSource } from "../workload/score-distribution.js";
import { runClosedLoop, type ClosedLoopDeps } from "./closed-loop.js";
import { statusName, type ClusterClients } from "./cluster-clients.js";
import { FreshnessProbe } from "./freshness-probe.js";
import { LatencyRecorder } from "./latency-recorder.js";
import { MeasuredWindow } from "./measured-window.js";
import { runOpenLoop } from "./open-loop.js";
import { operationRunner, scoreReader } from "./operations.js";
import type { LoadtestOptions } from "./options.js";
import { startTicker } from "./progress-ticker.js";
import { timetable } from "./rate-schedule.js";
import { buildResult } from "./results.js";
import { WriteAudit } from "./write-audit.js";

export interface LoadtestDeps {
  options: LoadtestOptions;
  spec: BoardSpec;
  clients: ClusterClients;
  /** Prints one progress line. */
  print(line: string): void;
  /** Aborted to stop sending early; the run still finishes and reports. */
  signal: AbortSignal;
  /** The run's clock, ms (performance.now unless a test fakes it). */
  clock?: () => number;
}

const TICK_MS = 1000; // progress line and time-series resolution
/** How long the audit waits for audited players to read as expected after the load (applying the last writes). */
const AUDIT_SETTLE_MS = 60_000;

export async function runLoadtest(deps: LoadtestDeps): Promise<LoadtestResult> {
  const { options, spec, clients, print, signal, clock = () => performance.now() } = deps;
  const rng = rngFor(options.seed);
  const startMs = clock();
  const window = new MeasuredWindow(startMs + options.warmupMs, startMs + options.warmupMs + options.durationMs);
  const stopped = () => signal.aborted;
  signal.addEventListener("abort", () => window.stopAt(clock()), { once: true });
  if (signal.aborted) window.stopAt(startMs);
  const counts = (sentMs: number) => window.counts(sentMs);
  const ops = new LatencyRecorder(OPERATIONS, counts);
  const lag = new LatencyRecorder(["lag"] as const, counts); // a probe counts when its write does
  const readScore = scoreReader(clients, options.board);
  const probe = new FreshnessProbe(options.lag, {
    read: readScore,
    onLag: (lagMs, sentMs) => lag.record("lag", { sentMs, latencyMs: lagMs }),
    counts,
    clock,
    sleep: (ms) => sleep(ms),
  });
  const audit = options.auditEvery > 0 ? new WriteAudit(options.auditEvery) : undefined;
  const runner = operationRunner({
    clients,
    options,
    rng,
    probe,
    clock,
    audit,
    players: activePlayers(options.players, options.zipf, options.seed),
    scores: scoreSource(spec, DEFAULT_SCORE_SHAPE, Date.now()),
    runId: `lt${options.seed}-${Date.now().toString(36)}`,
  });
  let inFlight = 0;
  // one operation of the mix, sent at `sentMs` (the open loop's intended time, the closed loop's actual send), its latency from then
  const send = async (sentMs: number) => {
    const op = pickOperation(options.mix, rng.nextDouble());
    inFlight++;
    try {
      await runner(op, sentMs);
      ops.record(op, { sentMs, latencyMs: clock() - sentMs });
    } catch (err) {
      ops.record(op, { sentMs, latencyMs: clock() - sentMs, errorCode: statusName(err) });
    } finally {
      inFlight--;
    }
  };
  const startedAt = new Date();
  const cpuStart = process.cpuUsage();
  const ticker = startTicker({ ops, lag, showLag: options.lag.everyMs > 0, inFlight: () => inFlight, print, clock, everyMs: TICK_MS });
  const warmup =
    options.warmupMs > 0
      ? setTimeout(() => print(`warm-up over: measuring calls sent in the next ${options.durationMs / 1000} s`), options.warmupMs)
      : undefined;
  try {
    const pacing = await drive(options, { send, clock, stopped, startMs });
    const elapsedMs = window.lengthMs; // rates are per second of the window; its calls were all answered by now
    await probe.drain();
    ticker.stop();
    const cpu = process.cpuUsage(cpuStart); // the load's, not the audit's
    const client = { peakRssMb: Math.round(ticker.peakRss / 2 ** 20), cpuUserSec: cpu.user / 1e6, cpuSystemSec: cpu.system / 1e6 };
    let audited: LoadtestResult["audit"];
    if (audit) {
      print("load over: auditing the acknowledged increments (reading every audited player through the router)");
      audited = await audit.check({ read: readScore, concurrency: 32, settleMs: AUDIT_SETTLE_MS, clock, sleep: (ms) => sleep(ms) });
    }
    return {
      ...buildResult({ options, startedAt, elapsedMs, pacing, ops, lag, probes: probe.stats, client }),
      ...(audited ? { audit: audited } : {}),
    };
  } finally {
    clearTimeout(warmup);
    ticker.stop();
  }
}

/**
 * Sends the load of the warm-up and the window, both timed from `d.startMs` (the run's start), one timetable or one
 * closed loop for both; resolves when every call is answered.
 */
async function drive(
  options: LoadtestOptions,
  d: Required<Pick<ClosedLoopDeps, "send" | "clock" | "stopped" | "startMs">>,
): Promise<LoadtestResult["pacing"]> {
  const { pacing } = options;
  const durationMs = options.warmupMs + options.durationMs;
  if (pacing.kind === "open") {
    const r = await runOpenLoop({ timetable: timetable(pacing.ratePerSec, durationMs), durationMs, maxInFlight: pacing.maxInFlight, ...d });
    return { kind: "open", ...r };
  }
  const r = await runClosedLoop({ concurrency: pacing.concurrency, durationMs, ...d });
  return { kind: "closed", sent: r.sent, unsent: 0 };
}
