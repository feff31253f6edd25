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
    /** Records per produce request of the raw Kafka runs: the call's batch, and ingest's largest group commit. */
    rawKafkaBatches: number[];
  };
  /** Records replayed; shard counts to replay into; without and with event ids (the apply script's dedup path). */
  rebuild: { records: number; shards: number[]; eventIds: boolean[] };
  /** One shard rebuilt from its whole log and from its snapshot plus the tail (writes/snapshot-bench.ts). */
  snapshot: SnapshotPlan;
  /** A daily board with two 7-day windows, on one shard (boards/boards-bench.ts). */
  boards: BoardsPlan;
  /** Reads of many players, boards and deep pages against their one-at-a-time equivalents, and the router against its health check, on a real cluster (batch/batch-bench.ts). */
  batch: BatchPlan;
  /** Exact vs approximate rank on boards with histograms, on a real cluster (approx/approx-bench.ts). */
  approx: ApproxPlan;
  /** Push streams: watchers held, write steps with and without them, push latency (push/push-bench.ts). */
  push: PushPlan;
  /** Random seed of every synthetic player and query. */
  seed: number;
}

export interface SnapshotPlan {
  /** Players of the shard, and records per player in its log (INCREMENTs, one round each). */
  players: number;
  perPlayer: number;
  /** Records after the snapshot: the tail the rebuild from it replays. */
  tail: number;
  /** Records on each side of the snapshot that carry event ids (dedup sets in the snapshot). */
  ids: number;
}

export interface BoardsPlan {
  /** Existing players of each round, ascending. */
  sizes: number[];
  /**
   * Rounds up to this many players hold the windowed board's whole state after 7 days (7 daily
   * keys, 13 keys per window: memory, reads and the windowed write); larger ones only the three
   * keys read and the plain boards written.
   */
  fullStateMaxPlayers: number;
  reads: ClosedLoopPlan & { alone: number; topLimit: number; aroundRadius: number };
  writes: { warmupMs: number; durationMs: number; inFlight: number };
  /** Players whose pre-filled entries are checked against the apply path, per round. */
  checkedPlayers: number;
}

export interface BatchPlan {
  /** Players seeded through Kafka on the all-time board. */
  players: number;
  /** Players of the daily board (a subset of the seeded ones), written through ingest on 2 days. */
  dailyPlayers: number;
  /** Players per GetRanks. */
  asked: number;
  /** h2load: rounds of every question, seconds per run, connections x streams. */
  rounds: number;
  seconds: number;
  connections: number;
  streams: number;
  /** Node client: repetitions per variant per round of the 100 ranks and of the 5 standings. */
  rankReps: number;
  standingReps: number;
  /** GetRank calls in flight in the concurrent variants of the 100 ranks. */
  inFlight: number[];
  /** Page sizes measured, and the page size of the walk that reaches the deep cursors. */
  pageLimits: number[];
  walkLimit: number;
  /** Node client: sequential calls per page measured (latency p50 / p99). */
  pageCalls: number;
  /** Updates per SubmitScores and calls in flight while writing the daily board. */
  writeBatch: number;
  writeInFlight: number;
}

export interface ApproxPlan {
  /** Players seeded through Kafka on each board (the same players on both). */
  players: number;
  /** Histogram bounds of each board (one board per entry), at most 255. */
  boundCounts: number[];
  /** Players checked on each board (exact vs approximate), whose figures make the accuracy. */
  checkedPlayers: number;
  /** Node client: calls of each kind on each board, one at a time. */
  nodeCalls: number;
  /** h2load: rounds of every question, seconds per run, connections x streams. */
  rounds: number;
  seconds: number;
  connections: number;
  streams: number;
}

export interface PushPlan {
  /** Players seeded through Kafka. */
  players: number;
  /** WatchPlayer streams (distinct players drawn uniformly), WatchTop streams and their limit, over this many HTTP/2 connections. */
  watchers: number;
  tops: number;
  topLimit: number;
  connections: number;
  /** Every stream's interval_ms (the API's default is 250). */
  intervalMs: number;
  /** Write steps (updates/s), ascending, without watchers and with the WatchTop streams alone (the shards' change streams on). */
  rates: number[];
  /** Write steps (updates/s), ascending, with every watcher held: until one is not sustained. */
  watchedRates: number[];
  warmupS: number;
  windowS: number;
  /** Seconds of rest over which resting CPU is read. */
  restS: number;
  /** Updates per SubmitScores; INCREMENT of 1..incrementMax or SET (setShare) of random unwatched players; ownShare of them to watched players, overtakeShare passing one. */
  mix: { batch: number; incrementMax: number; setShare: number; ownShare: number; overtakeShare: number };
  probeTimeoutS: number;
}

const SECOND = 1000;
/** Calls a window holds at least, by default: fewer make no figure. */
const MIN_CALLS = 30;
/** Bytes of shared_buffers per row of the largest PostgreSQL table: its table and indexes take 106 (measured), plus room. */
const PG_BUFFER_BYTES_PER_ROW = 160;

