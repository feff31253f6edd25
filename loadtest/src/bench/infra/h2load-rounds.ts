/**
 * The cost meter (cost-meter.ts) wired to a running cluster, and rounds of h2load runs with their
 * costs per call: the rest rates first, each run followed by the wait until the cluster is back at
 * rest, then the medians over the rounds.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { BenchContext } from "../context.js";
import { costDelta, idleRates, perUnit, readCosts, type CostProbes, type IdleRates } from "./cost-meter.js";
import { redisCommandStats, untilAtRest } from "./cpu-meter.js";
import { h2load, median, type H2loadShape } from "./h2load.js";
import type { IngestCluster } from "./ingest-cluster.js";

/** Busy cores (router + Redis) below which the cluster counts as at rest. */
const REST_CORES = 0.15;

/** The cost meter's probes of a cluster: its router, its Redis (CPU and scripts), this process, the machine and the rest of it. */
export function costProbes(cluster: IngestCluster): CostProbes {
  return {
    routerS: cluster.cpu.router,
    redisS: cluster.cpu.redis,
    redisScripts: async () =>
      (
        await Promise.all(cluster.redis.map(async (r) => redisCommandStats(await r.info("commandstats"), ["evalsha", "eval"]).calls))
      ).reduce((a, b) => a + b, 0),
    clientS: cluster.cpu.client,
    machineS: cluster.cpu.machine,
    othersS: cluster.cpu.others,
  };
}

/** Waits until the router and Redis are back at rest (what a run left queued is done), at most 60 s; the seconds waited. */
export function settle(probes: CostProbes): Promise<number> {
  return untilAtRest([probes.routerS, probes.redisS], REST_CORES, 250, 60_000);
}

/** What the processes spend at rest, per second, read over `seconds` of doing nothing. */
export async function restRates(probes: CostProbes, seconds: number): Promise<IdleRates> {
  const a = await readCosts(probes);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return idleRates(costDelta(a, await readCosts(probes)));
}

/** One h2load run's figures: its rate and mean, the CPU per call less the rest rates, the machine's load, the seconds until at rest again. */
export interface H2Run {
  rate: number;
  meanMs: number;
  routerUsPerCall: number;
  redisUsPerCall: number;
  machineCores: number;
  othersCores: number;
  settledS: number;
}

/**
 * One h2load run of the request `body` (a gRPC frame) to `path` on `address`, then the wait
 * until the cluster is at rest (what the run left queued is done). The CPU is the whole run's
 * (1 s of warm-up + the measured seconds) over the calls made in it at the measured rate.
 */
export async function h2loadRun(
  dataDir: string,
  run: { address: string; path: string; body: Uint8Array; tag: string },
  shape: H2loadShape,
  probes: CostProbes,
  idle: IdleRates,
): Promise<H2Run> {
  const file = join(dataDir, `h2load-${run.tag.replace(/\W+/g, "-")}.bin`);
  await writeFile(file, run.body);
  const a = await readCosts(probes);
  const r = await h2load(run.address, run.path, file, shape);
  const block = costDelta(a, await readCosts(probes));
  const settledS = await settle(probes);
  const cost = perUnit(block, r.rate * (shape.seconds + 1), idle);
  return {
    rate: r.rate,
    meanMs: r.meanMs,
    routerUsPerCall: cost.routerMs * 1000,
    redisUsPerCall: cost.redisMs * 1000,
    machineCores: cost.machineCores,
    othersCores: cost.othersCores,
    settledS,
  };
}

/** One request of an h2load round: the row it adds a run to (`key`), the router asked and its probes, the request. */
export interface H2Ask {
  key: string;
  address: string;
  probes: CostProbes;
  path: string;
  /** The request's gRPC frame (infra/h2load.ts). */
  body: Uint8Array;
  shape: H2loadShape;
}

/** `rounds` rounds of h2load, the asks of each round (asksOf(round)) one after another: each key's runs, in round order. */
export async function h2loadRounds(
  ctx: BenchContext,
  rounds: number,
  idle: IdleRates,
  asksOf: (round: number) => H2Ask[],
): Promise<Map<string, H2Run[]>> {
  const runs = new Map<string, H2Run[]>();
  for (let round = 0; round < rounds; round++)
    for (const a of asksOf(round)) {
      const r = await h2loadRun(ctx.dataDir, { ...a, tag: `${round}-${a.key}` }, a.shape, a.probes, idle);
      runs.set(a.key, [...(runs.get(a.key) ?? []), r]);
      ctx.say(
        `  round ${round + 1}/${rounds}: ${a.key} ${Math.round(r.rate)}/s, router ${r.routerUsPerCall.toFixed(0)} µs/call, others ${r.othersCores} cores${r.settledS > 0.5 ? `, ${r.settledS} s to settle` : ""}`,
      );
    }
  return runs;
}

/** The medians of a key's rounds, its runs beside them. */
export function medians(runs: readonly H2Run[]) {
  const m = (f: (r: H2Run) => number) => median(runs.map(f));
  return {
    rate: m((r) => r.rate),
    meanMs: m((r) => r.meanMs),
    routerUsPerCall: m((r) => r.routerUsPerCall),
    redisUsPerCall: m((r) => r.redisUsPerCall),
    rounds: [...runs],
  };
}

/** The median over the rounds of a key's rate ÷ another key's in the same round (`of`: the health check, GetRank). */
export function medianRatio(runs: readonly H2Run[], of: readonly H2Run[] | undefined): number {
  return of ? median(runs.map((r, i) => r.rate / of[i]!.rate)) : NaN;
}
