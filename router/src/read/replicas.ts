/**
 * Reads of a shard that has replicas (a sentinel:// shard, platform/src/redis-address.ts): spread
 * over its primary and the replicas that are current, never answered by one that lags.
 *
 * Redis Sentinel decides failovers; the router only follows it. Every `probeMs` (a fifth of
 * the lag bound, 20 ms to 1 s) a ReplicaSet asks a Sentinel for the shard's primary and its
 * replicas (SENTINEL GET-MASTER-ADDR-BY-NAME, SENTINEL REPLICAS; replicas Sentinel sees down
 * are left out; one whose only flag is Sentinel's link being made again is kept), keeps a
 * connection to each node, and asks each its ROLE:
 *
 *   - the primary's ROLE gives its replication offset: every write it has taken, in order;
 *     each answer is kept as a sample (when, offset) for `maxLagMs` and a bit more;
 *   - a replica's ROLE gives the offset it has applied. Replication applies the primary's
 *     writes in order, so a replica at or past a sample's offset holds everything the primary
 *     held at that sample's time: it is *current as of* the newest such sample.
 *
 * A replica serves reads while it was current as of at most `maxLagMs` ago: it may miss at most
 * the writes of the last `maxLagMs`, never more (LADDER_REPLICA_MAX_LAG_MS, 1 s by default; the
 * router sees a replica fall behind within one probe). On top of that, every read script checks
 * the replica's own copy of the shard's heartbeat (read-header.lua), which the primary
 * replicates: a replica serves only while the shard node serves (its stamp, not its reason for
 * not serving), and a replica cut off from its primary stops within the heartbeat TTL even if
 * the router could not tell, because a replica expires the key by its own clock.
 *
 * While the primary cannot be reached at all (killed, and Sentinel has not yet promoted a
 * replica), a replica that was current when the primary last answered goes on serving: it holds
 * what the primary held then, less at most `maxLagMs` of writes, and nothing newer can be
 * applied anywhere until the failover. It stops as any shard whose node cannot write does: when
 * the node's last heartbeat expires on the replica (LADDER_HEARTBEAT_TTL_MS). A read that finds
 * the primary's connection failing applies this rule at once (readableWithoutPrimary), rather than
 * being refused until the next probe sees the primary gone. When Sentinel
 * promotes a replica, the next probe finds the new primary; the shard node follows it too
 * (store/src/connect.ts) and, if the promoted replica lacks the last writes it applied, replays
 * them from the log while the shard refuses reads.
 *
 * The reads themselves are replicated-reader.ts's: a ReplicatedReader spreads a shard's reads over
 * the nodes this set finds usable; a PrimaryReader reads its primary only (reads with a consistency
 * token, watchers' standings); both ask again through a failover and then refuse in ladder's words.
 */
import { Redis } from "ioredis";
import type { Logger } from "@ladder/platform/logger";
import { nodeAddress, type SentinelAddress } from "@ladder/platform/redis-address";
import { behindSentinelTls, FAILOVER_RETRY_MS, nodeLogin, openRedis } from "@ladder/store";
import { NO_LOGIN, type RedisLogin } from "@ladder/platform/redis-login";

export interface ReplicaSetOptions {
  shardId: string;
  /** The shard's full sentinel:// address. */
  url: string;
  sentinel: SentinelAddress;
  /** A replica serves only while it was current as of at most this long ago. */
  maxLagMs: number;
  /** The router's deadline for one shard call: bounds each node's connect and command times. */
  timeoutMs: number;
  /** The login to the shard's nodes and its Sentinels. */
  login?: RedisLogin;
  log?: Logger;
}

interface Node {
  readonly address: string;
  readonly redis: Redis;
  /** Its role when it last answered a probe ("master", "slave"; "" before it ever did). */
  role: string;
  /** Probes in a row it did not answer (Sentinel closes clients' connections to a replica it promotes: one miss is no news). */
  misses: number;
  /** When it was last known to hold everything the primary held (ms since epoch). */
  currentAt: number;
  /** Whether it served reads after the last probe (for the log). */
  usable: boolean;
  /** Its replication offset when it last answered (ROLE: a primary's, or what a replica applied). */
  offset: number;
}

/** A node of the set as the router sees it (GetClusterStatus). */
export interface NodeState {
  address: string;
  /** ROLE's answer at the last probe ("master", "slave"), "" when it did not answer it. */
  role: string;
  /** Whether it answered the last probe. */
  reachable: boolean;
  offset: number;
  /** Whether reads go to it now (usable()); false when it did not answer the last probe. */
  servesReads: boolean;
}

