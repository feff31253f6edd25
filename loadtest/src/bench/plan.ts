/**
 * What one `npm run bench` measures, and for how long: sizes, durations and concurrency
 * of every benchmark, full or `--quick` (small sizes and short runs: a smoke test of the
 * whole suite, whose figures mean little). The full plan is sized to finish in under 20
 * minutes on the project's 2-core machine: most of that time is seeding 10M players
 * into three Redis layouts and PostgreSQL, and the fixed-length read runs.
 */

export interface ClosedLoopPlan {
  /** Requests in flight. */
  concurrency: number;
  /** Load before the measurement, left out of every figure. */
  warmupMs: number;
  /** Measured period: requests are sent during it; those in flight at its end still count. */
  durationMs: number;
}

export interface BenchPlan {
  quick: boolean;
  /** Player counts of the read, PostgreSQL and memory benchmarks, ascending. */
  sizes: number[];
  /** Shard counts the router is measured over. */
  shardCounts: number[];
  reads: ClosedLoopPlan & { topLimit: number; aroundRadius: number; connections: number; checkedPlayers: number };
  postgres: { top: ClosedLoopPlan; rank: ClosedLoopPlan };
  ingest: ClosedLoopPlan & {
    batch: number;
    shards: number;
    players: number;
    /** The raw Kafka and raw Redis runs (raw Kafka always has one request in flight: see writes/raw-paths.ts). */
    raw: ClosedLoopPlan;
    /** Records per sendBatch of the raw Kafka runs: the call's batch, and ingest's largest group commit. */
    rawKafkaBatches: number[];
  };
  rebuild: { records: number; shards: number[] };
  /** Random seed of every synthetic player and query. */
  seed: number;
}

const SECOND = 1000;

export function benchPlan(quick: boolean): BenchPlan {
  if (quick) {
    return {
      quick,
      sizes: [20_000, 100_000],
      shardCounts: [1, 2, 4],
      reads: { concurrency: 32, warmupMs: 0.5 * SECOND, durationMs: 1.5 * SECOND, topLimit: 10, aroundRadius: 5, connections: 2, checkedPlayers: 20 },
      postgres: { top: { concurrency: 32, warmupMs: 0.5 * SECOND, durationMs: 1.5 * SECOND }, rank: { concurrency: 8, warmupMs: 0.5 * SECOND, durationMs: 1.5 * SECOND } },
      ingest: {
        concurrency: 8, warmupMs: 1 * SECOND, durationMs: 3 * SECOND, batch: 1000, shards: 3, players: 100_000,
        raw: { concurrency: 8, warmupMs: 0.5 * SECOND, durationMs: 1.5 * SECOND }, rawKafkaBatches: [1000, 5000],
      },
      rebuild: { records: 50_000, shards: [1, 3] },
      seed: 1,
    };
  }
  return {
    quick,
    sizes: [1_000_000, 10_000_000],
    shardCounts: [1, 2, 4],
    reads: { concurrency: 32, warmupMs: 2 * SECOND, durationMs: 10 * SECOND, topLimit: 10, aroundRadius: 5, connections: 2, checkedPlayers: 50 },
    // rank over 10M rows takes seconds per query: its 10 s window holds a few dozen queries
    postgres: { top: { concurrency: 32, warmupMs: 2 * SECOND, durationMs: 10 * SECOND }, rank: { concurrency: 8, warmupMs: 1 * SECOND, durationMs: 10 * SECOND } },
    ingest: {
      concurrency: 8, warmupMs: 3 * SECOND, durationMs: 15 * SECOND, batch: 1000, shards: 3, players: 1_000_000,
      raw: { concurrency: 8, warmupMs: 2 * SECOND, durationMs: 10 * SECOND }, rawKafkaBatches: [1000, 5000], // 5000: GroupCommitProducer's cap
    },
    rebuild: { records: 1_000_000, shards: [1, 3] },
    seed: 1,
  };
}
