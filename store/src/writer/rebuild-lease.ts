/**
 * The rebuild lease: at most one rebuild of a shard at a time.
 *
 * A key in the shard's own Redis, database 0 (`<prefix>rebuild-lease`), whose value names the
 * rebuild that holds it: a random id, what it builds ("swap", or "audit:<view>"), where it runs
 * (host and process id) and when it started, as JSON. Taken with SET NX PX, so of two rebuilds
 * asking at once exactly one gets it; the other is refused at once with ABORTED naming the
 * holder. The holder renews it every LEASE_RENEW_MS to LEASE_TTL_MS, and releases it at the end;
 * both only while the value is still its own (rebuild-lease.lua, compare-and-set and
 * compare-and-delete), so a rebuild that lost its lease never extends or deletes another's.
 *
 * A rebuild that dies (kill -9 of the router, a lost machine) stops renewing: its lease expires
 * LEASE_TTL_MS after its last renewal at the latest, and the shard can be rebuilt again; what it
 * left in the spare database is deleted by the next rebuild's first step. A rebuild that cannot
 * renew for almost a TTL (its Redis unreachable, the process stalled) must assume the lease may
 * be gone: `lost` aborts with ABORTED, LEASE_SAFETY_MS before the earliest moment it could have
 * expired, and the rebuild stops without swapping and without deleting anything (the spare
 * database may already be someone else's).
 *
 * The lease lives in database 0 next to the live data, not in the spare database: database 0
 * is the one every process agrees on, whatever LADDER_REBUILD_DB says. SWAPDB carries the
 * whole database, so the swap copies the lease into the spare database first, in the same
 * script (rebuild-swap.lua), and the lease stays in database 0 across the swap.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Redis } from "ioredis";
import { Code, LadderError } from "@ladder/model/errors";
import type { Logger } from "@ladder/platform/logger";
import type { RedisLogin } from "@ladder/platform/redis-login";
import { openRedis } from "../connect.js";
import { keyLayout } from "../keys.js";
import { withLeaseScripts, type LeaseScripts } from "../scripts.js";

/**
 * How long a lease lives without a renewal: a crashed rebuild blocks its shard this long at
 * most. A constant, not a LADDER_* setting (yet): long enough to ride out a GC pause or a
 * Redis failover, short enough that an operator does not wait long after a crash.
 */
export const LEASE_TTL_MS = 30_000;
/** How often the holder renews: a third of the TTL, so two renewals in a row may fail. */
export const LEASE_RENEW_MS = 10_000;
/** The holder gives the lease up this long before it could have expired (clock rate, latency). */
export const LEASE_SAFETY_MS = 2_000;

/** Who holds a shard's rebuild lease: the lease's value. */
export interface RebuildHolder {
  /** Random, chosen when the lease was taken. */
  id: string;
  /** "swap" or "audit:<view>". */
  mode: string;
  /** Host and process id. */
  holder: string;
  /** When the lease was taken (Unix ms). */
  startedAtMs: number;
}

export interface AcquireOptions {
  redisUrl: string;
  /** The login to the shard's Redis (platform/src/redis-acl.ts: writer or admin). */
  login?: RedisLogin;
  keyPrefix: string;
  shardId: string;
  mode: string;
  log: Logger;
  ttlMs?: number;
  renewMs?: number;
}

export class RebuildLease {
  /** Aborted (with an ABORTED LadderError) when the lease may no longer be ours. */
  readonly lost: AbortSignal;
  private readonly lostController = new AbortController();
  private readonly renewTimer: NodeJS.Timeout;
  private expiryTimer: NodeJS.Timeout | undefined;
  private released = false;

  private constructor(
    readonly shardId: string,
    readonly holder: RebuildHolder,
    private readonly redis: Redis & LeaseScripts,
    private readonly key: string,
    private readonly value: string,
    private readonly ttlMs: number,
    renewMs: number,
    private readonly log: Logger,
    takenAt: number,
  ) {
    this.lost = this.lostController.signal;
    this.armExpiry(takenAt);
    this.renewTimer = setInterval(() => void this.renew().catch(() => {}), renewMs);
    this.renewTimer.unref();
  }

  /**
   * Takes `shardId`'s lease for a rebuild of `mode`, or throws ABORTED naming the rebuild that
   * holds it (UNAVAILABLE when the shard's Redis cannot be reached).
   */
  static async acquire(o: AcquireOptions): Promise<RebuildLease> {
    const ttlMs = o.ttlMs ?? LEASE_TTL_MS;
    const redis = withLeaseScripts(openRedis(o.redisUrl, { db: 0, maxRetriesPerRequest: 2, connectTimeout: 5000 }, o.login));
    redis.on("error", () => {}); // failures surface through the commands
    const key = keyLayout(o.keyPrefix).rebuildLease;
    const holder: RebuildHolder = {
      id: randomBytes(6).toString("hex"),
      mode: o.mode,
      holder: `${hostname()} pid ${process.pid}`,
      startedAtMs: Date.now(),
    };
    const value = JSON.stringify(holder);
    try {
      for (let attempt = 0; ; attempt++) {
        const takenAt = Date.now();
        if ((await redis.set(key, value, "PX", ttlMs, "NX")) === "OK") {
          o.log.info({ shardId: o.shardId, rebuild: holder.id, mode: o.mode }, "rebuild lease taken");
          return new RebuildLease(o.shardId, holder, redis, key, value, ttlMs, o.renewMs ?? LEASE_RENEW_MS, o.log, takenAt);
        }
        const current = await redis.get(key);
        if (current !== null)
          throw new LadderError(
            Code.ABORTED,
            `${o.shardId} is already being rebuilt: ${describeRebuild(parseHolder(current))}; wait for it to finish or cancel it`,
          );
        if (attempt >= 2) throw new LadderError(Code.ABORTED, `${o.shardId}: its rebuild lease keeps changing hands; try again`);
      }
    } catch (err) {
      redis.disconnect();
      if (err instanceof LadderError) throw err;
      throw new LadderError(Code.UNAVAILABLE, `${o.shardId}: cannot take the rebuild lease: ${(err as Error).message}`, {
        retriable: true,
        cause: err,
      });
    }
  }