interface Sample {
  at: number;
  offset: number;
}

export class ReplicaSet {
  readonly shardId: string;
  /** The primary through Sentinel (store/connect.ts): follows failovers by itself. */
  readonly primary: Redis;
  readonly probeMs: number;
  private readonly o: ReplicaSetOptions;
  private readonly nodes = new Map<string, Node>();
  private primaryAddress: string | undefined;
  /** The primary's replication offset over the last `maxLagMs` and a bit, oldest first. */
  private samples: Sample[] = [];
  /** When the primary last answered as the primary. */
  private primarySeenAt = -Infinity;
  private primaryUp = false;
  private sentinelAt = 0;
  private sentinelConn: Redis | undefined;
  private turn = 0;
  private probing = false;
  private closed = false;
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void>;
  /** Resolves after the first probe (whatever it found). */
  readonly probed: Promise<void>;

  constructor(o: ReplicaSetOptions) {
    this.o = o;
    this.shardId = o.shardId;
    this.probeMs = Math.min(1000, Math.max(20, Math.floor(o.maxLagMs / 5)));
    // fail fast while the primary is unreachable instead of queueing behind it (as ShardPool's connections)
    this.primary = openRedis(o.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: o.timeoutMs }, o.login);
    this.primary.on("error", () => {}); // reported per query as UNAVAILABLE
    this.running = this.probe();
    this.probed = this.running;
    // one probe at a time: a slow one delays the next instead of queueing them
    this.timer = setInterval(() => {
      if (this.probing) return;
      this.running = this.probe();
    }, this.probeMs);
  }

  /**
   * The nodes that may answer the next read, in the order to try them: those connected, from a
   * start that moves on by one at each call (so ask once per read), then those reconnecting
   * (Sentinel closes every client's connection to a replica it promotes, so that clients ask it again).
   */
  nextReadable(now = Date.now()): Redis[] {
    const usable = [...this.nodes.values()].filter((n) => this.usable(n, now)).map((n) => n.redis);
    const ready = usable.filter((r) => r.status === "ready");
    const start = ready.length ? this.turn++ % ready.length : 0;
    return [...ready.slice(start), ...ready.slice(0, start), ...usable.filter((r) => r.status !== "ready")];
  }

  /**
   * When a read finds the primary unreachable before the next probe does: the replicas a probe
   * would then let serve (current when the primary was last seen; see usable()), ready first.
   */
  readableWithoutPrimary(): Redis[] {
    const nodes = [...this.nodes.values()]
      .filter((n) => n.address !== this.primaryAddress && n.misses <= MAX_MISSES && n.role === "slave" && this.heldWhenPrimaryLastSeen(n))
      .map((n) => n.redis);
    return [...nodes.filter((r) => r.status === "ready"), ...nodes.filter((r) => r.status !== "ready")];
  }

  /** Whether a replica held everything the primary held, less at most `maxLagMs` of writes, when the primary last answered. */
  private heldWhenPrimaryLastSeen(n: Node): boolean {
    return Number.isFinite(n.currentAt) && n.currentAt >= this.primarySeenAt - this.o.maxLagMs;
  }

  /** The nodes as the last probe found them, the primary first: what they answered and whether reads go to them now. */
  nodeStates(now = Date.now()): NodeState[] {
    const nodes = [...this.nodes.values()].sort(
      (a, b) => Number(b.address === this.primaryAddress) - Number(a.address === this.primaryAddress),
    );
    return nodes.map((n) => {
      const reachable = n.misses === 0 && n.role !== "";
      // a node that did not answer its last probe: no role, and no reads (the proto's promise)
      return {
        address: n.address,
        role: reachable ? n.role : "",
        reachable,
        offset: reachable ? n.offset : 0,
        servesReads: reachable && this.usable(n, now),
      };
    });
  }

  /** The router's deadline for one shard call. */
  get timeoutMs(): number {
    return this.o.timeoutMs;
  }

  /** Whether the primary answered a probe once and not the last one (killed, say, with no replica promoted yet). */
  get primaryLost(): boolean {
    return Number.isFinite(this.primarySeenAt) && !this.primaryUp;
  }

  /** Whether `redis` is the connection to the node Sentinel names primary. */
  isPrimary(redis: Redis): boolean {
    return this.primaryAddress !== undefined && this.nodes.get(this.primaryAddress)?.redis === redis;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running.catch(() => {});
    const all = [this.primary, ...[...this.nodes.values()].map((n) => n.redis), ...(this.sentinelConn ? [this.sentinelConn] : [])];
    await Promise.all(all.map((c) => c.quit().catch(() => c.disconnect())));
  }

  private usable(n: Node, now: number): boolean {
    if (n.misses > MAX_MISSES) return false;
    // missed a probe and its connection is down (killed, not the reconnect Sentinel forces on a promotion): no reads
    if (n.misses > 0 && n.redis.status !== "ready") return false;
    if (n.address === this.primaryAddress) return n.role === "master";
    // a replica, or one Sentinel is promoting and has not named primary yet: nothing writes to it before
    if (n.role !== "slave" && n.role !== "master") return false;
    if (now - n.currentAt <= this.o.maxLagMs) return true;
    // the primary is gone: a replica that was current when it was last seen holds what it held
    return !this.primaryUp && this.heldWhenPrimaryLastSeen(n);
  }

  private async probe(): Promise<void> {
    if (this.closed) return;
    this.probing = true;
    try {
      await this.look();
    } catch (err) {
      this.o.log?.warn({ shardId: this.shardId, err }, "probing the shard's nodes failed");
    } finally {
      this.probing = false;
    }
  }

  private async look(): Promise<void> {
    try {
      await this.discover();
    } catch (err) {
      this.o.log?.debug({ shardId: this.shardId, err: (err as Error).message }, "no Sentinel answered; keeping the last known nodes");
    }
    const at = Date.now();
    const primary = this.primaryAddress === undefined ? undefined : this.nodes.get(this.primaryAddress);
    const role = primary ? await roleOf(primary.redis) : undefined;
    if (primary) seen(primary, role);
    this.primaryUp = role?.[0] === "master";
    if (this.primaryUp) {
      this.primarySeenAt = at;
      this.samples.push({ at, offset: Number(role![1]) });
      const keep = at - this.o.maxLagMs - 2 * this.probeMs;
      while (this.samples.length > 1 && this.samples[0]!.at < keep) this.samples.shift();
    }
    const newest = this.primaryUp ? this.samples[this.samples.length - 1] : undefined;
    await Promise.all(
      [...this.nodes.values()]
        .filter((n) => n !== primary)
        .map(async (n) => {
          // a replica under a steady write load is usually a few ms behind the sample just taken: ask
          // again, briefly, rather than credit it only with the previous probe's sample
          for (let attempt = 0; ; attempt++) {
            const r = await roleOf(n.redis);
            seen(n, r);
            if (r?.[0] !== "slave") return;
            const applied = Number(r[4]);
            // the newest sample of the primary this replica has applied everything of
            for (let i = this.samples.length - 1; i >= 0; i--) {
              if (this.samples[i]!.offset <= applied) {
                n.currentAt = Math.max(n.currentAt, this.samples[i]!.at);
                break;
              }
            }
            if (!newest || newest.offset <= applied || attempt === CATCH_UP_ASKS) return;
            await new Promise((resolve) => setTimeout(resolve, CATCH_UP_WAIT_MS));
          }
        }),
    );
    const now = Date.now();
    for (const n of this.nodes.values()) {
      const usable = this.usable(n, now);
      if (usable === n.usable) continue;
      n.usable = usable;
      const why =
        n.address === this.primaryAddress
          ? "primary"
          : usable
            ? "replica, current"
            : `replica, ${n.role === "slave" ? `not current for ${now - n.currentAt} ms` : "not answering as a replica"}`;
      this.o.log?.info({ shardId: this.shardId, node: n.address, why }, usable ? "node serves reads" : "node does not serve reads");
    }
  }

  /** Asks a Sentinel (the last one that answered first) for the primary and its replicas, and updates the nodes. */
  private async discover(): Promise<void> {
    const { sentinels, name } = this.o.sentinel;
    let lastError: unknown;
    for (let tries = 0; tries < sentinels.length; tries++) {
      const conn = (this.sentinelConn ??= this.connectSentinel(sentinels[this.sentinelAt % sentinels.length]!));
      try {
        const [master, replicas] = await Promise.all([
          conn.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", name) as Promise<[string, string] | null>,
          conn.call("SENTINEL", "REPLICAS", name) as Promise<string[][]>,
        ]);
        if (!master) throw new Error(`Sentinel does not monitor "${name}"`);
        // a replica Sentinel finds down is left out; "disconnected" alone is Sentinel's own link being
        // made again (it kills its clients' connections to the replica it promotes): no news, and
        // dropping the node then would forget what it was current as of, refusing reads it may answer
        this.update(
          nodeAddress(master[0], master[1]),
          replicas
            .map(fields)
            .filter((r) => !/s_down|o_down/.test(r.flags ?? ""))
            .map((r) => nodeAddress(r.ip!, r.port!)),
        );
        return;
      } catch (err) {
        lastError = err;
        this.sentinelConn = undefined;
        conn.disconnect();
        this.sentinelAt++;
      }
    }
    throw lastError;
  }

  private update(primary: string, replicas: string[]): void {
    if (primary !== this.primaryAddress) {
      if (this.primaryAddress !== undefined)
        this.o.log?.info({ shardId: this.shardId, from: this.primaryAddress, to: primary }, "Sentinel names a new primary");
      this.primaryAddress = primary;
      this.samples = []; // offsets of another node's history
    }
    const wanted = new Set([primary, ...replicas]);
    for (const address of wanted) if (!this.nodes.has(address)) this.nodes.set(address, this.connectNode(address));
    for (const [address, n] of this.nodes) {
      if (wanted.has(address)) continue;
      this.nodes.delete(address);
      n.redis.disconnect();
    }
  }

  private connectNode(address: string): Node {
    const colon = address.lastIndexOf(":");
    const redis = new Redis({
      host: address.slice(0, colon).replace(/^\[|\]$/g, ""),
      port: Number(address.slice(colon + 1)),
      ...nodeLogin(this.o.sentinel.password, this.o.login ?? NO_LOGIN),
      ...behindSentinelTls(this.o.login ?? NO_LOGIN),
      // a read that meets a dead or hung node fails at once (or within half the shard deadline),
      // leaving time to ask the next node
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      connectTimeout: this.o.timeoutMs,
      commandTimeout: Math.max(50, Math.floor(this.o.timeoutMs / 2)),
      retryStrategy: (times) => (times === 1 ? 0 : FAILOVER_RETRY_MS * 2),
    });
    redis.on("error", () => {});
    return { address, redis, role: "", misses: 0, currentAt: -Infinity, usable: false, offset: 0 };
  }

  private connectSentinel(s: { host: string; port: number }): Redis {
    const conn = new Redis({
      host: s.host,
      port: s.port,
      ...sentinelAsNode(this.o.login ?? NO_LOGIN),
      ...behindSentinelTls(this.o.login ?? NO_LOGIN),
      enableOfflineQueue: true,
      maxRetriesPerRequest: 0,
      connectTimeout: this.o.timeoutMs,
      commandTimeout: this.o.timeoutMs,
      retryStrategy: () => null,
      lazyConnect: false,
    });
    conn.on("error", () => {});
    return conn;
  }
}

