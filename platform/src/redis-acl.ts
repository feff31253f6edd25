/**
 * The Redis ACL of a shard's Redis (primary and replicas) and of the Sentinels watching it: one
 * user per role, each allowed the commands its part sends and nothing else, on the cluster's keys
 * only (`<prefix>*`). The `default` user is off, so a connection without credentials is refused
 * every command (NOAUTH).
 *
 *   writer       the shard node: the apply loop, heartbeats, snapshots, moves in place, the rebuild
 *                lease: every command of its scripts and of store/src/writer, on every key of the prefix
 *   admin        the router's rebuild and reshard path (store rebuild.ts into the spare database,
 *                rebuild-swap.lua): the writer's commands and SELECT, SWAPDB
 *   reader       the router's reads and ingest's rank reports: the read scripts through EVALSHA_RO /
 *                EVAL_RO only (Redis refuses any write inside them), the commands those scripts call,
 *                and reads of every key of the prefix; the one write allowed is SET of the change
 *                feed's flag and generation keys (router/src/push/change-feed.ts)
 *   replication  a replica's login to its primary (masteruser): PSYNC, REPLCONF, PING
 *   sentinel     Sentinel's login to the primaries and replicas (sentinel auth-user): what the Redis
 *                Sentinel documentation lists for it (REPLICAOF, CONFIG REWRITE, its hello channel...)
 *
 * On the Sentinels themselves (sentinelAclLines): `sentinel` again (the Sentinels' logins to each
 * other, `sentinel sentinel-user`), and `sentinel-client`, the services' login (ioredis
 * sentinelUsername): the queries that find a shard's primary and replicas.
 *
 * Passwords are stored as their SHA-256 (`#<hex>`), so an ACL file holds no password. Every command
 * here exists in Redis 7.0 (key permissions `%R~` need 7.0). A command added to a script or to a
 * part's code must be added here too: store/src/acl.test.ts checks every script's commands, and the
 * change feed's keys (store keys.ts), against these users.
 */
import { createHash } from "node:crypto";

export const REDIS_ROLES = ["writer", "admin", "reader", "replication", "sentinel"] as const;
export type RedisRole = (typeof REDIS_ROLES)[number];

/** What every service's connection sends on its own: the ready check (INFO), PING, ROLE (replicas.ts, cluster status), DBSIZE, QUIT. */
const CONNECTION = ["ping", "info", "role", "dbsize", "quit", "client|setname", "client|getname", "client|id"];

/** The keys (after the prefix) the reader may set: the change feed's flag and generation (store keys.ts: changesOn, changesGen). */
export const READER_WRITABLE_KEYS = ["changes:on", "changes:gen"];

/** The commands the read scripts call (lua/read-*.lua and their includes). */
export const READ_SCRIPT_COMMANDS = [
  ...["exists", "get", "hget", "scan", "time", "xrevrange", "zcard", "zcount", "zlexcount", "zrange", "zrangebylex", "zrank", "zscore"],
];

/** The reader's own commands (store reader.ts, router read/ and push/, cluster status, ingest rank reports). */
const READER_COMMANDS = [
  "evalsha_ro",
  "eval_ro",
  "exists",
  "get",
  "hmget",
  "lrange",
  "pttl",
  "xread",
  "xrevrange",
  "xinfo|stream",
  "set",
  "zrangebylex", // the router's closer: which partitions closed a period (store reader.ts)
];

/** The commands the writer's scripts call (every lua/ script but the read scripts and rebuild-swap.lua). */
export const WRITE_SCRIPT_COMMANDS = [
  ...READ_SCRIPT_COMMANDS,
  ...["del", "expire", "hdel", "hexists", "hgetall", "hincrby", "hmget", "hset", "keys", "pexpire", "pexpireat", "pexpiretime", "persist"],
  ...["pttl", "rename", "rpush", "sadd", "scan", "scard", "sismember", "smembers", "sscan", "set", "time", "ttl", "type", "unlink"],
  ...["xadd", "zadd", "zincrby", "zlexcount", "zmscore", "zrangebyscore", "zrem", "zremrangebyscore"],
];

/** The writer's own commands (store/src/writer, shard-node/src): EVAL first on each connection, then EVALSHA (ioredis). */
const WRITER_COMMANDS = [
  "eval",
  "evalsha",
  "select",
  ...["del", "exists", "get", "hexists", "hget", "hgetall", "hmget", "hset", "keys", "pexpireat", "pexpiretime", "scan", "set"],
  ...["hdel", "hscan", "unlink", "zadd", "zcard", "zrange", "zrem", "zscan"],
];

