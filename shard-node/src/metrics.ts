/**
 * The shard node's metrics (see common/src/metrics.ts), each labelled with the shard: its
 * readiness state (readiness.ts), its lag behind the log per partition, and what the applier
 * did with the records it fetched (applier.ts).
 */
import { Counter, Gauge, metricSet } from "@ladder/common/metrics";

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
      labelNames: ["shard", "state"] as const, registers,
    }),
    lag: new Gauge({ name: "ladder_shard_lag_records", help: "records of the log not yet applied, per partition (at the last heartbeat)", labelNames: ["shard", "partition"] as const, registers }),
    applied: new Counter({ name: "ladder_shard_applied_records_total", help: "records applied to the shard's Redis", labelNames: shard, registers }),
    skipped: new Counter({ name: "ladder_shard_skipped_records_total", help: "records fetched again that the shard had applied already (redelivery), left alone", labelNames: shard, registers }),
    duplicates: new Counter({ name: "ladder_shard_duplicate_records_total", help: "records dropped as retries of an event id applied within the dedup window", labelNames: shard, registers }),
    invalid: new Counter({ name: "ladder_shard_invalid_records_total", help: "records that could not be applied (undecodable or invalid): skipped, logged", labelNames: shard, registers }),
    rewinds: new Counter({ name: "ladder_shard_rewinds_total", help: "partitions rewound to replay records Redis lacks (Redis lost data)", labelNames: shard, registers }),
  };
});

/** The metrics of one shard. */
export class ShardMetrics {
  readonly applied: Counter.Internal;
  readonly skipped: Counter.Internal;
  readonly duplicates: Counter.Internal;
  readonly invalid: Counter.Internal;
  readonly rewinds: Counter.Internal;
  private readonly m: ReturnType<typeof shardNodeMetrics>;

  constructor(readonly shardId: string, registry?: Parameters<typeof shardNodeMetrics>[0]) {
    this.m = shardNodeMetrics(registry);
    const shard = { shard: shardId };
    this.applied = this.m.applied.labels(shard);
    this.skipped = this.m.skipped.labels(shard);
    this.duplicates = this.m.duplicates.labels(shard);
    this.invalid = this.m.invalid.labels(shard);
    this.rewinds = this.m.rewinds.labels(shard);
    for (const c of [this.applied, this.skipped, this.duplicates, this.invalid, this.rewinds]) c.inc(0); // present from the start, at 0
    this.setState("catching_up"); // until the first heartbeat says otherwise
  }

  setState(state: ShardState): void {
    for (const s of SHARD_STATES) this.m.state.set({ shard: this.shardId, state: s }, s === state ? 1 : 0);
  }

  setLag(partition: number, records: number): void {
    this.m.lag.set({ shard: this.shardId, partition: String(partition) }, records);
  }
}
