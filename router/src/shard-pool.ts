/**
 * The router's view of the shards: a routing table (placement + one ShardReader per
 * shard), built once at start and frozen (nothing replaces it while the router runs; see
 * placement.ts), and a fan-out that asks shards in parallel under
 * a deadline. A shard that errors or misses the deadline fails the whole query with
 * UNAVAILABLE: a rank summed without one shard would be silently wrong.
 *
 * Reads go straight from the router to each shard's Redis as read-only Lua scripts, not
 * through a gRPC hop to the shard node: on this stack one gRPC unary call costs several
 * times a Redis round trip (see loadtest/README.md, "hop cost"), and a rank query needs two
 * rounds (the owner, then the other shards). The shard node still gates reads through its
 * heartbeat key, which every read script checks against this router's stamp of the shard
 * (store identity.ts): a router configured unlike the shards is refused, not answered.
 *
 * A shard with replicas (sentinel://) is read through its ReplicaSet (replicas.ts): each call
 * goes to the primary or a replica that is current, never to one that lags; primaries() reads
 * the primaries only (reads with a consistency token).
 */
import { Redis } from "ioredis";
import type { ShardAddress } from "@ladder/common/config";
import { Code, LadderError, unavailable, deadlineExceeded } from "@ladder/common/errors";
import { secondsSince } from "@ladder/common/metrics";
import { buildPlacement, shardOf, type Placement } from "@ladder/common/placement";
import type { BoardSpecs } from "@ladder/common/board-spec";
import type { Logger } from "@ladder/common/logger";
import { parseSentinelUrl } from "@ladder/common/redis-address";
import { auditPrefix, readyWithin, shardStamp, ShardReader } from "@ladder/store";
import { Deadlines } from "./deadlines.js";
import { ReplicaSet, ReplicatedReader } from "./replicas.js";
import { codeName, routerMetrics } from "./metrics.js";

export interface RoutingTable {
  readonly placement: Placement;
  /** Each shard's Redis connection. */
  readonly connections: ReadonlyMap<string, Redis>;
  /** Each shard's stamp as this router's configuration makes it (store identity.ts). */
  readonly stamps: ReadonlyMap<string, string>;
  /** Stores of the live boards. */
  readonly stores: ReadonlyMap<string, ShardReader>;
  /** Shards with replicas (sentinel://): their primary and replicas (replicas.ts). */
  readonly replicaSets: ReadonlyMap<string, ReplicaSet>;
  /** The live boards' scopes, built once: over `stores`, and over stores that read primaries only (consistency tokens). */
  readonly live: Scope;
  readonly livePrimaries: Scope;
}

/** Where a query reads: the live boards, or an audit view (see AdminService.RebuildShards). */
export interface Scope {
  ownerOf(playerId: string): ShardReader;
  readonly stores: readonly ShardReader[];
  /** Every store but `owner` (a store of this scope). */
  othersOf(owner: ShardReader): readonly ShardReader[];
}

export interface ShardPoolOptions {
  shards: readonly ShardAddress[];
  numSlots: number;
  topic: string;
  boards: BoardSpecs;
  keyPrefix: string;
  /** Longest wait for one shard call. */
  timeoutMs: number;
  /** Shards with replicas: a replica serves while it was current as of at most this long ago (replicas.ts). */
  replicaMaxLagMs?: number;
  log?: Logger;
}

export class ShardPool {
  private readonly table: RoutingTable;
  private readonly keyPrefix: string;
  private readonly timeoutMs: number;
  /** Reads go to primaries only (see primaries()). */
  private readonly primaryOnly: boolean;
  /** Bounds every shard call (shared by the pools over the same shards). */
  private readonly deadlines: Deadlines;

  constructor(o: ShardPoolOptions | ShardPool, primaryOnly = false) {
    this.primaryOnly = primaryOnly;
    if (o instanceof ShardPool) {
      this.keyPrefix = o.keyPrefix;
      this.timeoutMs = o.timeoutMs;
      this.table = o.table;
      this.deadlines = o.deadlines;
    } else {
      this.deadlines = new Deadlines();
      this.keyPrefix = o.keyPrefix;
      this.timeoutMs = o.timeoutMs;
      this.table = this.build(o);
    }
  }

  /**
   * The same shards and connections, read on their primaries only: for reads that carry a
   * consistency token, which wait for offsets applied on the primary (wait-applied.ts). For a
   * shard without replicas it is the one Redis either way.
   */
  primaries(): ShardPool {
    return new ShardPool(this, true);
  }

