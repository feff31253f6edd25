/**
 * The cost meter (cost-meter.ts) wired to a running cluster, and the measuring steps the batch
 * and approx benchmarks share: the rest rates, a block of units timed one after another, one
 * h2load run with its costs per call, and the wait until the cluster is back at rest.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { machineCpu, othersCpu, pidCpu, redisCommandStats, redisCpu, selfCpu, sumProbes } from "../infra/cpu-meter.js";
import { h2load, type H2loadShape } from "../infra/h2load.js";
import type { IngestCluster } from "../infra/ingest-cluster.js";
import { atRest, costDelta, idleRates, perUnit, readCosts, type CostProbes, type IdleRates, type UnitCost } from "./cost-meter.js";
import { timeReps } from "./node-runs.js";
import { round1 } from "../output/format.js";

/** Busy cores (router + Redis) below which the cluster counts as at rest. */
const REST_CORES = 0.15;

/** The cost meter's probes of a cluster: its router, its Redis (CPU and scripts), this process, the machine and the rest of it. */
export function costProbes(cluster: IngestCluster): CostProbes {
  return {
    routerS: pidCpu(cluster.services.router().pid!),
    redisS: sumProbes(cluster.redis.map(redisCpu)),
    redisScripts: async () =>
      (
        await Promise.all(cluster.redis.map(async (r) => redisCommandStats(await r.info("commandstats"), ["evalsha", "eval"]).calls))
      ).reduce((a, b) => a + b, 0),
    clientS: selfCpu,
    machineS: machineCpu,
    othersS: othersCpu,
  };
}

/** Waits until the router and Redis are back at rest (what a run left queued is done), at most 60 s; the seconds waited. */
export async function settle(probes: CostProbes): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < 60_000) {
    const a = await readCosts(probes);
    await new Promise((r) => setTimeout(r, 250));
    if (atRest(costDelta(a, await readCosts(probes)), REST_CORES)) break;
  }
  return round1((performance.now() - t0) / 1000);
}

/** What the processes spend at rest, per second, read over `seconds` of doing nothing. */
export async function restRates(probes: CostProbes, seconds: number): Promise<IdleRates> {
  const a = await readCosts(probes);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return idleRates(costDelta(a, await readCosts(probes)));
}

/** `unit(0)` uncounted, then `unit(rep)` for rep = 0 .. reps-1 one after another: each one's ms, and the cost per unit less the rest rates. */
export async function timeBlock(
  probes: CostProbes,
  idle: IdleRates,
  reps: number,
  unit: (rep: number) => Promise<unknown>,
): Promise<{ ms: number[]; cost: UnitCost }> {
  await unit(0);
  const a = await readCosts(probes);
  const ms = await timeReps(reps, unit);
  return { ms, cost: perUnit(costDelta(a, await readCosts(probes)), reps, idle) };
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
