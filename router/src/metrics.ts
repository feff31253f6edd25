/**
 * The router's metrics (see platform/src/metrics.ts): its calls to each shard (shard-pool.ts),
 * its waits for consistency tokens (wait-applied.ts) and the rebuilds it runs
 * (admin-service.ts). Calls and latency per rpc are the gRPC adapter's (ladder_grpc_server_*).
 */
import { Code } from "@ladder/model/errors";
import { bound, Counter, Gauge, Histogram, HotHistogram, LATENCY_BUCKETS, metricSet } from "@ladder/platform/metrics";

export const routerMetrics = metricSet((registry) => {
  const registers = [registry];
  const shardCall = new HotHistogram({
    name: "ladder_router_shard_call_seconds",
    help: "one read of one shard (a Lua script on its Redis, under LADDER_SHARD_TIMEOUT_MS), by shard and status code (OK, or the error the call failed with)",
    labelNames: ["shard", "code"] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const topCache = new Counter({
    name: "ladder_router_top_cache_total",
    help: "GetTop requests the top cache answered, by outcome: hit (a fresh page in memory), joined (waited for a read under way), refreshed (read the shards)",
    labelNames: ["outcome"] as const,
    registers,
  });
  const histogramCache = new Counter({
    name: "ladder_router_histogram_cache_total",
    help: "GetHistogram and GetApproximateRank requests the histogram cache answered, by outcome: hit (a fresh histogram in memory), joined (waited for a read under way), refreshed (read the shards)",
    labelNames: ["outcome"] as const,
    registers,
  });
  const rankIndex = new Counter({
    name: "ladder_router_rank_index_total",
    help: "counts of one shard a GetRank, or a GetRanks per player asked, needed on a board of LADDER_RANK_INDEX_BOARDS, by source: index (the router's copy of the shard answered) or shard (a copy was not live or current, or GetRanks found one behind its owner, so the shard was read)",
    labelNames: ["source"] as const,
    registers,
  });
  return {
    shardCall,
    /** The counter of the rank index's source `source` (memoized). */
    rankIndexOf: bound((source) => rankIndex.labels(source)),
    rankIndexLag: new Histogram({
      name: "ladder_router_rank_index_lag_seconds",
      help: "how long after a shard appended a change to its change stream the rank index's copy took it (per batch of changes: its last one; the stream id's time is the shard Redis's clock)",
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    rankIndexRefused: new Counter({
      name: "ladder_router_rank_index_refused_total",
      help: "copies of a shard's board the rank index did not build, or dropped, because its copies would hold more than LADDER_RANK_INDEX_MAX_ENTRIES entries (the board is then read through the shards)",
      registers,
    }),
    rankIndexEntries: new Gauge({
      name: "ladder_router_rank_index_entries",
      help: "entries the rank index's copies hold (each about 150 bytes of heap), over all boards and shards",
      registers,
    }),
    rankIndexRebuilds: new Counter({
      name: "ladder_router_rank_index_rebuilds_total",
      help: "copies of a shard's board the rank index built again: its feed reset (the shard's data swapped, flushed or failed over), a move ended, or the copy disagreed with the shard",
      registers,
    }),
    /** The counter of the histogram cache's outcome `outcome` (memoized). */
    histogramCacheOf: bound((outcome) => histogramCache.labels(outcome)),
    /** The child of shardCall for a shard and code (shardCall.labels memoizes it: every shard call observes one). */
    shardCallOf: (shard: string, code: string) => shardCall.labels(shard, code),
    /** The counter of the top cache's outcome `outcome` (memoized: every cached GetTop counts one). */
    topCacheOf: bound((outcome) => topCache.labels(outcome)),
    tokenWait: new Histogram({
      name: "ladder_router_consistency_wait_seconds",
      help: "time a read with a consistency token waited for the shards to apply its writes, by outcome (OK, or the status the read then failed with)",
      labelNames: ["code"] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    rebuildsRunning: new Gauge({
      name: "ladder_rebuild_running",
      help: "1 while a rebuild of the shard runs in this router, else 0",
      labelNames: ["shard"] as const,
      registers,
    }),
    rebuildReplayed: new Counter({
      name: "ladder_rebuild_replayed_records_total",
      help: "records replayed from the log by rebuilds run in this router",
      labelNames: ["shard"] as const,
      registers,
    }),
    rebuildLag: new Gauge({
      name: "ladder_rebuild_lag_records",
      help: "records the shard's running rebuild has left to replay (at its last progress report; 0 when done)",
      labelNames: ["shard"] as const,
      registers,
    }),
    rebuilds: new Counter({
      name: "ladder_rebuilds_total",
      help: "rebuilds ended, by shard, mode (swap, audit) and outcome (OK, or the status they failed with)",
      labelNames: ["shard", "mode", "code"] as const,
      registers,
    }),
  };
});

/** A status code's name: "OK", "UNAVAILABLE", ... */
export const codeName = (code: number): string => Code[code] ?? String(code);