/** What rebuild-swap.lua adds for the admin path: it selects the spare database and swaps it in. */
export const ADMIN_SCRIPT_COMMANDS = ["select", "swapdb"];

/** A replica's login to its primary. */
const REPLICATION_COMMANDS = ["psync", "replconf", "ping"];

/** Sentinel's login to the Redis nodes, as the Redis Sentinel documentation lists it ("Redis Access Control List authentication"). */
const SENTINEL_ON_REDIS = [
  ...["multi", "slaveof", "replicaof", "ping", "exec", "subscribe", "config|rewrite", "role", "publish", "info"],
  ...["client|setname", "client|kill", "script|kill"],
];

/** The services' login to the Sentinels: find a primary, its replicas and the other Sentinels. */
const SENTINEL_CLIENT_ON_SENTINEL = [
  ...["ping", "info", "role", "client|setname", "client|getname", "client|id", "command"],
  ...["sentinel|get-master-addr-by-name", "sentinel|master", "sentinel|myid", "sentinel|replicas", "sentinel|slaves", "sentinel|sentinels"],
];

const unique = (xs: readonly string[]) => [...new Set(xs)].sort();
const allow = (cmds: readonly string[]) => unique(cmds).map((c) => `+${c}`);

/**
 * The ACL rules of `role` on a shard's Redis whose keys start with `keyPrefix` (what follows
 * `user <name> on #<hash>`). `-@all` first: nothing but the commands listed.
 */
export function aclRules(role: RedisRole, keyPrefix: string): string[] {
  const all = `~${keyPrefix}*`;
  switch (role) {
    case "writer":
      return ["resetkeys", all, "resetchannels", "-@all", ...allow([...CONNECTION, ...WRITER_COMMANDS, ...WRITE_SCRIPT_COMMANDS])];
    case "admin":
      return [
        "resetkeys",
        all,
        "resetchannels",
        "-@all",
        ...allow([...CONNECTION, ...WRITER_COMMANDS, ...WRITE_SCRIPT_COMMANDS, ...ADMIN_SCRIPT_COMMANDS]),
      ];
    case "reader": {
      return [
        "resetkeys",
        `%R~${keyPrefix}*`,
        ...READER_WRITABLE_KEYS.map((k) => `~${keyPrefix}${k}`),
        "resetchannels",
        "-@all",
        ...allow([...CONNECTION, ...READER_COMMANDS, ...READ_SCRIPT_COMMANDS]),
      ];
    }
    case "replication":
      return ["resetkeys", "resetchannels", "-@all", ...allow(REPLICATION_COMMANDS)];
    case "sentinel":
      return ["resetkeys", "allchannels", "-@all", ...allow(SENTINEL_ON_REDIS)];
  }
}

export interface AclUser {
  name: string;
  role: RedisRole;
  password: string;
}

/** `#<sha256 hex>`: a password as an ACL file stores it. */
export const passwordHash = (password: string): string => `#${createHash("sha256").update(password).digest("hex")}`;

const NAME = /^[A-Za-z0-9._-]{1,64}$/;

function userLine(name: string, password: string, rules: readonly string[]): string {
  if (!NAME.test(name)) throw new Error(`Redis user name "${name}": 1-64 of A-Z a-z 0-9 . _ -`);
  if (password.length < 16) throw new Error(`Redis user ${name}: a password of at least 16 characters, not ${password.length}`);
  return `user ${name} on resetpass ${passwordHash(password)} ${rules.join(" ")}`;
}

/** The lines of a shard Redis's ACL file (aclfile) for `users`, the `default` user off. */
export function redisAclLines(users: readonly AclUser[], keyPrefix: string): string[] {
  return [
    "user default off resetpass resetkeys resetchannels -@all",
    ...users.map((u) => userLine(u.name, u.password, aclRules(u.role, keyPrefix))),
  ];
}

/** The `user` lines of a Sentinel's configuration: `default` off, the Sentinels' own user (all Sentinel commands) and the services'. */
export function sentinelAclLines(o: {
  sentinel: { name: string; password: string };
  client: { name: string; password: string };
}): string[] {
  return [
    "user default off resetpass resetkeys resetchannels -@all",
    userLine(o.sentinel.name, o.sentinel.password, ["allchannels", "+@all"]),
    userLine(o.client.name, o.client.password, ["resetchannels", "-@all", ...allow(SENTINEL_CLIENT_ON_SENTINEL)]),
  ];
}