/** A probe asks a replica behind the sample just taken again this many times, this far apart. */
const CATCH_UP_ASKS = 3;
const CATCH_UP_WAIT_MS = 5;

/** Probes in a row a node may miss and still serve (the first read to meet a dead node moves on to the next anyway). */
const MAX_MISSES = 1;

/** Records a probe's answer (the node's ROLE, undefined: no answer). */
function seen(n: Node, role: Array<string | number> | undefined): void {
  if (role === undefined) {
    n.misses++;
    return;
  }
  n.misses = 0;
  n.role = String(role[0]);
  // ROLE: ["master", offset, ...] or ["slave", host, port, state, offset]
  n.offset = Number(n.role === "master" ? role[1] : n.role === "slave" ? role[4] : 0) || 0;
}

/** ROLE of a node, or undefined when it does not answer. */
async function roleOf(redis: Redis): Promise<Array<string | number> | undefined> {
  if (redis.status !== "ready") return undefined;
  try {
    return (await redis.call("ROLE")) as Array<string | number>;
  } catch {
    return undefined;
  }
}

/** A Sentinel reply's flat [k1, v1, k2, v2, ...] as an object. */
function fields(flat: string[]): Record<string, string | undefined> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  return out;
}

/** A connection to a Sentinel itself logs in with the login's Sentinel user and password. */
function sentinelAsNode(login: RedisLogin): { username?: string; password?: string } {
  return {
    ...(login.sentinelUsername === undefined ? {} : { username: login.sentinelUsername }),
    ...(login.sentinelPassword === undefined ? {} : { password: login.sentinelPassword }),
  };
}
