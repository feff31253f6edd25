/**
 * One write step of the push bench: the write driver's open loop at one rate, with readings of
 * every process and counter at the window's edges, then the wait until the shards applied every
 * acknowledged update (the drain), until every probe was seen (or expired), and until the streams
 * went quiet.
 */
import type { Redis } from "ioredis";
import { keyLayout } from "@ladder/store";
import { readApplied, untilApplied } from "../../seed/apply-watch.js";
import { BENCH_KEY_PREFIX } from "../infra/bench-board.js";
import { CLUSTER_CPU, type ClusterCpu } from "../infra/ingest-cluster.js";
import type { PushCluster } from "./push-cluster.js";
import type { ProbeBook } from "./probe-book.js";
import { pcts, perSecond, shortfalls, type Pcts } from "./step-summary.js";
import type { WatcherPool } from "./watchers.js";
import type { WriteDriver, WriteStepResult } from "./write-driver.js";
import { round1, round2 } from "../output/format.js";

const OFFSETS_KEY = keyLayout(BENCH_KEY_PREFIX).offsets;

export interface StepPlan {
  rate: number;
  warmupS: number;
  windowS: number;
  /** A probe not seen this long after its write's send counts as never seen. */
  probeTimeoutS: number;
  /** The streams are quiet once no message came for this long. */
  quietMs: number;
  /** The watchers' interval_ms. */
  intervalMs: number;
}

export interface StepFigures {
  /** WatchPlayer and WatchTop streams held during the step. */
  watchers: number;
  tops: number;
  rate: number;
  windowS: number;
  sent: number;
  unsent: number;
  ackedPerS: number;
  appliedPerS: number;
  failed: WriteStepResult["failed"];
  ackMs: Pcts;
  drainS: number;
  /** Changes the shards appended to their change streams, per second of the window. */
  changesPerS: number;
  playerMessagesPerS: number;
  topMessagesPerS: number;
  /** Events the messages carried per second, by kind (an overtaken or passed event is one rank shift of one watcher). */
  eventsPerS: Record<string, number>;
  cores: Record<ClusterCpu, number>;
  probes: WriteStepResult["probes"] & { expired: number; failed: number };
  own?: Pcts;
  overtake?: Pcts;
  feedResets: number;
  resynced: number;
  streamsEnded: number;
  /** Seconds after the drain until the streams were quiet and every probe seen. */
  settleS: number;
  /** With watchers: the router's live heap after the step, at rest (a full collection first), MiB. */
  liveHeapAfterMiB?: number;
  shortfalls: string[];
}

interface Reading {
  at: number;
  cpu: number[];
  changes: number;
  applied: number;
  playerMessages: number;
  topMessages: number;
  events: Record<string, number>;
}

/** The streams held during a step: WatchPlayer streams with their probes, and WatchTop streams (either may be absent). */
export interface StepWatchers {
  players?: WatcherPool;
  tops?: WatcherPool;
  book?: ProbeBook;
}

