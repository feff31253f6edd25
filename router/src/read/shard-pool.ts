/**
 * The router's view of the shards: a routing table (placement + one ShardReader per
 * shard), built for each placement the router reads (model/src/placement-record.ts), frozen, and
 * swapped whole when a newer placement comes (swap): a query takes the table in force when it
 * starts and reads by it to its end; and a fan-out that asks shards in parallel under
 * a deadline (shard-calls.ts). A shard that errors or misses the deadline fails the whole query
 * with UNAVAILABLE: a rank summed without one shard would be silently wrong.
 *
 * Reads go straight from the router to each shard's Redis as read-only Lua scripts, not
 * through a gRPC hop to the shard node: on this stack one gRPC unary call costs several
 * times a Redis round trip (see loadtest/README.md, "hop cost"), and a rank query needs two
 * rounds (the owner, then the other shards). The shard node still gates reads through its
 * heartbeat key, which every read script checks against this router's stamp of the shard
 * (store identity.ts): a router configured unlike the shards is refused, not answered.
 *
 * A shard with replicas (sentinel://) is read through its ReplicaSet (replicas.ts,
 * replicated-reader.ts): each call goes to the primary or a replica that is current, never to one
 * that lags; primaries() reads the primaries only (reads with a consistency token, watchers'
 * standings). Both are asked again through a failover, then refused with the reason.
 */
import { Redis } from "ioredis";
import type { ClusterPlacement } from "@ladder/model/placement-record";
import { shardOf, slotOf, type Placement } from "@ladder/model/placement";
import type { BoardSpecs } from "@ladder/model/board-spec";
import type { Logger } from "@ladder/platform/logger";
import { parseSentinelUrl } from "@ladder/platform/redis-address";
import { NO_LOGIN, type RedisLogin } from "@ladder/platform/redis-login";
import { auditPrefix, loginOptions, readyWithin, shardStamp, ShardReader } from "@ladder/store";
import { ReplicaSet } from "./replicas.js";
import { PrimaryReader, ReplicatedReader } from "./replicated-reader.js";
import { ShardCalls, type Scope, type ShardReads, type ShardStore } from "./shard-calls.js";

export interface RoutingTable {
  /** The placement's epoch (placement-log.ts). */
  readonly epoch: number;
  /** The placement itself, as read. */
  readonly cluster: ClusterPlacement;
  readonly placement: Placement;
  /** Each shard's Redis address, as the placement gives it. */
  readonly urls: ReadonlyMap<string, string>;
  /** Each shard's Redis connection. */
  readonly connections: ReadonlyMap<string, Redis>;
  /** Each shard's stamp as this router's configuration makes it (store identity.ts). */
  readonly stamps: ReadonlyMap<string, string>;
  /** Stores of the live boards. */
  readonly stores: ReadonlyMap<string, ShardReader>;
  /** Stores of the live boards that read the primaries only (the same as `stores` for a shard without replicas). */
  readonly primaryStores: ReadonlyMap<string, ShardReader>;
  /** Shards with replicas (sentinel://): their primary and replicas (replicas.ts). */
  readonly replicaSets: ReadonlyMap<string, ReplicaSet>;
  /** The live boards' scopes, built once: over `stores`, and over stores that read primaries only (consistency tokens). */
  readonly live: Scope;
  readonly livePrimaries: Scope;
}

export type { Scope } from "./shard-calls.js";

export interface ShardPoolOptions {
  /** The placement to read by first (swap() replaces it). */
  placement: ClusterPlacement;
  topic: string;
  boards: BoardSpecs;
  /** Hashes per slot of the counts of records (LADDER_RECORD_COUNT_BUCKETS): part of each shard's stamp. */
  recordCountBuckets?: number;
  keyPrefix: string;
  /** Longest wait for one shard call. */
  timeoutMs: number;
  /** Shards with replicas: a replica serves while it was current as of at most this long ago (replicas.ts). */
  replicaMaxLagMs?: number;
  /** The router's login to the shards' Redis and Sentinels (its reader user). */
  login?: RedisLogin;
  log?: Logger;
}

/** The routing table in force, shared by a pool and its primaries() pool. */
interface Tables {
  current: RoutingTable;
  /** Connections of shards a newer placement dropped, closed a while after (reads under way finish); each closes at once when asked. */
  readonly retired: Set<{ closeNow(): Promise<void> }>;
}

/** How long a dropped shard's connection stays open after its placement was replaced. */
const RETIRE_AFTER_MS = 10_000;