/** What the full and quick push plans share. */
const PUSH = {
  tops: 5,
  topLimit: 10,
  intervalMs: 250,
  mix: { batch: 10, incrementMax: 100, setShare: 0.02, ownShare: 0.25, overtakeShare: 0.05 },
  probeTimeoutS: 10,
};

/** A closed loop of `concurrency` for `warmupMs` + a window of `durationMs` (longer for minCalls, up to maxDurationMs: 3x by default). */
function loop(
  concurrency: number,
  warmupMs: number,
  durationMs: number,
  more: Partial<Pick<ClosedLoopPlan, "minCalls" | "maxDurationMs">> = {},
): ClosedLoopPlan {
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
    rank: quick
      ? loop(c, 0.5 * SECOND, 1.5 * SECOND, { minCalls: 2 * c, maxDurationMs: 20 * SECOND })
      : loop(c, 2 * SECOND, 10 * SECOND, { minCalls: 6 * c, maxDurationMs: 180 * SECOND }),
    rankPerCore: quick ? loop(2, 0.5 * SECOND, 1.5 * SECOND) : loop(2, 2 * SECOND, 10 * SECOND, { maxDurationMs: 60 * SECOND }), // the project's machine: 2 cores
  };
  if (quick) {
    return {
      quick,
      sizes,
      shardCounts: [1, 2, 4],
      reads,
      postgres,
      ingest: {
        ...loop(8, 1 * SECOND, 3 * SECOND),
        batch: 1000,
        shards: 3,
        players: 100_000,
        raw: loop(8, 0.5 * SECOND, 1.5 * SECOND),
        rawKafkaBatches: [1000, 5000],
      },
      rebuild: { records: 50_000, shards: [1, 3], eventIds: [false, true] },
      snapshot: { players: 20_000, perPlayer: 5, tail: 20_000, ids: 2_000 },
      boards: {
        sizes: [20_000, 100_000],
        fullStateMaxPlayers: 20_000,
        checkedPlayers: 50,
        reads: { ...loop(8, 0.3 * SECOND, 1 * SECOND), alone: 50, topLimit: 10, aroundRadius: 5 },
        writes: { warmupMs: 0.5 * SECOND, durationMs: 1.5 * SECOND, inFlight: 4 },
      },
      batch: {
        players: 20_000,
        dailyPlayers: 5_000,
        asked: 100,
        rounds: 1,
        seconds: 2,
        connections: 4,
        streams: 16,
        rankReps: 3,
        standingReps: 20,
        inFlight: [10, 100],
        pageLimits: [10, 50, 100],
        walkLimit: 1000,
        pageCalls: 30,
        writeBatch: 1000,
        writeInFlight: 4,
      },
      approx: {
        players: 20_000,
        boundCounts: [16, 255],
        checkedPlayers: 300,
        nodeCalls: 200,
        rounds: 1,
        seconds: 2,
        connections: 4,
        streams: 16,
      },
      push: {
        ...PUSH,
        players: 20_000,
        watchers: 1_000,
        connections: 10,
        rates: [250, 1_000],
        watchedRates: [100, 1_000],
        warmupS: 1,
        windowS: 5,
        restS: 2,
      },
      seed: 1,
    };
  }
  return {
    quick,
    sizes,
    shardCounts: [1, 2, 4],
    reads,
    postgres,
    ingest: {
      ...loop(8, 3 * SECOND, 15 * SECOND),
      batch: 1000,
      shards: 3,
      players: 1_000_000,
      raw: loop(8, 2 * SECOND, 10 * SECOND),
      rawKafkaBatches: [1000, 5000], // 5000: GroupCommitProducer's cap
    },
    rebuild: { records: 1_000_000, shards: [1, 3], eventIds: [false, true] },
    snapshot: { players: 1_000_000, perPlayer: 20, tail: 1_000_000, ids: 100_000 }, // the tail: LADDER_SNAPSHOT_RECORDS' default
    boards: {
      sizes: [1_000_000, 10_000_000],
      fullStateMaxPlayers: 1_000_000,
      checkedPlayers: 300,
      reads: { ...loop(16, 1 * SECOND, 3 * SECOND), alone: 300, topLimit: 10, aroundRadius: 5 },
      writes: { warmupMs: 1.5 * SECOND, durationMs: 5 * SECOND, inFlight: 4 },
    },
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
    push: {
      ...PUSH,
      players: 1_000_000,
      watchers: 10_000,
      connections: 100,
      rates: [250, 500, 1_000, 2_000, 4_000],
      watchedRates: [10, 25, 50, 100, 250],
      warmupS: 3,
      windowS: 15,
      restS: 5,
    },
    seed: 1,
  };
}

/** Sorted-set entries Redis holds at most at once in the boards benchmark: the largest round's. */
export function boardsPeakEntries(p: BoardsPlan): number {
  // full state: 7 daily keys + 2 windows x 13 keys, then 9 copies of day 7 (the plain board and 8 also boards);
  // otherwise the 3 keys read, then (the window keys deleted, day 7 renamed) the plain board and its 8 also boards
  return Math.max(...p.sizes.map((n) => (n <= p.fullStateMaxPlayers ? (7 + 2 * 13 + 9) * n : 9 * n)));
}
