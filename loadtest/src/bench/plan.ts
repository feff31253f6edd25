/**
 * What one `npm run bench` measures, and for how long: sizes, durations and concurrency
 * of every benchmark, full or `--quick` (small sizes and short runs: a smoke test of the
 * whole suite, whose figures mean little). The full plan is sized to finish in under 20
 * minutes on the project's 2-core machine: most of that time is seeding 10M players
 * into three Redis layouts and PostgreSQL, and the fixed-length read runs.
 */

/** One closed-loop measurement (infra/measure.ts): its figures are the calls sent in its window. */
export interface ClosedLoopPlan {
  /** Requests in flight. */
  concurrency: number;
  /** Load before the window, left out of every figure (longer until every worker has had 2 answers). */
  warmupMs: number;
  /** Shortest window. */
  durationMs: number;
  /** The window stays open past durationMs until this many calls were sent in it... */
  minCalls: number;
  /** ...but closes at this length, however few. */
  maxDurationMs: number;
}

export interface BenchPlan {
  quick: boolean;
  /** Player counts of the read, PostgreSQL and memory benchmarks, ascending. */
  sizes: number[];
  /** Shard counts the router is measured over. */
  shardCounts: number[];
  reads: ClosedLoopPlan & { topLimit: number; aroundRadius: number; connections: number; checkedPlayers: number };
  /**
   * The PostgreSQL baseline: the bench's own server with shared_buffers of sharedBuffersMb
   * (room for the largest table and its indexes), both questions at the reads' concurrency,
   * and rank once more with one query per core (`rankPerCore`): PostgreSQL's best rate.
   */
  postgres: { sharedBuffersMb: number; top: ClosedLoopPlan; rank: ClosedLoopPlan; rankPerCore: ClosedLoopPlan };
  ingest: ClosedLoopPlan & {
    batch: number;
    shards: number;
    players: number;
    /** The raw Kafka and raw Redis runs (raw Kafka always has one request in flight: see writes/raw-paths.ts). */
    raw: ClosedLoopPlan;
    /** Records per sendBatch of the raw Kafka runs: the call's batch, and ingest's largest group commit. */
    rawKafkaBatches: number[];
  };
  /** Records replayed; shard counts to replay into; without and with event ids (the apply script's dedup path). */
  rebuild: { records: number; shards: number[]; eventIds: boolean[] };
  /** The router of a real cluster against its own health check, with h2load (reads/grpc-bench.ts). */
  grpc: { players: number; rounds: number; seconds: number; connections: number; streams: number };
  /** Random seed of every synthetic player and query. */
  seed: number;
}

const SECOND = 1000;
/** Calls a window holds at least, by default: fewer make no figure. */
const MIN_CALLS = 30;
/** Bytes of shared_buffers per row of the largest PostgreSQL table: its table and indexes take 106 (measured), plus room. */
const PG_BUFFER_BYTES_PER_ROW = 160;

/** A closed loop of `concurrency` for `warmupMs` + a window of `durationMs` (longer for minCalls, up to maxDurationMs: 3x by default). */
function loop(concurrency: number, warmupMs: number, durationMs: number, more: Partial<Pick<ClosedLoopPlan, "minCalls" | "maxDurationMs">> = {}): ClosedLoopPlan {
  return { concurrency, warmupMs, durationMs, minCalls: more.minCalls ?? MIN_CALLS, maxDurationMs: more.maxDurationMs ?? 3 * durationMs };
}

export function benchPlan(quick: boolean): BenchPlan {
  const sizes = quick ? [20_000, 100_000] : [1_000_000, 10_000_000];
  const reads = quick
    ? { ...loop(32, 0.5 * SECOND, 1.5 * SECOND), topLimit: 10, aroundRadius: 5, connections: 2, checkedPlayers: 20 }
    : { ...loop(32, 2 * SECOND, 10 * SECOND), topLimit: 10, aroundRadius: 5, connections: 2, checkedPlayers: 50 };
  // PostgreSQL is asked at the router's concurrency, so the two compare like for like. Rank over
  // 10M rows takes seconds per query, and many seconds with 32 in flight: its window waits for
  // 6 calls per worker (a window of a few latencies, not a handful of answers), up to 3 minutes.
  const c = reads.concurrency;
  const postgres = {
    sharedBuffersMb: Math.max(128, Math.ceil((Math.max(...sizes) * PG_BUFFER_BYTES_PER_ROW) / 2 ** 20)),
    top: quick ? loop(c, 0.5 * SECOND, 1.5 * SECOND) : loop(c, 2 * SECOND, 10 * SECOND),
    rank: quick ? loop(c, 0.5 * SECOND, 1.5 * SECOND, { minCalls: 2 * c, maxDurationMs: 20 * SECOND }) : loop(c, 2 * SECOND, 10 * SECOND, { minCalls: 6 * c, maxDurationMs: 180 * SECOND }),
    rankPerCore: quick ? loop(2, 0.5 * SECOND, 1.5 * SECOND) : loop(2, 2 * SECOND, 10 * SECOND, { maxDurationMs: 60 * SECOND }), // the project's machine: 2 cores
  };
  if (quick) {
    return {
      quick, sizes, shardCounts: [1, 2, 4], reads, postgres,
      ingest: { ...loop(8, 1 * SECOND, 3 * SECOND), batch: 1000, shards: 3, players: 100_000, raw: loop(8, 0.5 * SECOND, 1.5 * SECOND), rawKafkaBatches: [1000, 5000] },
      rebuild: { records: 50_000, shards: [1, 3], eventIds: [false, true] },
      grpc: { players: 20_000, rounds: 1, seconds: 2, connections: 4, streams: 16 },
      seed: 1,
    };
  }
  return {
    quick, sizes, shardCounts: [1, 2, 4], reads, postgres,
    ingest: {
      ...loop(8, 3 * SECOND, 15 * SECOND), batch: 1000, shards: 3, players: 1_000_000,
      raw: loop(8, 2 * SECOND, 10 * SECOND), rawKafkaBatches: [1000, 5000], // 5000: GroupCommitProducer's cap
    },
    rebuild: { records: 1_000_000, shards: [1, 3], eventIds: [false, true] },
    grpc: { players: 1_000_000, rounds: 3, seconds: 5, connections: 4, streams: 16 },
    seed: 1,
  };
}
