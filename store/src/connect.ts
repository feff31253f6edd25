/**
 * Opens a connection to a shard's Redis from its address (platform/src/redis-address.ts): a
 * redis:// URL as it is, or the primary of a sentinel:// shard through Redis Sentinel. Every
 * part that writes to a shard's Redis (the shard node, rebuilds and their lease) opens it
 * here, so writes follow a failover: the connection asks the Sentinels for the primary's
 * address on every (re)connect (every FAILOVER_RETRY_MS while the primary is gone), checks the
 * node's role, and reconnects when a node answers READONLY (a primary that was demoted under
 * the connection).
 *
 * Not ioredis's `failoverDetector`: its reconnect on +switch-master can land while a reconnect
 * is resolving the primary, and ioredis then ends the connection for good ("Connection is
 * closed."), which a failover under load hit (test/failover.int.test.ts).
 */
import { Redis, type RedisOptions } from "ioredis";
import { parseSentinelUrl } from "@ladder/platform/redis-address";

/** How often a lost connection to a primary behind Sentinel is tried again: a failover takes seconds. */
export const FAILOVER_RETRY_MS = 100;

/** A connection to the shard's Redis at `url` (its primary, for sentinel://) with `options`. */
export function openRedis(url: string, options: RedisOptions = {}): Redis {
  const sentinel = parseSentinelUrl(url);
  if (!sentinel) return new Redis(url, options);
  return new Redis({
    sentinels: sentinel.sentinels.map((s) => ({ host: s.host, port: s.port })),
    name: sentinel.name,
    role: "master",
    password: sentinel.password,
    retryStrategy: () => FAILOVER_RETRY_MS,
    sentinelRetryStrategy: () => FAILOVER_RETRY_MS * 5,
    reconnectOnError: (err) => (err.message.startsWith("READONLY") ? 2 : false),
    ...options,
  });
}

/** Resolves when `redis` is ready (at once if it is), rejects after `ms`. */
export function readyWithin(redis: Redis, ms: number): Promise<void> {
  if (redis.status === "ready") return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off("ready", ready);
      reject(new Error(`not connected within ${ms} ms`));
    }, ms);
    const ready = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once("ready", ready);
  });
}
