// The replica layout of the shards' Redis: per shard a primary redis-server and `replicas` replicas of
// it (Redis replication, asynchronous), and `sentinels` Redis Sentinels (3 by default, quorum 2) that
// all watch every shard's primary and decide failovers: when a primary stops answering for
// `downAfterMs`, the Sentinels agree it is down, elect one of them, and it promotes a replica; a
// killed primary that comes back is made a replica of the new one. Nothing here fails over by itself.
// Shard i's primary is watched under `<namePrefix><i>`; the services address it as
// sentinel://<name> with LADDER_SENTINELS (platform/src/redis-address.ts).
//
// Data dirs under `dataDir`: redis-<i>/ for shard i's first primary (as without replicas),
// redis-<i>-replica-<j>/ for its replicas, sentinel-<k>/ for the Sentinels.
import { join } from "node:path";
import { Redis } from "ioredis";
import { LAUNCH_BACKOFF, retryUntil, sleep } from "@ladder/platform/backoff";
import type { Logger } from "@ladder/platform/logger";
import type { LocalRedisSecurity, Login } from "./redis-credentials.js";
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
  /** Stops the Sentinels, then every Redis server (as first started: the launcher's supervisor stops restarted ones). */
  stop(): Promise<void>;
  /**
   * Starts `server` (a shard's primary or replica, as first started) again after it died, on its port
   * and data dir: as a replica of the primary the Sentinels name now. While they still name this
   * server (they call a primary down only after `downAfterMs`, then fail over), it waits for them to
   * name another, up to 2 × downAfterMs + 5 s; if none is named by then (no replica could take over),
   * it starts as the primary, empty, and the shard node refills it from the log.
   */
  restartServer(server: RedisServer): Promise<RedisServer>;
  /** Starts Sentinel `index` again on its port, watching each shard's primary as the other Sentinels name it now. */
  restartSentinel(index: number): Promise<SentinelServer>;
}

export interface ReplicatedRedisOptions {
  shards: number;
  /** Replicas per shard (at least 1). */
  replicas: number;
  /** Sentinels watching every shard (default 3); the quorum is a majority of them. */
  sentinels?: number;
  dataDir: string;
  persist: boolean;
  /** Back every server's memory with transparent huge pages (redis-server.ts). */
  hugePages?: boolean;
  /** Fixed ports (local cluster); free ones when absent. */
  ports?: { primary(shard: number): number; replica(shard: number, replica: number): number; sentinel(index: number): number };
  /** Prefix of the primaries' names (default "ladder-shard-"). */
  namePrefix?: string;
  /** Sentinel's down-after-milliseconds. */
  downAfterMs: number;
  /** Sentinel's failover-timeout. */
  failoverTimeoutMs: number;
  log: Logger;
  /** Every Redis and Sentinel runs with these ACL users (redis-credentials.ts). */
  security?: LocalRedisSecurity;
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
    const primaries = await Promise.all(
      names.map((_, i) =>
        track(
          started.servers,
          startRedisServer({
            dataDir: join(o.dataDir, `redis-${i}`),
            port: o.ports?.primary(i),
            persist: o.persist,
            hugePages: o.hugePages,
            replicated: true,
            security: o.security,
            log: o.log,
          }),
        ),
      ),
    );
    const replicas = await Promise.all(
      primaries.map((p, i) =>
        Promise.all(
          Array.from({ length: o.replicas }, (_, j) =>
            track(
              started.servers,
              startRedisServer({
                dataDir: join(o.dataDir, `redis-${i}-replica-${j + 1}`),
                port: o.ports?.replica(i, j + 1),
                persist: o.persist,
                hugePages: o.hugePages,
                replicaOf: `127.0.0.1:${p.port}`,
                security: o.security,
                log: o.log,
              }),
            ),
          ),
        ),
      ),
    );
    await Promise.all(
      replicas.flat().map((r) =>
        waitFor(r.port, o.security?.admin, `replica on ${r.url} in sync with its primary`, readyTimeoutMs, async (c) => {
          if (!/master_link_status:up/.test(await c.info("replication"))) throw new Error("not in sync yet");
        }),
      ),
    );
    const watched = names.map((name, i) => ({ name, address: `127.0.0.1:${primaries[i]!.port}` }));
    const sentinels = await Promise.all(
      Array.from({ length: sentinelCount }, (_, k) =>
        track(
          started.sentinels,
          startSentinel({
            dataDir: join(o.dataDir, `sentinel-${k}`),
            port: o.ports?.sentinel(k),
            primaries: watched,
            quorum,
            downAfterMs: o.downAfterMs,
            failoverTimeoutMs: o.failoverTimeoutMs,
            security: o.security,
            log: o.log,
          }),
        ),
      ),
    );
    // a failover needs the Sentinels to know the replicas and each other (they learn it within seconds)
    await Promise.all(
      sentinels.map((s) =>
        waitFor(s.port, o.security?.sentinel, `sentinel ${s.address} knowing every replica and Sentinel`, readyTimeoutMs, async (c) => {
          for (const name of names) {
            const known = (await c.call("SENTINEL", "REPLICAS", name)) as unknown[];
            const peers = (await c.call("SENTINEL", "SENTINELS", name)) as unknown[];
            if (known.length < o.replicas || peers.length < sentinelCount - 1)
              throw new Error(`${name}: ${known.length} replicas, ${peers.length} other sentinels known`);
            await c.call("SENTINEL", "CKQUORUM", name);
          }
        }),
      ),
    );
    o.log.info({ shards: o.shards, replicas: o.replicas, sentinels: sentinels.map((s) => s.address), quorum }, "replicated redis ready");
    const shards = names.map((name, i) => ({ name, url: `sentinel://${name}`, primary: primaries[i]!, replicas: replicas[i]! }));
    return {
      shards,
      sentinels,
      sentinelList: sentinels.map((s) => s.address).join(","),
      stop: () => stopAll(started, o.log),
      ...restarts(
        o,
        shards,
        sentinels.map((s) => s.port),
        quorum,
      ),
    };
  } catch (err) {
    await stopAll(started, o.log);
    throw err;
  }
}

