// The local cluster's Redis users (platform/src/redis-acl.ts): one per role, their passwords made at random on
// the first `npm start` and kept in the credentials file's "redis" section (<data dir>/credentials.json,
// mode 0600, platform/src/credentials-file.ts), reused after. Every shard's Redis, replica and Sentinel
// runs with these users and the `default` user off; each service gets only its own user: its name in
// LADDER_REDIS_USERNAME, its password in a file of <data dir>/secrets/ (0600, in a 0700 directory)
// named by LADDER_REDIS_PASSWORD_FILE, so no password shows in `ps` or in a process's environment.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { localCredentialsPath, readCredentialsDocument, writeCredentialsDocument } from "@ladder/platform/credentials-file";
import { redisAclLines, sentinelAclLines, type RedisRole } from "@ladder/platform/redis-acl";
import { localCredentials } from "./credentials.js";
import { writeSecretFile } from "./secret-files.js";

/** The local users: name → role on the shards' Redis; `ladder-sentinel-client` exists on the Sentinels only. */
export const LOCAL_REDIS_USERS = Object.freeze({
  "ladder-shard-node": "writer",
  "ladder-router": "reader",
  "ladder-ingest": "reader",
  "ladder-router-admin": "admin",
  "ladder-replication": "replication",
  "ladder-sentinel": "sentinel",
} satisfies Record<string, RedisRole>);
export const SENTINEL_CLIENT = "ladder-sentinel-client";
type LocalUser = keyof typeof LOCAL_REDIS_USERS | typeof SENTINEL_CLIENT;
const ALL_USERS: readonly LocalUser[] = [...(Object.keys(LOCAL_REDIS_USERS) as LocalUser[]), SENTINEL_CLIENT];

export interface Login {
  readonly username: string;
  readonly password: string;
}

/** What the local Redis servers and Sentinels run with (redis-server.ts, sentinel.ts). */
export interface LocalRedisSecurity {
  /** The shards' Redis ACL file, `default` off. */
  readonly aclLines: readonly string[];
  /** The Sentinels' `user` lines. */
  readonly sentinelAclLines: readonly string[];
  /** A replica's login to its primary (masteruser, masterauth). */
  readonly replication: Login;
  /** Sentinel's login to the Redis nodes (auth-user) and to the other Sentinels (sentinel-user). */
  readonly sentinel: Login;
  /** The launcher's own look at a node (its replication state, PING): the admin user. */
  readonly admin: Login;
}

/** The passwords of the local users under `dataDir`, made and stored on first use. */
export function localRedisPasswords(dataDir: string): Readonly<Record<LocalUser, string>> {
  const file = localCredentialsPath(dataDir);
  if (!existsSync(file)) localCredentials(dataDir); // the tokens first: the file is theirs too
  const content = readCredentialsDocument(file);
  const stored = (content.redis ?? {}) as Partial<Record<LocalUser, string>>;
  if (ALL_USERS.every((u) => typeof stored[u] === "string")) return stored as Record<LocalUser, string>;
  const redis = Object.fromEntries(ALL_USERS.map((u) => [u, stored[u] ?? randomBytes(24).toString("base64url")]));
  writeCredentialsDocument(file, { ...content, redis });
  return redis as Record<LocalUser, string>;
}

/** The ACLs and logins the local Redis servers and Sentinels run with, for keys under `keyPrefix`. */
export function localRedisSecurity(passwords: Readonly<Record<LocalUser, string>>, keyPrefix: string): LocalRedisSecurity {
  const login = (username: LocalUser): Login => ({ username, password: passwords[username] });
  return Object.freeze({
    aclLines: redisAclLines(
      Object.entries(LOCAL_REDIS_USERS).map(([name, role]) => ({ name, role, password: passwords[name as LocalUser] })),
      keyPrefix,
    ),
    sentinelAclLines: sentinelAclLines({
      sentinel: { name: "ladder-sentinel", password: passwords["ladder-sentinel"] },
      client: { name: SENTINEL_CLIENT, password: passwords[SENTINEL_CLIENT] },
    }),
    replication: login("ladder-replication"),
    sentinel: login("ladder-sentinel"),
    admin: login("ladder-router-admin"),
  });
}

/**
 * Each service's LADDER_REDIS_* (and, with Sentinels, LADDER_SENTINEL_*) variables: its user, and
 * its password in a file under <dataDir>/secrets/ (written here, 0600).
 */
export function localRedisServiceEnv(
  dataDir: string,
  passwords: Readonly<Record<LocalUser, string>>,
  sentinels: boolean,
): { shard: Record<string, string>; router: Record<string, string>; ingest: Record<string, string> } {
  const fileOf = (user: LocalUser) => writeSecretFile(dataDir, user, passwords[user]);
  const sentinel: Record<string, string> = sentinels
    ? { LADDER_SENTINEL_USERNAME: SENTINEL_CLIENT, LADDER_SENTINEL_PASSWORD_FILE: fileOf(SENTINEL_CLIENT) }
    : {};
  const own = (user: LocalUser) => ({ LADDER_REDIS_USERNAME: user, LADDER_REDIS_PASSWORD_FILE: fileOf(user), ...sentinel });
  return {
    shard: own("ladder-shard-node"),
    router: {
      ...own("ladder-router"),
      LADDER_REDIS_ADMIN_USERNAME: "ladder-router-admin",
      LADDER_REDIS_ADMIN_PASSWORD_FILE: fileOf("ladder-router-admin"),
    },
    ingest: own("ladder-ingest"),
  };
}
