// The ACL templates of the Redis image (deploy/images/redis): the lines of redisAclLines and
// sentinelAclLines (platform/src/redis-acl.ts) for the cluster's users (redis-credentials.ts), with a
// placeholder where each password's hash goes and another where the key prefix goes. build.sh writes them
// into the image; its entry point (ladder-redis) fills them in at every start from the passwords in its
// environment, so the image holds no password and no rule of its own:
//
//   {{REDIS_<USER>_PASSWORD}}   `#<sha256 hex>` of that variable's value (user ladder-shard-node:
//                               REDIS_SHARD_NODE_PASSWORD; redisPasswordVar)
//   {{key-prefix}}              REDIS_KEY_PREFIX (the services' LADDER_KEY_PREFIX; default lb:)
//
// A template line is a rendered line with markers in place of real values, so the filled-in file is
// redisAclLines' own output (redis-acl-templates.test.ts runs ladder-redis on them to check it).
import { passwordHash, redisAclLines, sentinelAclLines } from "@ladder/platform/redis-acl";
import { LOCAL_REDIS_USERS, SENTINEL_CLIENT } from "./redis-credentials.js";

/** The user names of the deployments' Redis users: every shard Redis user, and the Sentinels' client. */
export const REDIS_USER_NAMES: readonly string[] = Object.freeze([...Object.keys(LOCAL_REDIS_USERS), SENTINEL_CLIENT]);

/** The environment variable holding `user`'s password in the Redis image and in compose: ladder-router-admin → REDIS_ROUTER_ADMIN_PASSWORD. */
export const redisPasswordVar = (user: string): string =>
  `REDIS_${user
    .replace(/^ladder-/, "")
    .toUpperCase()
    .replace(/[-.]/g, "_")}_PASSWORD`;

/** The key prefix's marker. */
export const KEY_PREFIX_MARKER = "{{key-prefix}}";

/** A stand-in password per user (long enough for userLine), whose hash is then replaced by the user's marker. */
const standIn = (user: string) => `stand-in-password-of-${user}`;

function withMarkers(lines: readonly string[]): string {
  let text = `${lines.join("\n")}\n`;
  for (const user of REDIS_USER_NAMES) text = text.replaceAll(passwordHash(standIn(user)), `{{${redisPasswordVar(user)}}}`);
  return text;
}

/** users.acl.template (a shard Redis's ACL file) and sentinel-users.template (a Sentinel's `user` lines). */
export function redisAclTemplates(): { "users.acl.template": string; "sentinel-users.template": string } {
  const users = Object.entries(LOCAL_REDIS_USERS).map(([name, role]) => ({ name, role, password: standIn(name) }));
  return {
    "users.acl.template": withMarkers(redisAclLines(users, KEY_PREFIX_MARKER)),
    "sentinel-users.template": withMarkers(
      sentinelAclLines({
        sentinel: { name: "ladder-sentinel", password: standIn("ladder-sentinel") },
        client: { name: SENTINEL_CLIENT, password: standIn(SENTINEL_CLIENT) },
      }),
    ),
  };
}
