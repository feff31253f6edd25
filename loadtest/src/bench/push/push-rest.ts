/**
 * The push bench at rest: the router's live heap (after a full collection: push-cluster.ts) and
 * every process's CPU over a quiet interval; and the wait until the cluster is back at rest after a
 * step.
 */
import { CLUSTER_CPU, type ClusterCpu } from "../infra/ingest-cluster.js";
import { untilAtRest } from "../infra/cpu-meter.js";
import type { PushCluster } from "./push-cluster.js";

export interface RestFigures {
  label: string;
  watchers: number;
  tops: number;
  /** Right after a full garbage collection: what the router holds live, MiB. */
  routerLiveHeapMiB: number;
  cores: Record<ClusterCpu, number>;
}

/** The router's live heap and every process's CPU over `seconds` of rest (the collection comes after the CPU interval). */
export async function atRest(
  pc: PushCluster,
  label: string,
  held: { watchers: number; tops: number },
  seconds: number,
): Promise<RestFigures> {
  await settle(pc);
  const read = () => Promise.all(CLUSTER_CPU.map((n) => pc.cluster.cpu[n]().catch(() => NaN)));
  const a = await read();
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const b = await read();
  const wall = (performance.now() - t0) / 1000;
  const cores = Object.fromEntries(CLUSTER_CPU.map((n, i) => [n, Math.round(((b[i]! - a[i]!) / wall) * 1000) / 1000])) as Record<
    ClusterCpu,
    number
  >;
  return { label, ...held, routerLiveHeapMiB: (await pc.routerLive()).heapMiB, cores };
}

/** Waits until the router, the shard nodes, Redis, ingest and Kafka are back at rest (below 0.15 core each over 0.5 s), at most 30 s. */
export async function settle(pc: PushCluster): Promise<void> {
  const { router, shardNodes, redis, ingest, kafka } = pc.cluster.cpu;
  await untilAtRest([router, shardNodes, redis, ingest, kafka], 0.15, 500, 30_000);
}

export function restLine(r: RestFigures): string {
  const c = r.cores;
  return (
    `  ${r.label}: router live heap ${r.routerLiveHeapMiB} MiB (after a full GC); ` +
    `cores router ${c.router} / shard nodes ${c.shardNodes} / Redis ${c.redis} / client ${c.client} / machine ${c.machine} (others ${c.others})`
  );
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