export async function runStep(pc: PushCluster, driver: WriteDriver, s: StepPlan, w: StepWatchers): Promise<StepFigures> {
  const redis = pc.cluster.redis;
  const read = async (): Promise<Reading> => {
    const [cpu, changes, applied] = await Promise.all([
      Promise.all(CLUSTER_CPU.map((n) => pc.cluster.cpu[n]().catch(() => NaN))),
      pc.changesAdded(),
      appliedSum(redis),
    ]);
    return {
      at: performance.now(),
      cpu,
      changes,
      applied,
      playerMessages: w.players?.counters.playerMessages ?? 0,
      topMessages: w.tops?.counters.topMessages ?? 0,
      events: { ...w.players?.counters.events },
    };
  };
  const pools = [w.players, w.tops].filter((x): x is WatcherPool => x !== undefined);
  const resyncedNow = () => pools.reduce((n, x) => n + x.counters.resynced, 0);
  const endedNow = () => pools.reduce((n, x) => n + x.endedCount, 0);
  const resets0 = pc.feedResets();
  const resynced0 = resyncedNow();
  const ended0 = endedNow();
  const expired0 = w.book?.expired ?? 0;
  const failed0 = w.book?.failed ?? 0;
  let a: Reading | undefined;
  let b: Reading | undefined;
  const res = await driver.run(s.rate, s.warmupS * 1000, s.windowS * 1000, async (edge) => {
    if (edge === "start") a = await read();
    else b = await read();
  });
  const windowS = (b!.at - a!.at) / 1000;
  const windowFrom = a!.at;
  const windowTo = windowFrom + s.windowS * 1000;

  // the drain: every acknowledged update applied (Infinity when the shards stall for 60 s)
  const drainS = await untilApplied(redis, OFFSETS_KEY, res.offsets, 60_000).then(
    () => (performance.now() - b!.at) / 1000,
    () => Infinity,
  );
  // every probe seen or expired, and the streams quiet
  const t1 = performance.now();
  for (;;) {
    if (w.book) driver.taint(w.book.expire(performance.now(), s.probeTimeoutS * 1000).map((p) => p.watched));
    let lastMessage = 0;
    for (const v of w.players?.players.values() ?? []) if (v.lastAt > lastMessage) lastMessage = v.lastAt;
    const quiet = performance.now() - lastMessage > s.quietMs;
    if ((w.book?.pending ?? 0) === 0 && quiet) break;
    if (performance.now() - t1 > 120_000)
      throw new Error(`the streams did not go quiet within 120 s after the step at ${s.rate} updates/s`);
    await sleep(100);
  }
  const settleS = (performance.now() - t1) / 1000;

  const cores = Object.fromEntries(CLUSTER_CPU.map((n, i) => [n, round2(perSecond(a!.cpu[i]!, b!.cpu[i]!, windowS))])) as Record<
    ClusterCpu,
    number
  >;
  const kinds = new Set([...Object.keys(a!.events), ...Object.keys(b!.events)]);
  const book = w.book;
  const lat = (kind: "own" | "overtake") => (book ? pcts(book.samplesSent(kind, windowFrom, windowTo).map((x) => x.fromAckMs)) : undefined);
  const f: StepFigures = {
    watchers: w.players?.players.size ?? 0,
    tops: w.tops?.tops.length ?? 0,
    rate: s.rate,
    windowS: round2(windowS),
    sent: res.sent,
    unsent: res.unsent,
    ackedPerS: round1(res.acked.inWindow / s.windowS),
    appliedPerS: round1(perSecond(a!.applied, b!.applied, windowS)),
    failed: res.failed,
    ackMs: pcts(res.ackMs),
    drainS: round2(drainS),
    changesPerS: round1(perSecond(a!.changes, b!.changes, windowS)),
    playerMessagesPerS: round1(perSecond(a!.playerMessages, b!.playerMessages, windowS)),
    topMessagesPerS: round1(perSecond(a!.topMessages, b!.topMessages, windowS)),
    eventsPerS: Object.fromEntries([...kinds].map((k) => [k, round1(perSecond(a!.events[k] ?? 0, b!.events[k] ?? 0, windowS))])),
    cores,
    probes: { ...res.probes, expired: (book?.expired ?? 0) - expired0, failed: (book?.failed ?? 0) - failed0 },
    ...(book ? { own: lat("own"), overtake: lat("overtake") } : {}),
    feedResets: pc.feedResets() - resets0,
    resynced: resyncedNow() - resynced0,
    streamsEnded: endedNow() - ended0,
    settleS: round1(settleS),
    shortfalls: [],
  };
  f.shortfalls = shortfalls({
    watchers: f.watchers > 0 || f.tops > 0,
    probed: w.book !== undefined,
    sentInWindow: res.sentInWindow,
    ackedInWindow: res.acked.inWindow,
    failedBatches: res.failed.batches,
    unsentBatches: res.unsent,
    drainS,
    feedResets: f.feedResets,
    resynced: f.resynced,
    streamsEnded: f.streamsEnded,
    expiredProbes: f.probes.expired,
    own: f.own,
    overtake: f.overtake,
  });
  return f;
}

/** The applied offsets summed over the partitions: records applied so far. */
async function appliedSum(redis: readonly Redis[]): Promise<number> {
  let n = 0n;
  for (const o of (await readApplied(redis, OFFSETS_KEY)).values()) n += o + 1n;
  return Number(n);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
