/**
 * The shard node's metrics (see platform/src/metrics.ts), each labelled with the shard: its
 * readiness state (readiness.ts), its lag behind the log per partition, what the applier
 * did with the records it fetched (applier.ts), and its snapshots (snapshots.ts).
 */
import { Counter, Gauge, Histogram, LATENCY_BUCKETS, metricSet } from "@ladder/platform/metrics";

/** How a snapshot attempt ended. */
export const SNAPSHOT_OUTCOMES = ["taken", "skipped", "failed"] as const;
export type SnapshotOutcome = (typeof SNAPSHOT_OUTCOMES)[number];
/** Seconds buckets for snapshot steps (a read of millions of players takes seconds). */
const SNAPSHOT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** What readiness.ts's heartbeat last told readers. */
export const SHARD_STATES = ["serving", "catching_up", "withdrawn"] as const;
export type ShardState = (typeof SHARD_STATES)[number];

export const shardNodeMetrics = metricSet((registry) => {
  const registers = [registry];
  const shard = ["shard"] as const;
  return {
    state: new Gauge({
      name: "ladder_shard_state",
      help: "1 for the shard's readiness state, 0 for the others: serving (reads answered), catching_up (after a start, a rewind or lost data: reads refused until caught up), withdrawn (stopped serving: stalled or too far behind)",
      labelNames: ["shard", "state"] as const,
      registers,
    }),
    lag: new Gauge({
      name: "ladder_shard_lag_records",
      help: "records of the log not yet applied, per partition (at the last heartbeat)",
      labelNames: ["shard", "partition"] as const,
      registers,
    }),
    applied: new Counter({
      name: "ladder_shard_applied_records_total",
      help: "records applied to the shard's Redis",
      labelNames: shard,
      registers,
    }),
    skipped: new Counter({
      name: "ladder_shard_skipped_records_total",
      help: "records fetched again that the shard had applied already (redelivery), left alone",
      labelNames: shard,
      registers,
    }),
    duplicates: new Counter({
      name: "ladder_shard_duplicate_records_total",
      help: "records dropped as retries of an event id applied within the dedup window",
      labelNames: shard,
      registers,
    }),
    invalid: new Counter({
      name: "ladder_shard_invalid_records_total",
      help: "records that could not be applied (undecodable or invalid): skipped, logged",
      labelNames: shard,
      registers,
    }),
    applyDelay: new Histogram({
      name: "ladder_shard_apply_delay_seconds",
      help: "per partition batch applied (one apply-script call applies the batches of a turn), from its last record's timestamp (when ingest made it, on ingest's clock) until it was applied: what a write waits between ingest and the shard's Redis",
      labelNames: shard,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    rewinds: new Counter({
      name: "ladder_shard_rewinds_total",
      help: "partitions rewound to replay records Redis lacks (Redis lost data)",
      labelNames: shard,
      registers,
    }),
    snapshots: new Counter({
      name: "ladder_shard_snapshots_total",
      help: "snapshot attempts by outcome: taken (written to Kafka), skipped (nothing new, or not serving), failed (Kafka or Redis error; retried later)",
      labelNames: ["shard", "outcome"] as const,
      registers,
    }),
    snapshotSeconds: new Histogram({
      name: "ladder_shard_snapshot_seconds",
      help: "time of each step of the snapshots taken: read (the shard read page by page while Redis serves), longest_call (the longest single Redis call of that read), publish (written to Kafka)",
      labelNames: ["shard", "step"] as const,
      buckets: SNAPSHOT_BUCKETS,
      registers,
    }),
    snapshotPlayers: new Gauge({
      name: "ladder_shard_snapshot_players",
      help: "players (board entries) in the newest snapshot this node took or loaded",
      labelNames: shard,
      registers,
    }),
  };
});

/** The metrics of one shard. */
export class ShardMetrics {
  readonly applied: Counter.Internal;
  readonly skipped: Counter.Internal;
  readonly duplicates: Counter.Internal;
  readonly invalid: Counter.Internal;
  readonly rewinds: Counter.Internal;
  readonly applyDelay: Histogram.Internal<"shard">;
  private readonly m: ReturnType<typeof shardNodeMetrics>;

  constructor(
    readonly shardId: string,
    registry?: Parameters<typeof shardNodeMetrics>[0],
  ) {
    this.m = shardNodeMetrics(registry);
    const shard = { shard: shardId };
    this.applied = this.m.applied.labels(shard);
    this.skipped = this.m.skipped.labels(shard);
    this.duplicates = this.m.duplicates.labels(shard);
    this.invalid = this.m.invalid.labels(shard);
    this.rewinds = this.m.rewinds.labels(shard);
    this.applyDelay = this.m.applyDelay.labels(shard);
    for (const c of [this.applied, this.skipped, this.duplicates, this.invalid, this.rewinds]) c.inc(0); // present from the start, at 0
    for (const outcome of SNAPSHOT_OUTCOMES) this.m.snapshots.inc({ shard: shardId, outcome }, 0);
    this.setState("catching_up"); // until the first heartbeat says otherwise
  }

  setState(state: ShardState): void {
    for (const s of SHARD_STATES) this.m.state.set({ shard: this.shardId, state: s }, s === state ? 1 : 0);
  }

  /** A snapshot attempt ended; for one taken, its steps' durations (ms) and its players. */
  snapshot(outcome: SnapshotOutcome, taken?: { readMs: number; longestCallMs: number; publishMs: number; players: number }): void {
    this.m.snapshots.inc({ shard: this.shardId, outcome });
    if (!taken) return;
    for (const [step, ms] of [
      ["read", taken.readMs],
      ["longest_call", taken.longestCallMs],
      ["publish", taken.publishMs],
    ] as const)
      this.m.snapshotSeconds.observe({ shard: this.shardId, step }, ms / 1000);
    this.m.snapshotPlayers.set({ shard: this.shardId }, taken.players);
  }

  /** The newest snapshot this node loaded has `players` players. */
  setSnapshotPlayers(players: number): void {
    this.m.snapshotPlayers.set({ shard: this.shardId }, players);
  }

  setLag(partition: number, records: number): void {
    this.m.lag.set({ shard: this.shardId, partition: String(partition) }, records);
  }
}