export class ShardPool implements ShardReads {
  private readonly tables: Tables;
  private readonly o: ShardPoolOptions;
  private readonly keyPrefix: string;
  private readonly timeoutMs: number;
  /** Reads go to primaries only (see primaries()). */
  private readonly primaryOnly: boolean;
  /** Bounds every shard call (shared by the pools over the same shards). */
  private readonly calls: ShardCalls;

  constructor(o: ShardPoolOptions | ShardPool, primaryOnly = false) {
    this.primaryOnly = primaryOnly;
    if (o instanceof ShardPool) {
      this.o = o.o;
      this.tables = o.tables;
      this.calls = o.calls;
    } else {
      this.o = o;
      this.calls = new ShardCalls(o.timeoutMs);
      this.tables = { current: undefined as unknown as RoutingTable, retired: new Set() };
    }
    this.keyPrefix = this.o.keyPrefix;
    this.timeoutMs = this.o.timeoutMs;
    if (!(o instanceof ShardPool)) this.tables.current = this.build(o.placement, undefined);
  }

  private get table(): RoutingTable {
    return this.tables.current;
  }

  /** The login the pool's connections use. */
  get login(): RedisLogin {
    return this.o.login ?? NO_LOGIN;
  }

  /** The epoch of the placement in force. */
  get epoch(): number {
    return this.tables.current.epoch;
  }

  /** The placement in force. */
  get placement(): ClusterPlacement {
    return this.tables.current.cluster;
  }

  /**
   * Reads by `next` from now on (a newer placement): shards it keeps at the same address keep
   * their connections; new ones are connected; dropped ones are closed RETIRE_AFTER_MS later.
   * Queries that started before read by the table they started with.
   */
  swap(next: ClusterPlacement): void {
    const old = this.tables.current;
    if (next.epoch <= old.epoch) return;
    this.tables.current = this.build(next, old);
    const dropped = [...old.connections.keys()].filter((id) => this.tables.current.connections.get(id) !== old.connections.get(id));
    if (dropped.length === 0) return;
    let closed: Promise<void> | undefined;
    const retired = {
      closeNow: () => {
        clearTimeout(timer);
        return (closed ??= closeShards(old, dropped).finally(() => this.tables.retired.delete(retired)));
      },
    };
    const timer = setTimeout(() => void retired.closeNow(), RETIRE_AFTER_MS).unref();
    this.tables.retired.add(retired);
  }

  /**
   * The same shards and connections, read on their primaries only: for reads that carry a
   * consistency token, which wait for offsets applied on the primary (wait-applied.ts). For a
   * shard without replicas it is the one Redis either way.
   */
  primaries(): ShardPool {
    return new ShardPool(this, true);
  }

  private build(cp: ClusterPlacement, reuse: RoutingTable | undefined): RoutingTable {
    const { placement } = cp;
    const o = this.o;
    const connections = new Map<string, Redis>();
    const urls = new Map<string, string>();
    const stamps = new Map<string, string>();
    const stores = new Map<string, ShardReader>();
    const replicaSets = new Map<string, ReplicaSet>();
    const primaryStores = new Map<string, ShardReader>();
    for (const s of cp.shards) {
      const stamp = shardStamp({
        shardId: s.id,
        topic: o.topic,
        numSlots: placement.numSlots,
        slots: placement.slotsOf.get(s.id) ?? [],
        boards: o.boards,
        recordCountBuckets: o.recordCountBuckets,
      });
      const reader = { shardId: s.id, stamp, keyPrefix: this.keyPrefix };
      const kept = reuse?.urls.get(s.id) === s.redisUrl;
      const sentinel = parseSentinelUrl(s.redisUrl);
      // a primary with replicas behind Sentinel: reads spread over the current ones (replicas.ts)
      const set = kept
        ? reuse!.replicaSets.get(s.id)
        : sentinel &&
          new ReplicaSet({
            shardId: s.id,
            url: s.redisUrl,
            sentinel,
            maxLagMs: o.replicaMaxLagMs ?? 1000,
            login: this.login,
            timeoutMs: this.timeoutMs,
            log: o.log,
          });
      // Fail fast while a shard's Redis is unreachable instead of queueing behind it. No auto-pipelining:
      // the readers already send one command per shard per turn (store/src/reader.ts), which ioredis's
      // auto-pipelining only wrapped in a pipeline object of its own each time.
      const redis = kept
        ? reuse!.connections.get(s.id)!
        : set
          ? set.primary
          : new Redis(s.redisUrl, {
              ...loginOptions(s.redisUrl, this.login),
              enableOfflineQueue: false,
              maxRetriesPerRequest: 1,
              connectTimeout: this.timeoutMs,
            });
      if (!set && !kept) redis.on("error", () => {}); // reported per query as UNAVAILABLE
      const primary = set ? new PrimaryReader(set, reader) : new ShardReader({ ...reader, redis });
      if (set) replicaSets.set(s.id, set);
      connections.set(s.id, redis);
      urls.set(s.id, s.redisUrl);
      stamps.set(s.id, stamp);
      stores.set(s.id, set ? new ReplicatedReader(set, reader) : primary);
      primaryStores.set(s.id, primary);
    }
    return Object.freeze({
      epoch: cp.epoch,
      cluster: cp,
      placement,
      urls,
      connections,
      stamps,
      stores,
      primaryStores,
      replicaSets,
      live: scopeOver(placement, stores),
      livePrimaries: scopeOver(placement, primaryStores),
    });
  }

