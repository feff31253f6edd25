/**
 * How a service logs in to the shards' Redis and to their Sentinels. LADDER_SHARDS holds the
 * addresses every service shares; the login is each service's own (its Redis ACL user,
 * platform/src/redis-acl.ts): the shard node's writer, the router's reader, ingest's. The router's
 * rebuild and reshard path may log in as another user (LADDER_REDIS_ADMIN_*), as it writes.
 * A password comes from its variable or from a file (…_PASSWORD_FILE, for a mounted secret),
 * never both. Credentials in a shard's URL (redis://user:pass@host) win over these.
 *
 * TLS: a rediss:// shard is reached over TLS, trusting the system's CAs or the PEM file of
 * LADDER_REDIS_TLS_CA_FILE; with LADDER_SENTINEL_TLS=1 the Sentinels of sentinel:// shards and the
 * nodes they name are too (Sentinels serving TLS: the Redis image's REDIS_TLS_DIR). Nothing here is
 * ever logged.
 */
import { readFileSync } from "node:fs";
import { envVar, flag, optional, type EnvValues, type EnvVar } from "./env-schema.js";

/** One login: user and password for the Redis nodes, for the Sentinels, and the CA of rediss:// shards. */
export interface RedisLogin {
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly sentinelUsername: string | undefined;
  readonly sentinelPassword: string | undefined;
  /** PEM: the CA a rediss:// shard's certificate is checked against (undefined: the system's). */
  readonly tlsCa: string | undefined;
  /** The Sentinels of sentinel:// shards, and the nodes they name, are reached over TLS (checked against tlsCa). */
  readonly sentinelTls: boolean;
}

/** No login at all (Redis without ACL users), as before any was configured. */
export const NO_LOGIN: RedisLogin = Object.freeze({
  username: undefined,
  password: undefined,
  sentinelUsername: undefined,
  sentinelPassword: undefined,
  tlsCa: undefined,
  sentinelTls: false,
});

/** A file's text without its final newline; a problem (and undefined) when it cannot be read. */
function fileText(o: { description: string; what: string }): EnvVar<string | undefined> {
  return envVar({ description: o.description, default: "—" }, (raw, report) => {
    if (raw === undefined || raw === "") return undefined;
    try {
      return readFileSync(raw, "utf8").replace(/\r?\n$/, "");
    } catch (err) {
      report(`cannot read ${o.what} from ${raw}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      return undefined;
    }
  });
}

export const redisLoginEnv = {
  LADDER_REDIS_USERNAME: optional({ unsetMeans: "— (`default`)", description: "this service's Redis ACL user on the shards' Redis" }),
  LADDER_REDIS_PASSWORD: optional({ description: "its password" }),
  LADDER_REDIS_PASSWORD_FILE: fileText({
    what: "the Redis password",
    description: "a file holding its password (instead of `LADDER_REDIS_PASSWORD`)",
  }),
  LADDER_REDIS_ADMIN_USERNAME: optional({
    unsetMeans: "— (`LADDER_REDIS_USERNAME`)",
    description: "the router's Redis user for rebuilds and reshards (they write the shards)",
  }),
  LADDER_REDIS_ADMIN_PASSWORD: optional({ description: "its password" }),
  LADDER_REDIS_ADMIN_PASSWORD_FILE: fileText({
    what: "the Redis admin password",
    description: "a file holding its password (instead of `LADDER_REDIS_ADMIN_PASSWORD`)",
  }),
  LADDER_SENTINEL_USERNAME: optional({ unsetMeans: "— (none)", description: "the Redis Sentinels' user this service logs in as" }),
  LADDER_SENTINEL_PASSWORD: optional({ description: "its password" }),
  LADDER_SENTINEL_PASSWORD_FILE: fileText({
    what: "the Sentinel password",
    description: "a file holding its password (instead of `LADDER_SENTINEL_PASSWORD`)",
  }),
  LADDER_REDIS_TLS_CA_FILE: fileText({
    what: "the Redis CA",
    description: "PEM CA that `rediss://` shards' certificates are checked against (unset: the system's CAs)",
  }),
  LADDER_SENTINEL_TLS: flag({
    default: false,
    description:
      "reach the Sentinels of `sentinel://` shards, and the nodes they name, over TLS (checked against `LADDER_REDIS_TLS_CA_FILE`)",
  }),
};

type LoginValues = EnvValues<typeof redisLoginEnv>;

/** The problems of the login variables across each other. */
export function checkRedisLogin(v: LoginValues, problem: (name: keyof LoginValues & string, message: string) => void): void {
  for (const who of ["REDIS", "REDIS_ADMIN", "SENTINEL"] as const) {
    const [user, pw, file] = [`LADDER_${who}_USERNAME`, `LADDER_${who}_PASSWORD`, `LADDER_${who}_PASSWORD_FILE`] as const;
    if (v[pw] !== undefined && v[file] !== undefined) problem(file, `set ${pw} or ${file}, not both`);
    if (v[user] !== undefined && v[pw] === undefined && v[file] === undefined) problem(pw, `needed with ${user} (or ${file})`);
  }
}

/** This service's login, and the router's rebuild and reshard path's (its own user when LADDER_REDIS_ADMIN_USERNAME is set). */
export function redisLoginsOf(v: LoginValues): { redisLogin: RedisLogin; redisAdminLogin: RedisLogin } {
  const redisLogin: RedisLogin = Object.freeze({
    username: v.LADDER_REDIS_USERNAME,
    password: v.LADDER_REDIS_PASSWORD ?? v.LADDER_REDIS_PASSWORD_FILE,
    sentinelUsername: v.LADDER_SENTINEL_USERNAME,
    sentinelPassword: v.LADDER_SENTINEL_PASSWORD ?? v.LADDER_SENTINEL_PASSWORD_FILE,
    tlsCa: v.LADDER_REDIS_TLS_CA_FILE,
    sentinelTls: v.LADDER_SENTINEL_TLS,
  });
  const redisAdminLogin: RedisLogin =
    v.LADDER_REDIS_ADMIN_USERNAME === undefined
      ? redisLogin
      : Object.freeze({
          ...redisLogin,
          username: v.LADDER_REDIS_ADMIN_USERNAME,
          password: v.LADDER_REDIS_ADMIN_PASSWORD ?? v.LADDER_REDIS_ADMIN_PASSWORD_FILE,
        });
  return { redisLogin, redisAdminLogin };
}