  /** False once the lease may no longer be ours (see `lost`), or was released. */
  get held(): boolean {
    return !this.released && !this.lost.aborted;
  }

  /**
   * Renews the lease now. Resolves when it is ours for another TTL; throws (and aborts `lost`)
   * when it is not ours any more. Call it right before an irreversible step that the lease
   * must cover: that step then has a whole TTL.
   */
  async renew(): Promise<void> {
    this.lost.throwIfAborted();
    if (this.released) throw new LadderError(Code.ABORTED, `rebuild ${this.holder.id} of ${this.shardId}: its lease was released`);
    const sentAt = Date.now();
    let ours: number;
    try {
      ours = await this.redis.ladderLease(this.key, this.value, "renew", this.ttlMs);
    } catch (err) {
      this.log.warn({ err, shardId: this.shardId, rebuild: this.holder.id }, "could not renew the rebuild lease");
      throw new LadderError(
        Code.UNAVAILABLE,
        `rebuild ${this.holder.id} of ${this.shardId}: cannot renew its lease: ${(err as Error).message}`,
        { retriable: true, cause: err },
      );
    }
    if (ours !== 1) {
      this.markLost("it was taken over or deleted");
      this.lost.throwIfAborted();
    }
    this.armExpiry(sentAt);
  }

  /** Runs the lease-guarded swap (rebuild-swap.lua); throws ABORTED (nothing swapped) when the lease is not ours. */
  async swap(heartbeatKey: string, spareDb: number): Promise<void> {
    this.lost.throwIfAborted();
    if ((await this.redis.ladderRebuildSwap(this.key, heartbeatKey, this.value, spareDb)) === 1) return;
    this.markLost("it was taken over or deleted");
    throw this.lost.reason;
  }

  /** Stops renewing and deletes the lease if it is still ours. Never throws. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearInterval(this.renewTimer);
    clearTimeout(this.expiryTimer);
    try {
      const ours = await this.redis.ladderLease(this.key, this.value, "release", 0);
      this.log.info(
        { shardId: this.shardId, rebuild: this.holder.id, released: ours === 1 },
        ours === 1 ? "rebuild lease released" : "rebuild lease was no longer ours",
      );
    } catch (err) {
      this.log.warn(
        { err, shardId: this.shardId, rebuild: this.holder.id },
        `could not release the rebuild lease; it expires within ${this.ttlMs} ms`,
      );
    } finally {
      this.redis.disconnect();
    }
  }

  /** `lost` fires LEASE_SAFETY_MS before the lease could expire if renewed at `renewedAt`. */
  private armExpiry(renewedAt: number): void {
    clearTimeout(this.expiryTimer);
    const ms = Math.max(0, renewedAt + this.ttlMs - LEASE_SAFETY_MS - Date.now());
    this.expiryTimer = setTimeout(() => this.markLost(`not renewed for ${this.ttlMs - LEASE_SAFETY_MS} ms`), ms);
    this.expiryTimer.unref();
  }

  private markLost(why: string): void {
    if (this.lost.aborted || this.released) return;
    clearInterval(this.renewTimer);
    clearTimeout(this.expiryTimer);
    this.log.warn({ shardId: this.shardId, rebuild: this.holder.id, why }, "rebuild lease lost");
    this.lostController.abort(
      new LadderError(Code.ABORTED, `rebuild ${this.holder.id} of ${this.shardId} lost its lease (${why}): stopped without swapping`),
    );
  }
}

/** The rebuild holding `shardId`'s lease, if any. */
export async function runningRebuild(redisUrl: string, keyPrefix: string, login?: RedisLogin): Promise<RebuildHolder | undefined> {
  const redis = openRedis(redisUrl, { db: 0, maxRetriesPerRequest: 1, connectTimeout: 5000, lazyConnect: true }, login);
  redis.on("error", () => {});
  try {
    const value = await redis.get(keyLayout(keyPrefix).rebuildLease);
    return value === null ? undefined : parseHolder(value);
  } finally {
    redis.disconnect();
  }
}

/** "rebuild <id> (<mode>) by <holder>, since <ISO time> (<n> s ago)". */
export function describeRebuild(h: RebuildHolder): string {
  const since = Number.isFinite(h.startedAtMs)
    ? `since ${new Date(h.startedAtMs).toISOString()} (${Math.round((Date.now() - h.startedAtMs) / 1000)} s ago)`
    : "since an unknown time";
  return `rebuild ${h.id} (${h.mode}) by ${h.holder}, ${since}`;
}

function parseHolder(value: string): RebuildHolder {
  try {
    const v = JSON.parse(value) as Partial<RebuildHolder>;
    return { id: String(v.id ?? "?"), mode: String(v.mode ?? "?"), holder: String(v.holder ?? "?"), startedAtMs: Number(v.startedAtMs) };
  } catch {
    return { id: value, mode: "?", holder: "?", startedAtMs: NaN };
  }
}
