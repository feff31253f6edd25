/**
 * What one `npm run bench` measures, and for how long: sizes, durations and concurrency of
 * every benchmark, full or `--quick` (small sizes and short runs: a smoke test of the whole
 * suite, whose figures mean little). The full plan takes about 27 minutes on the project's 2-core
 * machine: "grpc" about 6 (its cluster, 1M players through Kafka, 3 rounds of h2load), "rank-index"
 * 5 (two clusters of 1M players), "replicas" 3.5, "competitions" 2, "columns" 2.5, "ingest" and "rebuild" the rest
 * (1M records produced twice, four replays).
 *
 * THE SHAPE is the full plan's (`fullPlan`, its fields explained where they are set); the quick
 * plan is the same shape at smoke-test sizes.
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

export type BenchPlan = ReturnType<typeof fullPlan> & { quick: boolean };

const SECOND = 1000;
/** Calls a window holds at least, by default: fewer make no figure. */
const MIN_CALLS = 30;

/** A closed loop of `concurrency` for `warmupMs` + a window of `durationMs` (longer for MIN_CALLS, up to 3x). */
function loop(concurrency: number, warmupMs: number, durationMs: number): ClosedLoopPlan {
  return { concurrency, warmupMs, durationMs, minCalls: MIN_CALLS, maxDurationMs: 3 * durationMs };
}

function fullPlan() {
  return {
    ingest: {
      ...loop(8, 3 * SECOND, 15 * SECOND),
      batch: 1000,
      shards: 3,
      players: 1_000_000,
      /** The raw Kafka and raw Redis runs (raw Kafka always has one request in flight: see writes/raw-paths.ts). */
      raw: loop(8, 2 * SECOND, 10 * SECOND),
      /** Records per produce request of the raw Kafka runs: the call's batch, and GroupCommitProducer's cap. */
      rawKafkaBatches: [1000, 5000],
    },
    /** Records replayed, into these shard counts, without and with event ids (the apply script's dedup path). */
    rebuild: { records: 1_000_000, shards: [1, 3], eventIds: [false, true] },
    /**
     * The router against its own health check (grpc/grpc-bench.ts): `players` seeded through Kafka on
     * 3 shards, h2load `rounds` of `seconds` at `connections` x `streams` per question.
     */
    grpc: { players: 1_000_000, rounds: 3, seconds: 5, connections: 4, streams: 16 },
    /**
     * GetRank, GetRanks and GetAround through the fan-out and the rank index (grpc/rank-index-bench.ts) on each shard count,
     * h2load as grpc's; then `writesPerS` updates a second for `writeS` s for the copies' freshness.
     */
    rankIndex: { players: 1_000_000, shards: [3, 6], rounds: 3, seconds: 5, connections: 4, streams: 16, writesPerS: 2_000, writeS: 10 },
    /**
     * GetRank with read replicas (grpc/replicas-bench.ts): `players` on `shards` shards behind one
     * Sentinel, then for each count of `replicas` that many per shard, h2load as grpc's.
     */
    replicas: { players: 1_000_000, shards: 3, replicas: [0, 1, 2], rounds: 3, seconds: 5, connections: 4, streams: 16 },
    /**
     * The write path of a league and of a team board's source against a plain board
     * (writes/competitions-bench.ts): `players` (placed in the league's cohorts of `cohort`, members of
     * `teams` teams) sent INCREMENTs in batches of `batch`, a closed loop per board.
     */
    competitions: { ...loop(8, 2 * SECOND, 10 * SECOND), batch: 500, players: 100_000, cohort: 50, teams: 1_000 },
    /**
     * A board with three columns against a one-column board (writes/columns-bench.ts): `players` written
     * once to each, then a closed loop of SubmitScores of `batch` INCREMENTs (`write`) and one of each
     * read (`read`: GetRank, GetAround, GetTop) per board.
     */
    columns: { players: 100_000, batch: 500, write: loop(8, 2 * SECOND, 10 * SECOND), read: loop(16, 2 * SECOND, 8 * SECOND) },
    /** Random seed of every synthetic player and query. */
    seed: 1,
  };
}

export function benchPlan(quick: boolean): BenchPlan {
  const full = fullPlan();
  if (!quick) return { ...full, quick };
  return {
    ...full,
    quick,
    ingest: { ...full.ingest, ...loop(8, 1 * SECOND, 3 * SECOND), players: 100_000, raw: loop(8, 0.5 * SECOND, 1.5 * SECOND) },
    rebuild: { ...full.rebuild, records: 50_000 },
    grpc: { ...full.grpc, players: 20_000, rounds: 1, seconds: 2 },
    rankIndex: { ...full.rankIndex, players: 20_000, rounds: 1, seconds: 2, writeS: 3 },
    replicas: { ...full.replicas, players: 20_000, rounds: 1, seconds: 2 },
    competitions: { ...full.competitions, ...loop(8, 1 * SECOND, 3 * SECOND), players: 10_000, teams: 100 },
    columns: { ...full.columns, players: 10_000, write: loop(8, 1 * SECOND, 3 * SECOND), read: loop(16, 1 * SECOND, 2 * SECOND) },
  };
}
