/**
 * Whole-cluster CPU per acknowledged update: the figure to drive down for the write path, steadier
 * than updates/s on a machine whose speed varies. Every process of the cluster is read (/proc for
 * the services and the Kafka broker, INFO cpu for the redis-servers: the same getrusage totals)
 * from the first write sent until every acknowledged update was applied, so that the work an
 * update causes after its acknowledgement (the shard nodes' apply, Redis's script) is counted
 * whole; what each process spends at rest (heartbeats, followers, Kafka's own housekeeping), read
 * over a quiet interval before the load, is taken out per second of the run. Per process:
 * (CPU over the run − rest rate × the run's length) ÷ the updates ingest acknowledged in the run.
 * The load client (this process) is not the cluster's and is not counted.
 */
import type { CpuProbe } from "../infra/cpu-meter.js";
import type { IngestCluster } from "../infra/ingest-cluster.js";
import { pidCpu, redisCpu } from "../infra/cpu-meter.js";
import { whole } from "../output/format.js";
import { tableOf, type Table } from "../output/table.js";

/** One process of the cluster: its name ("shard node shard-0"), its kind ("shard nodes") and how its CPU seconds are read. */
export interface ClusterProcess {
  name: string;
  kind: string;
  cpu: CpuProbe;
}

export interface ProcessCpu {
  name: string;
  kind: string;
  /** CPU seconds over the run. */
  cpuS: number;
  /** Cores it used at rest, before the run. */
  restCores: number;
  usPerUpdate: number;
}

export interface ClusterCpuFigures {
  /** Updates ingest acknowledged in the run. */
  updates: number;
  /** The run: first write sent → every acknowledged update applied. */
  seconds: number;
  processes: ProcessCpu[];
  /** Per kind of process (ingest, shard nodes, router, Kafka, Redis), summed. */
  kinds: Array<{ kind: string; count: number; usPerUpdate: number }>;
  totalUsPerUpdate: number;
}

/** Every process of a bench cluster: ingest, each shard node, the router, the Kafka broker, each redis-server. */
export function clusterProcesses(cluster: IngestCluster, kafkaPid: number | undefined): ClusterProcess[] {
  const s = cluster.services;
  return [
    { name: "ingest", kind: "ingest", cpu: pidCpu(s.ingest().pid!) },
    ...s.shardIds.map((id) => ({ name: `shard node ${id}`, kind: "shard nodes", cpu: pidCpu(s.shardNode(id).pid!) })),
    { name: "router", kind: "router", cpu: pidCpu(s.router().pid!) },
    { name: "Kafka broker", kind: "Kafka", cpu: kafkaPid === undefined ? async () => NaN : pidCpu(kafkaPid) },
    ...cluster.redis.map((r, i) => ({ name: `redis-server ${s.shardIds[i]}`, kind: "Redis", cpu: redisCpu(r) })),
  ];
}

export function readCpu(processes: readonly ClusterProcess[]): Promise<number[]> {
  return Promise.all(processes.map((p) => p.cpu()));
}

/** The cores each process uses at rest, read over `seconds` of nothing sent. */
export async function restCores(processes: readonly ClusterProcess[], seconds: number): Promise<number[]> {
  const a = await readCpu(processes);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const b = await readCpu(processes);
  const wall = (performance.now() - t0) / 1000;
  return b.map((x, i) => (x - a[i]!) / wall);
}

/** The figures of a run from the readings at its start and end, the rest rates, its length and the updates acknowledged in it. */
export function clusterCpuFigures(
  processes: readonly ClusterProcess[],
  o: { start: readonly number[]; end: readonly number[]; rest: readonly number[]; seconds: number; updates: number },
): ClusterCpuFigures {
  const rows: ProcessCpu[] = processes.map((p, i) => {
    const cpuS = o.end[i]! - o.start[i]!;
    const net = cpuS - o.rest[i]! * o.seconds;
    return {
      name: p.name,
      kind: p.kind,
      cpuS: round(cpuS, 3),
      restCores: round(o.rest[i]!, 3),
      usPerUpdate: round((net / o.updates) * 1e6, 1),
    };
  });
  const kinds = [...new Set(rows.map((r) => r.kind))].map((kind) => {
    const of = rows.filter((r) => r.kind === kind);
    return { kind, count: of.length, usPerUpdate: round(sum(of.map((r) => r.usPerUpdate)), 1) };
  });
  return {
    updates: o.updates,
    seconds: round(o.seconds, 1),
    processes: rows,
    kinds,
    totalUsPerUpdate: round(sum(rows.map((r) => r.usPerUpdate)), 1),
  };
}

/** The figures as a table: each kind of process, then the whole cluster. */
export function clusterCpuTable(f: ClusterCpuFigures): Table {
  const rows = [
    ...f.kinds.map((k) => ({ what: k.count > 1 ? `${k.kind} (${k.count})` : k.kind, us: k.usPerUpdate })),
    { what: "the whole cluster", us: f.totalUsPerUpdate },
  ];
  const title = `Cluster CPU per acknowledged update (${whole(f.updates)} updates acknowledged, ${f.seconds} s from the first write to the last applied; rest rates taken out)`;
  return tableOf(title, rows, [
    ["processes", (r) => r.what],
    ["CPU µs per update", (r) => (Number.isFinite(r.us) ? r.us.toFixed(1) : "—")],
  ]);
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;