  private build(o: ShardPoolOptions): RoutingTable {
    const placement = buildPlacement(o.shards.map((s) => s.id), o.numSlots);
    const connections = new Map<string, Redis>();
    const stamps = new Map<string, string>();
    const stores = new Map<string, ShardReader>();
    const replicaSets = new Map<string, ReplicaSet>();
    const primaryStores = new Map<string, ShardReader>();
    for (const s of o.shards) {
      const stamp = shardStamp({ shardId: s.id, topic: o.topic, numSlots: o.numSlots, slots: placement.slotsOf.get(s.id) ?? [], boards: o.boards });
      const reader = { shardId: s.id, stamp, keyPrefix: this.keyPrefix };
      const sentinel = parseSentinelUrl(s.redisUrl);
      // a primary with replicas behind Sentinel: reads spread over the current ones (replicas.ts)
      const set = sentinel && new ReplicaSet({ shardId: s.id, url: s.redisUrl, sentinel, maxLagMs: o.replicaMaxLagMs ?? 1000, timeoutMs: this.timeoutMs, log: o.log });
      // Fail fast while a shard's Redis is unreachable instead of queueing behind it.
      const redis = set ? set.primary : new Redis(s.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: this.timeoutMs, enableAutoPipelining: true });
      if (!set) redis.on("error", () => {}); // reported per query as UNAVAILABLE
      const primary = new ShardReader({ ...reader, redis });
      if (set) replicaSets.set(s.id, set);
      connections.set(s.id, redis);
      stamps.set(s.id, stamp);
      stores.set(s.id, set ? new ReplicatedReader(set, reader) : primary);
      primaryStores.set(s.id, primary);
    }
    return Object.freeze({ placement, connections, stamps, stores, replicaSets, live: scopeOver(placement, stores), livePrimaries: scopeOver(placement, primaryStores) });
  }

  /** The live boards ("" view) or audit view `view`, over the current routing table. */
  scope(view = ""): Scope {
    const table = this.table;
    if (view === "") return this.primaryOnly ? table.livePrimaries : table.live;
    const viewReader = (id: string, redis: Redis): ShardReader => {
      const o = { shardId: id, stamp: table.stamps.get(id)!, keyPrefix: auditPrefix(this.keyPrefix, view), view };
      const set = table.replicaSets.get(id);
      return set && !this.primaryOnly ? new ReplicatedReader(set, o) : new ShardReader({ ...o, redis });
    };
    return scopeOver(table.placement, new Map([...table.connections].map(([id, redis]) => [id, viewReader(id, redis)])));
  }

  /**
   * Waits until every shard's connection is ready, or `timeoutMs` passed: so a router that
   * says it is listening does not fail its first calls while connecting. A shard that is down
   * is not waited for longer (its reads answer UNAVAILABLE until it is back). Returns the ids
   * of the shards not connected.
   */
  async connected(): Promise<string[]> {
    const waits = [...this.table.connections].map(([id, redis]) => readyWithin(redis, this.timeoutMs).then(() => undefined, () => id));
    const down = (await Promise.all(waits)).filter((id): id is string => id !== undefined);
    // and the first look at the replicas, so reads spread from the first one
    await Promise.all([...this.table.replicaSets.values()].map((set) => Promise.race([set.probed, new Promise((r) => setTimeout(r, this.timeoutMs))])));
    return down;
  }

  /** The store of the shard that owns slot (partition) `slot`. */
  ownerOfSlot(slot: number): ShardReader {
    return this.table.stores.get(this.table.placement.slotToShard[slot]!)!;
  }

  /** `work`, unless the caller's deadline (ms since epoch; Infinity: none) passes first: then DEADLINE_EXCEEDED. */
  waitUntil<T>(work: Promise<T>, deadlineMs: number): Promise<T> {
    if (deadlineMs === Infinity) return work;
    return this.deadlines.within(work, deadlineMs - Date.now(), () => deadlineExceeded("the deadline passed while the shards were read"));
  }

  /** Runs `fn` on every one of `stores` at once; all must answer before the deadline. */
  async fanOut<T>(stores: readonly ShardReader[], fn: (store: ShardReader) => Promise<T>, deadlineMs = Infinity): Promise<T[]> {
    return Promise.all(stores.map((s) => this.call(s, fn, deadlineMs)));
  }

  /** Runs `fn` on one shard under the per-shard timeout and the caller's deadline; times it by outcome (metrics.ts). */
  async call<T>(store: ShardReader, fn: (store: ShardReader) => Promise<T>, deadlineMs = Infinity): Promise<T> {
    const budget = Math.min(this.timeoutMs, deadlineMs - Date.now());
    if (budget <= 0) throw deadlineExceeded("deadline passed before the shards were asked");
    const startedAt = performance.now();
    let code: number = Code.OK;
    try {
      return await this.deadlines.within(fn(store), budget, () => unavailable(`${store.shardId}: no answer within ${Math.round(budget)} ms`));
    } catch (err) {
      code = err instanceof LadderError ? err.code : Code.UNAVAILABLE;
      if (err instanceof LadderError) throw err;
      throw unavailable(`${store.shardId}: ${(err as Error).message}`, err);
    } finally {
      routerMetrics().shardCallOf(store.shardId, codeName(code)).observe(secondsSince(startedAt));
    }
  }

  async close(): Promise<void> {
    const { connections, replicaSets } = this.table;
    await Promise.all([
      ...[...connections].filter(([id]) => !replicaSets.has(id)).map(([, c]) => c.quit().catch(() => c.disconnect())),
      ...[...replicaSets.values()].map((set) => set.close()),
    ]);
  }
}

/** A scope over `stores` (shard id → store), with each owner's "other shards" listed once. */
function scopeOver(placement: Placement, stores: ReadonlyMap<string, ShardReader>): Scope {
  const all = Object.freeze([...stores.values()]);
  const others = new Map(all.map((owner) => [owner, Object.freeze(all.filter((s) => s !== owner))]));
  return Object.freeze({
    ownerOf: (playerId: string) => stores.get(shardOf(placement, playerId))!,
    stores: all,
    othersOf: (owner: ShardReader) => others.get(owner)!,
  });
}
