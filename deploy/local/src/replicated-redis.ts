// The replica layout of the shards' Redis: per shard a primary redis-server and `replicas` replicas of
// it (Redis replication, asynchronous), and `sentinels` Redis Sentinels (3 by default, quorum 2) that
// all watch every shard's primary and decide failovers: when a primary stops answering for
// `downAfterMs`, the Sentinels agree it is down, elect one of them, and it promotes a replica; a
// killed primary that comes back is made a replica of the new one. Nothing here fails over by itself.
// Shard i's primary is watched under `<namePrefix><i>`; the services address it as
// sentinel://<name> with LADDER_SENTINELS (common/src/redis-address.ts).
//
// Data dirs under `dataDir`: redis-<i>/ for shard i's first primary (as without replicas),
// redis-<i>-replica-<j>/ for its replicas, sentinel-<k>/ for the Sentinels.
import { join } from "node:path";
import { Redis } from "ioredis";
import { LAUNCH_BACKOFF, retryUntil } from "@ladder/common/backoff";
import type { Logger } from "@ladder/common/logger";
import { startRedisServer, type RedisServer } from "./redis-server.js";
import { startSentinel, type SentinelServer } from "./sentinel.js";

export interface ReplicatedShard {
  /** The name Sentinel watches the shard's primary under. */
  name: string;
  /** sentinel://<name>: the shard's entry in LADDER_SHARDS. */
  url: string;
  /** The servers as started: `primary` stops being the primary after a failover. */
  primary: RedisServer;
  replicas: RedisServer[];
}

export interface ReplicatedRedis {
  shards: ReplicatedShard[];
  sentinels: SentinelServer[];
  /** LADDER_SENTINELS: the Sentinels' host:port, comma-separated. */
  sentinelList: string;
  /** Stops the Sentinels, then every Redis server. */
  stop(): Promise<void>;
}

export interface ReplicatedRedisOptions {
  shards: number;
  /** Replicas per shard (at least 1). */
  replicas: number;
  /** Sentinels watching every shard (default 3); the quorum is a majority of them. */
  sentinels?: number;
  dataDir: string;
  persist: boolean;
  /** Fixed ports (local cluster); free ones when absent. */
  ports?: { primary(shard: number): number; replica(shard: number, replica: number): number; sentinel(index: number): number };
  /** Prefix of the primaries' names (default "ladder-shard-"). */
  namePrefix?: string;
  /** Sentinel's down-after-milliseconds. */
  downAfterMs: number;
  /** Sentinel's failover-timeout. */
  failoverTimeoutMs: number;
  log: Logger;
  /** How long to wait for the replicas to sync and the Sentinels to know each other (default 60 s). */
  readyTimeoutMs?: number;
}

export async function startReplicatedRedis(o: ReplicatedRedisOptions): Promise<ReplicatedRedis> {
  if (o.replicas < 1) throw new Error("the replica layout needs at least one replica per shard");
  const sentinelCount = o.sentinels ?? 3;
  const quorum = Math.floor(sentinelCount / 2) + 1;
  const names = Array.from({ length: o.shards }, (_, i) => `${o.namePrefix ?? "ladder-shard-"}${i}`);
  const readyTimeoutMs = o.readyTimeoutMs ?? 60_000;
  const started = { servers: [] as RedisServer[], sentinels: [] as SentinelServer[] };
  const track = async <T extends RedisServer | SentinelServer>(list: T[], p: Promise<T>): Promise<T> => {
    const s = await p;
    list.push(s);
    return s;
  };
  try {
    const primaries = await Promise.all(names.map((_, i) =>
      track(started.servers, startRedisServer({ dataDir: join(o.dataDir, `redis-${i}`), port: o.ports?.primary(i), persist: o.persist, replicated: true, log: o.log }))));
    const replicas = await Promise.all(primaries.map((p, i) => Promise.all(Array.from({ length: o.replicas }, (_, j) =>
      track(started.servers, startRedisServer({ dataDir: join(o.dataDir, `redis-${i}-replica-${j + 1}`), port: o.ports?.replica(i, j + 1), persist: o.persist, replicaOf: `127.0.0.1:${p.port}`, log: o.log }))))));
    await Promise.all(replicas.flat().map((r) => waitFor(r.port, `replica on ${r.url} in sync with its primary`, readyTimeoutMs, async (c) => {
      if (!/master_link_status:up/.test(await c.info("replication"))) throw new Error("not in sync yet");
    })));
    const watched = names.map((name, i) => ({ name, address: `127.0.0.1:${primaries[i]!.port}` }));
    const sentinels = await Promise.all(Array.from({ length: sentinelCount }, (_, k) =>
      track(started.sentinels, startSentinel({ dataDir: join(o.dataDir, `sentinel-${k}`), port: o.ports?.sentinel(k), primaries: watched, quorum, downAfterMs: o.downAfterMs, failoverTimeoutMs: o.failoverTimeoutMs, log: o.log }))));
    // a failover needs the Sentinels to know the replicas and each other (they learn it within seconds)
    await Promise.all(sentinels.map((s) => waitFor(s.port, `sentinel ${s.address} knowing every replica and Sentinel`, readyTimeoutMs, async (c) => {
      for (const name of names) {
        const known = (await c.call("SENTINEL", "REPLICAS", name)) as unknown[];
        const peers = (await c.call("SENTINEL", "SENTINELS", name)) as unknown[];
        if (known.length < o.replicas || peers.length < sentinelCount - 1) throw new Error(`${name}: ${known.length} replicas, ${peers.length} other sentinels known`);
        await c.call("SENTINEL", "CKQUORUM", name);
      }
    })));
    o.log.info({ shards: o.shards, replicas: o.replicas, sentinels: sentinels.map((s) => s.address), quorum }, "replicated redis ready");
    return {
      shards: names.map((name, i) => ({ name, url: `sentinel://${name}`, primary: primaries[i]!, replicas: replicas[i]! })),
      sentinels,
      sentinelList: sentinels.map((s) => s.address).join(","),
      stop: () => stopAll(started, o.log),
    };
  } catch (err) {
    await stopAll(started, o.log);
    throw err;
  }
}

async function stopAll(started: { servers: RedisServer[]; sentinels: SentinelServer[] }, log: Logger): Promise<void> {
  // Sentinels first, so none starts a failover while the servers go down
  for (const group of [started.sentinels, started.servers]) {
    const results = await Promise.allSettled(group.map((s) => s.stop()));
    for (const r of results) if (r.status === "rejected") log.debug({ err: r.reason }, "ignored error while stopping redis");
  }
}

/** Polls `check` on a connection to 127.0.0.1:`port` until it passes. */
async function waitFor(port: number, what: string, timeoutMs: number, check: (c: Redis) => Promise<void>): Promise<void> {
  const c = new Redis({ host: "127.0.0.1", port, lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  c.on("error", () => {});
  try {
    await retryUntil(() => check(c), { what, timeoutMs, ...LAUNCH_BACKOFF, initialMs: 50 });
  } finally {
    c.disconnect();
  }
}
