/**
 * Ingest's metrics (see platform/src/metrics.ts): the group-commit producer's queue, the size
 * and latency of its flushes (one produce request each), what it acknowledged and what it
 * refused, and the shards' lag and the writes' freshness as lag admission sees them
 * (lag-admission.ts). Calls and latency
 * per rpc are the gRPC adapter's (ladder_grpc_server_*).
 */
import { Counter, Gauge, Histogram, LATENCY_BUCKETS, metricSet } from "@ladder/platform/metrics";

/** Freshness buckets (s): fine around the default bound (LADDER_INGEST_MAX_LAG_MS, 250 ms) and half of it. */
const FRESHNESS_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 10];

export const ingestMetrics = metricSet((registry) => {
  const registers = [registry];
  return {
    queuedRecords: new Gauge({
      name: "ladder_ingest_queued_records",
      help: "records waiting to be sent to the log (LADDER_INGEST_MAX_QUEUED refuses more)",
      registers,
    }),
    queuedCalls: new Gauge({
      name: "ladder_ingest_queued_calls",
      help: "SubmitScores calls whose records wait to be sent to the log",
      registers,
    }),
    flushRecords: new Histogram({
      name: "ladder_ingest_flush_records",
      help: "records per flush (one produce request to the log)",
      buckets: [1, 5, 10, 50, 100, 250, 500, 1000, 2500, 5000, 10_000],
      registers,
    }),
    flushCalls: new Histogram({
      name: "ladder_ingest_flush_calls",
      help: "SubmitScores calls per flush (group commit)",
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500],
      registers,
    }),
    flushSeconds: new Histogram({
      name: "ladder_ingest_flush_seconds",
      help: "time from a flush's produce request to the log's answer, by outcome (ok, error)",
      labelNames: ["outcome"] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    acknowledgedRecords: new Counter({
      name: "ladder_ingest_acknowledged_records_total",
      help: "records the log acknowledged (durable)",
      registers,
    }),
    lagWaits: new Counter({
      name: "ladder_ingest_lag_waits_total",
      help: "SubmitScores calls that waited because a shard they write to was past LADDER_INGEST_MAX_LAG_MS",
      registers,
    }),
    shardLag: new Gauge({
      name: "ladder_ingest_shard_lag_seconds",
      help: "age of the oldest record this ingest acknowledged that the shard has not applied, at the last look (0 when none)",
      labelNames: ["shard"] as const,
      registers,
    }),
    admitTarget: new Gauge({
      name: "ladder_ingest_admit_target_seconds",
      help: "the lag up to which ingest admits writes to the shard: LADDER_INGEST_MAX_LAG_MS, less while its records took longer than that to be applied",
      labelNames: ["shard"] as const,
      registers,
    }),
    freshness: new Histogram({
      name: "ladder_ingest_freshness_seconds",
      help: "per partition and span of acknowledgements (5 ms), from this ingest's acknowledgement of its records until a look at their shard found them applied: at most one look (LADDER_INGEST_LAG_POLL_MS) longer than they waited before a read could see them; observed while LADDER_INGEST_MAX_LAG_MS gates writes",
      labelNames: ["shard"] as const,
      buckets: FRESHNESS_BUCKETS,
      registers,
    }),
    refusedCalls: new Counter({
      name: "ladder_ingest_refused_calls_total",
      help: "SubmitScores calls not acknowledged, by reason: saturated (queue full, nothing written), deadline (not acknowledged in time), log_error (the produce request failed), quota (a write quota spent, nothing written), lag (a shard the batch writes to stayed past LADDER_INGEST_MAX_LAG_MS, nothing written)",
      labelNames: ["reason"] as const,
      registers,
    }),
  };
});

export type IngestMetrics = ReturnType<typeof ingestMetrics>;
