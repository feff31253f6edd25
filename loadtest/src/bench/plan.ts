/**
 * What one `npm run bench` measures, and for how long: sizes, durations and concurrency
 * of every benchmark, full or `--quick` (small sizes and short runs: a smoke test of the
 * whole suite, whose figures mean little). The full plan is sized to finish in under 20
 * minutes on the project's 2-core machine without "boards" and "batch" (most of that time is seeding 10M
 * players into three Redis layouts and PostgreSQL, and the fixed-length read runs), "batch" in
 * about 13 more (its cluster, 1M players through Kafka, 200k updates through ingest, the walk to
 * the bottom of the board and 3 rounds of h2load), "approx" in a few more (its cluster, two boards
 * of 1M players through Kafka, 3 rounds of h2load; its quick plan about 1.5 minutes), "push" in about
 * 7 more (its cluster, 1M players through Kafka, 10,000 watchers, 3 series of 15 s write steps; its quick
 * plan about 2 minutes), "snapshot" in about 10 more (20M records produced, three rebuilds), and "boards" in under 15 more, below 12 GB of Redis at any time (boardsPeakEntries).
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
export type SnapshotPlan = BenchPlan["snapshot"];
export type BoardsPlan = BenchPlan["boards"];
export type BatchPlan = BenchPlan["batch"];
export type ApproxPlan = BenchPlan["approx"];
export type PushPlan = BenchPlan["push"];

const SECOND = 1000;
/** Calls a window holds at least, by default: fewer make no figure. */
const MIN_CALLS = 30;
/** Bytes of shared_buffers per row of the largest PostgreSQL table: its table and indexes take 106 (measured), plus room. */
const PG_BUFFER_BYTES_PER_ROW = 160;

/** A closed loop of `concurrency` for `warmupMs` + a window of `durationMs` (longer for minCalls, up to maxDurationMs: 3x by default). */
function loop(
  concurrency: number,
  warmupMs: number,
  durationMs: number,
  more: Partial<Pick<ClosedLoopPlan, "minCalls" | "maxDurationMs">> = {},
): ClosedLoopPlan {
  return { concurrency, warmupMs, durationMs, minCalls: more.minCalls ?? MIN_CALLS, maxDurationMs: more.maxDurationMs ?? 3 * durationMs };
}

/**
 * PostgreSQL is asked at the router's concurrency, so the two compare like for like, with
 * shared_buffers holding the largest table and its indexes. Rank over 10M rows takes seconds per
 * query, and many seconds with 32 in flight: its window waits for 6 calls per worker (a window of
 * a few latencies, not a handful of answers), up to 3 minutes; `rankPerCore` asks once more with
 * one query per core of the project's 2-core machine: PostgreSQL's best rate.
 */
function postgresPlan(quick: boolean, sizes: number[], c: number) {
  return {
    sharedBuffersMb: Math.max(128, Math.ceil((Math.max(...sizes) * PG_BUFFER_BYTES_PER_ROW) / 2 ** 20)),
    top: quick ? loop(c, 0.5 * SECOND, 1.5 * SECOND) : loop(c, 2 * SECOND, 10 * SECOND),
    rank: quick
      ? loop(c, 0.5 * SECOND, 1.5 * SECOND, { minCalls: 2 * c, maxDurationMs: 20 * SECOND })
      : loop(c, 2 * SECOND, 10 * SECOND, { minCalls: 6 * c, maxDurationMs: 180 * SECOND }),
    rankPerCore: quick ? loop(2, 0.5 * SECOND, 1.5 * SECOND) : loop(2, 2 * SECOND, 10 * SECOND, { maxDurationMs: 60 * SECOND }),
  };
}

