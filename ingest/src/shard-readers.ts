/**
 * The shards' readers of the placement in force, for what ingest reads of the shards: rank reports
 * (rank-reports.ts) and their lag (lag-admission.ts). One connection per shard and address, kept
 * across placements; the readers are built again when the placement's epoch changes. Reads go to
 * the shards' primaries (what was just written is applied there first).
 */
import type { Redis } from "ioredis";
import type { Config } from "@ladder/platform/config";
import type { Placement } from "@ladder/model/placement";
import type { ClusterPlacement } from "@ladder/model/placement-record";
import { openRedis, shardStamp, ShardReader } from "@ladder/store";

/** The readers of one placement. */
export interface ShardTable {
  readonly epoch: number;
  readonly placement: Placement;
  readonly readers: ReadonlyMap<string, ShardReader>;
}

export class ShardReaders {
  private table: ShardTable | undefined;
  /** Connections by "<shard id> <address>", kept across placements. */
  private readonly connections = new Map<string, Redis>();

  constructor(
    private readonly config: Pick<Config, "scoreTopic" | "boards" | "recordCountBuckets" | "keyPrefix" | "redisLogin">,
    private readonly placement: () => ClusterPlacement,
  ) {}

  /** The readers of the placement in force (built again when it changed). */
  current(): ShardTable {
    const p = this.placement();
    if (this.table?.epoch === p.epoch) return this.table;
    const readers = new Map<string, ShardReader>();
    for (const s of p.shards) {
      const key = `${s.id} ${s.redisUrl}`;
      let redis = this.connections.get(key);
      if (!redis) {
        redis = openRedis(s.redisUrl, { enableOfflineQueue: true, maxRetriesPerRequest: 1, lazyConnect: true }, this.config.redisLogin);
        redis.on("error", () => {}); // reported per call
        this.connections.set(key, redis);
      }
      const stamp = shardStamp({
        shardId: s.id,
        topic: this.config.scoreTopic,
        numSlots: p.placement.numSlots,
        slots: p.placement.slotsOf.get(s.id) ?? [],
        boards: this.config.boards,
        recordCountBuckets: this.config.recordCountBuckets,
      });
      readers.set(s.id, new ShardReader({ shardId: s.id, stamp, redis, keyPrefix: this.config.keyPrefix }));
    }
    return (this.table = { epoch: p.epoch, placement: p.placement, readers });
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.quit().catch(() => c.disconnect())));
  }
}