  /** The live boards ("" view) or audit view `view`, over the current routing table. */
  scope(view = ""): Scope {
    const table = this.table;
    if (view === "") return this.primaryOnly ? table.livePrimaries : table.live;
    const viewReader = (id: string, redis: Redis): ShardReader => {
      const o = { shardId: id, stamp: table.stamps.get(id)!, keyPrefix: auditPrefix(this.keyPrefix, view), view };
      const set = table.replicaSets.get(id);
      if (!set) return new ShardReader({ ...o, redis });
      return this.primaryOnly ? new PrimaryReader(set, o) : new ReplicatedReader(set, o);
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
    const waits = [...this.table.connections].map(([id, redis]) =>
      readyWithin(redis, this.timeoutMs).then(
        () => undefined,
        () => id,
      ),
    );
    const down = (await Promise.all(waits)).filter((id): id is string => id !== undefined);
    // and the first look at the replicas, so reads spread from the first one
    await Promise.all(
      [...this.table.replicaSets.values()].map((set) => Promise.race([set.probed, new Promise((r) => setTimeout(r, this.timeoutMs))])),
    );
    return down;
  }

  /** Shard `id`'s connection to its primary (through Sentinel for a shard with replicas) and, with replicas, its ReplicaSet. */
  nodesOf(id: string): { primary: Redis; replicas: ReplicaSet | undefined } | undefined {
    const primary = this.table.connections.get(id);
    return primary && { primary, replicas: this.table.replicaSets.get(id) };
  }

  /** The store of the shard that owns slot (partition) `slot`, on its primary (the applied offsets are the primary's). */
  ownerOfSlot(slot: number): ShardReader {
    return this.table.primaryStores.get(this.table.placement.slotToShard[slot]!)!;
  }

  /** `work`, unless the caller's deadline (ms since epoch; Infinity: none) passes first: then DEADLINE_EXCEEDED. */
  waitUntil<T>(work: Promise<T>, deadlineMs: number): Promise<T> {
    return this.calls.waitUntil(work, deadlineMs);
  }

  /** Runs `fn` on every one of `stores` at once; all must answer before the deadline (shard-calls.ts). */
  fanOut<S extends { shardId: string }, T>(stores: readonly S[], fn: (store: S) => Promise<T>, deadlineMs = Infinity): Promise<T[]> {
    return this.calls.fanOut(stores, fn, deadlineMs);
  }

  /** Runs `fn` on one shard under the per-shard timeout and the caller's deadline (shard-calls.ts). */
  call<S extends { shardId: string }, T>(store: S, fn: (store: S) => Promise<T>, deadlineMs = Infinity): Promise<T> {
    return this.calls.call(store, fn, deadlineMs);
  }

  async close(): Promise<void> {
    await closeShards(this.table, [...this.table.connections.keys()]);
    await Promise.all([...this.tables.retired].map((r) => r.closeNow())); // not RETIRE_AFTER_MS after the last move
  }
}

/** Closes the connections (and replica sets) of `ids` in `table`. */
async function closeShards(table: RoutingTable, ids: readonly string[]): Promise<void> {
  await Promise.all(
    ids.map((id) => {
      const set = table.replicaSets.get(id);
      if (set) return set.close();
      const c = table.connections.get(id)!;
      return c.quit().then(
        () => undefined,
        () => c.disconnect(),
      );
    }),
  );
}

/** A scope over `stores` (shard id → store) by `placement`, with each owner's "other shards" listed once. */
export function scopeOver<S extends ShardStore>(placement: Placement, stores: ReadonlyMap<string, S>): Scope<S> {
  const all = Object.freeze([...stores.values()]);
  const others = new Map(all.map((owner) => [owner, Object.freeze(all.filter((s) => s !== owner))]));
  return Object.freeze({
    ownerOf: (playerId: string) => stores.get(shardOf(placement, playerId))!,
    slotOf: (playerId: string) => slotOf(playerId, placement.numSlots),
    stores: all,
    othersOf: (owner: S) => others.get(owner)!,
  });
}
