/**
 * Opens a connection to a shard's Redis from its address (platform/src/redis-address.ts): a
 * redis:// URL as it is, or the primary of a sentinel:// shard through Redis Sentinel. Every
 * part that writes to a shard's Redis (the shard node, rebuilds and their lease) opens it
 * here, so writes follow a failover: the connection asks the Sentinels for the primary's
 * address on every (re)connect (every FAILOVER_RETRY_MS while the primary is gone), checks the
 * node's role, and reconnects when a node answers READONLY (a primary that was demoted under
 * the connection).
 *
 * The login (platform/src/redis-login.ts) is the caller's: its ACL user on the Redis nodes and on
 * the Sentinels, the CA of a rediss:// address, and whether a sentinel:// shard's Sentinels and nodes
 * speak TLS (sentinelTls). A password in the URL wins over it.
 *
 * Not ioredis's `failoverDetector`: its reconnect on +switch-master can land while a reconnect
 * is resolving the primary, and ioredis then ends the connection for good ("Connection is
 * closed."), which a failover under load hit (test/failover.int.test.ts).
 */
import { Redis, type RedisOptions } from "ioredis";
import { parseSentinelUrl } from "@ladder/platform/redis-address";
import { NO_LOGIN, type RedisLogin } from "@ladder/platform/redis-login";

/** How often a lost connection to a primary behind Sentinel is tried again: a failover takes seconds. */
export const FAILOVER_RETRY_MS = 100;

/** A connection to the shard's Redis at `url` (its primary, for sentinel://) with `options`, logged in with `login`. */
export function openRedis(url: string, options: RedisOptions = {}, login: RedisLogin = NO_LOGIN): Redis {
  const sentinel = parseSentinelUrl(url);
  if (!sentinel) return new Redis(url, { ...loginOptions(url, login), ...options });
  return new Redis({
    sentinels: sentinel.sentinels.map((s) => ({ host: s.host, port: s.port })),
    name: sentinel.name,
    role: "master",
    ...nodeLogin(sentinel.password, login),
    ...sentinelLogin(login),
    ...(login.sentinelTls
      ? { enableTLSForSentinelMode: true, sentinelTLS: sentinelTlsOptions(login), tls: sentinelTlsOptions(login) }
      : {}),
    retryStrategy: () => FAILOVER_RETRY_MS,
    sentinelRetryStrategy: () => FAILOVER_RETRY_MS * 5,
    reconnectOnError: (err) => (err.message.startsWith("READONLY") ? 2 : false),
    ...options,
  });
}

/**
 * The ioredis options of `login` for a redis:// or rediss:// `url`: its user and password (the
 * URL's own, when it has any, win: ioredis takes the URL's first), and for rediss:// the CA.
 */
export function loginOptions(url: string, login: RedisLogin): RedisOptions {
  const tls = url.startsWith("rediss://") && login.tlsCa !== undefined ? { tls: { ca: login.tlsCa } } : {};
  return { ...nodeLogin(undefined, login), ...tls };
}

/** The user and password of a Redis node behind Sentinel: the address's password (the `default` user) or the login's. */
export function nodeLogin(urlPassword: string | undefined, login: RedisLogin): Pick<RedisOptions, "username" | "password"> {
  if (urlPassword !== undefined) return { password: urlPassword };
  return {
    ...(login.username === undefined ? {} : { username: login.username }),
    ...(login.password === undefined ? {} : { password: login.password }),
  };
}

/** The TLS options of a Sentinel, or of a node a Sentinel names, under `login` (sentinelTls): its CA, or the system's. */
export function sentinelTlsOptions(login: RedisLogin): { ca?: string } {
  return login.tlsCa === undefined ? {} : { ca: login.tlsCa };
}

/** `{ tls }` for a direct connection to a Sentinel of a sentinel:// shard, or to a node it names; none without sentinelTls. */
export function behindSentinelTls(login: RedisLogin): Pick<RedisOptions, "tls"> {
  return login.sentinelTls ? { tls: sentinelTlsOptions(login) } : {};
}

/** The user and password to log in to the Sentinels with. */
export function sentinelLogin(login: RedisLogin): Pick<RedisOptions, "sentinelUsername" | "sentinelPassword"> {
  return {
    ...(login.sentinelUsername === undefined ? {} : { sentinelUsername: login.sentinelUsername }),
    ...(login.sentinelPassword === undefined ? {} : { sentinelPassword: login.sentinelPassword }),
  };
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