/** How a server or Sentinel of the layout is started again after it died (see ReplicatedRedis). */
function restarts(
  o: ReplicatedRedisOptions,
  shards: readonly ReplicatedShard[],
  sentinelPorts: readonly number[],
  quorum: number,
): Pick<ReplicatedRedis, "restartServer" | "restartSentinel"> {
  const shardOf = new Map(shards.flatMap((sh) => [sh.primary, ...sh.replicas].map((s): [number, ReplicatedShard] => [s.port, sh])));
  const primaryNamed = (name: string, except?: number) =>
    askSentinels(
      sentinelPorts.filter((p) => p !== except),
      name,
      o.security?.sentinel,
    );
  return {
    async restartServer(server) {
      const { name } = shardOf.get(server.port)!;
      const self = `127.0.0.1:${server.port}`;
      const primary = await waitForOtherPrimary(() => primaryNamed(name), self, 2 * o.downAfterMs + 5_000);
      if (primary === undefined)
        o.log.warn({ server: self, shard: name }, "the Sentinels name no other primary: starting it as the primary, empty");
      return startRedisServer({
        dataDir: server.dataDir,
        port: server.port,
        persist: o.persist,
        hugePages: o.hugePages,
        replicated: true,
        replicaOf: primary,
        security: o.security,
        log: o.log,
      });
    },
    async restartSentinel(index) {
      const watched = await Promise.all(
        shards.map(async (sh) => ({
          name: sh.name,
          address: (await primaryNamed(sh.name, sentinelPorts[index])) ?? `127.0.0.1:${sh.primary.port}`,
        })),
      );
      return startSentinel({
        dataDir: join(o.dataDir, `sentinel-${index}`),
        port: sentinelPorts[index],
        primaries: watched,
        quorum,
        downAfterMs: o.downAfterMs,
        failoverTimeoutMs: o.failoverTimeoutMs,
        security: o.security,
        log: o.log,
      });
    },
  };
}

async function stopAll(started: { servers: RedisServer[]; sentinels: SentinelServer[] }, log: Logger): Promise<void> {
  // Sentinels first, so none starts a failover while the servers go down
  for (const group of [started.sentinels, started.servers]) {
    const results = await Promise.allSettled(group.map((s) => s.stop()));
    for (const r of results) if (r.status === "rejected") log.debug({ err: r.reason }, "ignored error while stopping redis");
  }
}

/** The primary of `name` ("host:port") as the first of the Sentinels on `ports` that answers names it. */
async function askSentinels(ports: readonly number[], name: string, login: Login | undefined): Promise<string | undefined> {
  for (const port of ports) {
    const c = new Redis({
      host: "127.0.0.1",
      port,
      ...login,
      lazyConnect: true,
      connectTimeout: 500,
      commandTimeout: 500,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    c.on("error", () => {});
    try {
      await c.connect();
      const answer = (await c.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", name)) as [string, string] | null;
      if (answer) return `${answer[0]}:${answer[1]}`;
    } catch {
      // the next Sentinel
    } finally {
      c.disconnect();
    }
  }
  return undefined;
}

/** Waits until `named()` gives a primary other than `self`, up to `timeoutMs`; undefined if none by then. */
async function waitForOtherPrimary(named: () => Promise<string | undefined>, self: string, timeoutMs: number): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const primary = await named();
    if (primary !== undefined && primary !== self) return primary;
    if (Date.now() >= deadline) return undefined;
    await sleep(250);
  }
}

/** Polls `check` on a connection to 127.0.0.1:`port` until it passes. */
async function waitFor(
  port: number,
  login: Login | undefined,
  what: string,
  timeoutMs: number,
  check: (c: Redis) => Promise<void>,
): Promise<void> {
  const c = new Redis({ host: "127.0.0.1", port, ...login, lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  c.on("error", () => {});
  try {
    await retryUntil(() => check(c), { what, timeoutMs, ...LAUNCH_BACKOFF, initialMs: 50 });
  } finally {
    c.disconnect();
  }
}
