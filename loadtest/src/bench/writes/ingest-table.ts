/**
 * The ingest benchmark's figures and table: the end-to-end rate (visible in Redis) next
 * to what ingest acknowledged and to the raw Kafka and raw Redis rates, with the ratio of
 * the end-to-end rate to each.
 */
import type { Measurement } from "../infra/measure.js";
import { count, ms, ratio } from "../output/format.js";
import type { Table } from "../output/table.js";

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
  const row = (path: string, counted: string, perSec: number, m: Measurement): string[] => [
    path,
    counted,
    count(perSec),
    ms(m.latencyMs.p50),
    ms(m.latencyMs.p99),
    count(m.errors),
    ratio(e2e, perSec),
    cores(m.cpuCores),
  ];
  return {
    title: `Ingest: score updates per second (batches of ${f.endToEnd.batch}, ${f.endToEnd.call.concurrency} in flight)`,
    columns: ["path", "counted when", "updates/s", "batch p50 ms", "batch p99 ms", "errors", "end to end ÷ this", "cores"],
    rows: [
      row("SubmitScores → ingest → Kafka → shard nodes → Redis", "visible in Redis", e2e, f.endToEnd.call),
      row("(the same run)", "acknowledged by ingest", f.endToEnd.ackedPerSec, f.endToEnd.call),
      ...f.rawKafka.map((k) =>
        row(
          `raw Kafka produce, ${count(k.batch)} per request, 1 in flight (kafkajs, idempotent, acks=all)`,
          "acknowledged by Kafka",
          k.perSec,
          k.call,
        ),
      ),
      row(
        `raw Redis ZADD, ${count(f.rawRedis.batch)} per batch, ${f.rawRedis.call.concurrency} in flight (ioredis pipelines)`,
        "answered by Redis",
        f.rawRedis.perSec,
        f.rawRedis.call,
      ),
    ],
  };
}
