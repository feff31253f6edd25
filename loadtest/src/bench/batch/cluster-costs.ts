/**
 * The cost meter (cost-meter.ts) wired to a running cluster: where each reading comes from,
 * and the wait until the cluster is back at rest between runs. Shared by the batch, approx
 * and push benchmarks.
 */
import { machineCpu, othersCpu, pidCpu, redisCommandStats, redisCpu, selfCpu, sumProbes } from "../infra/cpu-meter.js";
import type { IngestCluster } from "../infra/ingest-cluster.js";
import { atRest, costDelta, readCosts, type CostProbes } from "./cost-meter.js";

/** Busy cores (router + Redis) below which the cluster counts as at rest. */
const REST_CORES = 0.15;
const round1 = (x: number) => Math.round(x * 10) / 10;

/** The cost meter's probes of a cluster: its router, its Redis (CPU and scripts), this process, the machine and the rest of it. */
export function costProbes(cluster: IngestCluster): CostProbes {
  return {
    routerS: pidCpu(cluster.services.router().pid!),
    redisS: sumProbes(cluster.redis.map(redisCpu)),
    redisScripts: async () => (await Promise.all(cluster.redis.map(async (r) => redisCommandStats(await r.info("commandstats"), ["evalsha", "eval"]).calls))).reduce((a, b) => a + b, 0),
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
