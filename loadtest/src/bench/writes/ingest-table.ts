/**
 * The ingest benchmark's figures and table: the end-to-end rate (visible in Redis) next
 * to what ingest acknowledged and to the raw Kafka and raw Redis rates, with the ratio of
 * the end-to-end rate to each.
 */
import type { Measurement } from "../infra/measure.js";
import type { ClusterCpuFigures } from "./cluster-cpu.js";
import { count, ms, ratio } from "../output/format.js";
import { tableOf, type Table } from "../output/table.js";

export interface IngestFigures {
  plan: object;
  endToEnd: {
    /** The SubmitScores calls. */
    call: Measurement;
    batch: number;
    ackedPerSec: number;
    visiblePerSec: number;
    appliedInWindow: number;
    /** From the last answered call until every acknowledged update was applied. */
    drainMs: number;
    /** Records produced over the whole run (warm-up included). */
    produced: number;
    /** produced / (first send → all applied). */
    overallPerSec: number;
    /** Every process's CPU per acknowledged update over the run (cluster-cpu.ts). */
    clusterCpu: ClusterCpuFigures;
  };
  rawKafka: Array<{ call: Measurement; batch: number; perSec: number; topic: string }>;
  rawRedis: { call: Measurement; batch: number; perSec: number };
}

export function ingestTable(f: IngestFigures): Table {
  const e2e = f.endToEnd.visiblePerSec;
  const label: Record<string, string> = { shardNodes: "shard nodes", redis: "Redis" };
  const cores = (c: Record<string, number>) =>
    Object.entries(c)
      .map(([k, v]) => `${label[k] ?? k} ${v.toFixed(2)}`)
      .join(", ");
  const lines = [
    { path: "SubmitScores → ingest → Kafka → shard nodes → Redis", counted: "visible in Redis", perSec: e2e, m: f.endToEnd.call },
    { path: "(the same run)", counted: "acknowledged by ingest", perSec: f.endToEnd.ackedPerSec, m: f.endToEnd.call },
    ...f.rawKafka.map((k) => ({
      path: `raw Kafka produce, ${count(k.batch)} per request, 1 in flight (kafkajs, idempotent, acks=all)`,
      counted: "acknowledged by Kafka",
      perSec: k.perSec,
      m: k.call,
    })),
    {
      path: `raw Redis ZADD, ${count(f.rawRedis.batch)} per batch, ${f.rawRedis.call.concurrency} in flight (ioredis pipelines)`,
      counted: "answered by Redis",
      perSec: f.rawRedis.perSec,
      m: f.rawRedis.call,
    },
  ];
  return tableOf(`Ingest: score updates per second (batches of ${f.endToEnd.batch}, ${f.endToEnd.call.concurrency} in flight)`, lines, [
    ["path", (l) => l.path],
    ["counted when", (l) => l.counted],
    ["updates/s", (l) => count(l.perSec)],
    ["batch p50 ms", (l) => ms(l.m.latencyMs.p50)],
    ["batch p99 ms", (l) => ms(l.m.latencyMs.p99)],
    ["errors", (l) => count(l.m.errors)],
    ["end to end ÷ this", (l) => ratio(e2e, l.perSec)],
    ["cores", (l) => cores(l.m.cpuCores)],
  ]);
}