function fullPlan() {
  const sizes = [1_000_000, 10_000_000]; // players of the read, PostgreSQL and memory benchmarks, ascending
  const reads = { ...loop(32, 2 * SECOND, 10 * SECOND), topLimit: 10, aroundRadius: 5, connections: 2, checkedPlayers: 50 };
  return {
    sizes,
    shardCounts: [1, 2, 4], // the router is measured over these
    reads,
    postgres: postgresPlan(false, sizes, reads.concurrency),
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
     * One shard rebuilt from its whole log and from its snapshot plus the tail (writes/snapshot-bench.ts):
     * `perPlayer` INCREMENTs per player, `tail` records after the snapshot (LADDER_SNAPSHOT_RECORDS'
     * default), `ids` records on each side of it with event ids (dedup sets in the snapshot).
     */
    snapshot: { players: 1_000_000, perPlayer: 20, tail: 1_000_000, ids: 100_000 },
    /**
     * A daily board with two 7-day windows, on one shard (boards/boards-bench.ts), per round of
     * existing players. Rounds up to fullStateMaxPlayers hold the windowed board's whole state after
     * 7 days (7 daily keys, 13 keys per window: reads and the windowed write); larger ones only the
     * three keys read and the plain boards written.
     */
    boards: {
      sizes: [1_000_000, 10_000_000],
      fullStateMaxPlayers: 1_000_000,
      reads: { ...loop(16, 1 * SECOND, 3 * SECOND), topLimit: 10, aroundRadius: 5 },
      writes: { warmupMs: 1.5 * SECOND, durationMs: 5 * SECOND, inFlight: 4 },
    },
    /**
     * Reads of many players, boards and deep pages against their one-at-a-time equivalents, and the
     * router against its health check, on a real cluster (batch/batch-bench.ts): `players` seeded
     * through Kafka, `dailyPlayers` of them written through ingest on 2 days (`writeBatch` updates a
     * call, `writeInFlight` calls); `asked` players per GetRanks; h2load `rounds` of `seconds`, at
     * `connections` x `streams`; the Node client's repetitions per variant (`rankReps` of the 100
     * ranks, `standingReps` of the 5 standings, `pageCalls` per page) and GetRank calls in flight of
     * the concurrent variants (`inFlight`); the page sizes measured and the walk's page (`walkLimit`).
     */
    batch: {
      players: 1_000_000,
      dailyPlayers: 100_000,
      asked: 100,
      rounds: 3,
      seconds: 5,
      connections: 4,
      streams: 16,
      rankReps: 30,
      standingReps: 200,
      inFlight: [10, 100],
      pageLimits: [10, 50, 100],
      walkLimit: 1000,
      pageCalls: 300,
      writeBatch: 1000,
      writeInFlight: 4,
    },
    /**
     * Exact vs approximate rank on boards of `players` with each of `boundCounts` histogram bounds (at
     * most 255), on a real cluster (approx/approx-bench.ts): `checkedPlayers` sampled on each board,
     * `nodeCalls` of each kind one at a time, h2load as the batch benchmark's.
     */
    approx: {
      players: 1_000_000,
      boundCounts: [16, 255],
      checkedPlayers: 300,
      nodeCalls: 1000,
      rounds: 3,
      seconds: 5,
      connections: 4,
      streams: 16,
    },
    /**
     * Push streams (push/push-bench.ts): `watchers` WatchPlayer streams of distinct players and `tops`
     * WatchTop streams of `topLimit` over `connections` HTTP/2 connections, at `intervalMs` (the API's
     * default); write steps (updates/s, ascending) without watchers and with the WatchTop streams
     * alone (`rates`) and with every watcher (`watchedRates`, until one is not sustained), each of
     * `warmupS` + `windowS`; `restS` of rest for resting CPU. The writes: batches of `mix.batch`
     * updates, INCREMENT of 1..incrementMax or SET (setShare) of unwatched players, ownShare of them
     * to watched players, overtakeShare passing one; a probe unseen after probeTimeoutS counts as lost.
     */
    push: {
      players: 1_000_000,
      watchers: 10_000,
      tops: 5,
      topLimit: 10,
      connections: 100,
      intervalMs: 250,
      rates: [250, 500, 1_000, 2_000, 4_000],
      watchedRates: [10, 25, 50, 100, 250],
      warmupS: 3,
      windowS: 15,
      restS: 5,
      mix: { batch: 10, incrementMax: 100, setShare: 0.02, ownShare: 0.25, overtakeShare: 0.05 },
      probeTimeoutS: 10,
    },
    /** Random seed of every synthetic player and query. */
    seed: 1,
  };
}

export function benchPlan(quick: boolean): BenchPlan {
  const full = fullPlan();
  if (!quick) return { ...full, quick };
  const sizes = [20_000, 100_000];
  const reads = { ...full.reads, ...loop(32, 0.5 * SECOND, 1.5 * SECOND), checkedPlayers: 20 };
  return {
    ...full,
    quick,
    sizes,
    reads,
    postgres: postgresPlan(true, sizes, reads.concurrency),
    ingest: { ...full.ingest, ...loop(8, 1 * SECOND, 3 * SECOND), players: 100_000, raw: loop(8, 0.5 * SECOND, 1.5 * SECOND) },
    rebuild: { ...full.rebuild, records: 50_000 },
    snapshot: { players: 20_000, perPlayer: 5, tail: 20_000, ids: 2_000 },
    boards: {
      sizes: [20_000, 100_000],
      fullStateMaxPlayers: 20_000,
      reads: { ...full.boards.reads, ...loop(8, 0.3 * SECOND, 1 * SECOND) },
      writes: { warmupMs: 0.5 * SECOND, durationMs: 1.5 * SECOND, inFlight: 4 },
    },
    batch: { ...full.batch, players: 20_000, dailyPlayers: 5_000, rounds: 1, seconds: 2, rankReps: 3, standingReps: 20, pageCalls: 30 },
    approx: { ...full.approx, players: 20_000, nodeCalls: 200, rounds: 1, seconds: 2 },
    push: {
      ...full.push,
      players: 20_000,
      watchers: 1_000,
      connections: 10,
      rates: [250, 1_000],
      watchedRates: [100, 1_000],
      warmupS: 1,
      windowS: 5,
      restS: 2,
    },
  };
}

/** Sorted-set entries Redis holds at most at once in the boards benchmark: the largest round's. */
export function boardsPeakEntries(p: BoardsPlan): number {
  // full state: 7 daily keys + 2 windows x 13 keys, then 9 copies of day 7 (the plain board and 8 also boards);
  // otherwise the 3 keys read, then (the window keys deleted, day 7 renamed) the plain board and its 8 also boards
  return Math.max(...p.sizes.map((n) => (n <= p.fullStateMaxPlayers ? (7 + 2 * 13 + 9) * n : 9 * n)));
}
