import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localCredentialsPath, readCredentialsFile } from "@ladder/platform/credentials-file";
import { localRedisPasswords, localRedisSecurity, localRedisServiceEnv } from "./redis-credentials.js";
import { sentinelConf } from "./sentinel.js";

const fresh = () => mkdtempSync(join(tmpdir(), "ladder-redis-creds-"));
const mode = (path: string) => statSync(path).mode & 0o777;

describe("local cluster > redis credentials", () => {
  it("makes every user's password once, beside the tokens, and reuses them; the file stays 0600", () => {
    const dir = fresh();
    const first = localRedisPasswords(dir);
    expect(Object.keys(first).sort()).toEqual(
      [
        "ladder-ingest",
        "ladder-replication",
        "ladder-router",
        "ladder-router-admin",
        "ladder-sentinel",
        "ladder-sentinel-client",
        "ladder-shard-node",
      ].sort(),
    );
    expect(new Set(Object.values(first)).size).toBe(7);
    expect(localRedisPasswords(dir)).toEqual(first);
    const file = localCredentialsPath(dir);
    expect(mode(file)).toBe(0o600);
    expect(readCredentialsFile(file).map((g) => g.name)).toEqual(["local-game-server", "local-admin", "local-gateway"]);
  });

  it("adds the Redis users to a file of tokens only (the array form), keeping its tokens", () => {
    const dir = fresh();
    const grants = [{ name: "mine", token: "a-token-of-sixteen-chars", roles: ["admin"] }];
    writeFileSync(localCredentialsPath(dir), JSON.stringify(grants), { mode: 0o644 });
    localRedisPasswords(dir);
    expect(readCredentialsFile(localCredentialsPath(dir))).toEqual(grants);
    expect(mode(localCredentialsPath(dir))).toBe(0o600);
  });

  it("gives each service its own user, its password in a 0600 file, never in the environment", () => {
    const dir = fresh();
    const pw = localRedisPasswords(dir);
    const env = localRedisServiceEnv(dir, pw, true);
    expect(env.shard.LADDER_REDIS_USERNAME).toBe("ladder-shard-node");
    expect(env.router).toMatchObject({ LADDER_REDIS_USERNAME: "ladder-router", LADDER_REDIS_ADMIN_USERNAME: "ladder-router-admin" });
    expect(env.ingest.LADDER_REDIS_USERNAME).toBe("ladder-ingest");
    expect(env.ingest.LADDER_SENTINEL_USERNAME).toBe("ladder-sentinel-client");
    expect(readFileSync(env.shard.LADDER_REDIS_PASSWORD_FILE!, "utf8")).toBe(pw["ladder-shard-node"]);
    expect(mode(env.shard.LADDER_REDIS_PASSWORD_FILE!)).toBe(0o600);
    expect(mode(join(dir, "secrets"))).toBe(0o700);
    const all = JSON.stringify(env);
    for (const p of Object.values(pw)) expect(all).not.toContain(p);
    expect(env.shard.LADDER_REDIS_ADMIN_USERNAME).toBeUndefined();
    expect(localRedisServiceEnv(dir, pw, false).shard.LADDER_SENTINEL_USERNAME).toBeUndefined();
  });

  it("writes Sentinel's users and its logins to the nodes and the other Sentinels into sentinel.conf", () => {
    const pw = localRedisPasswords(fresh());
    const security = localRedisSecurity(pw, "lb:");
    const conf = sentinelConf({
      primaries: [{ name: "ladder-shard-0", address: "127.0.0.1:7001" }],
      quorum: 2,
      downAfterMs: 2000,
      failoverTimeoutMs: 10_000,
      port: 7201,
      dataDir: "/d",
      security,
    });
    expect(conf).toMatch(/^user default off /m);
    expect(conf).toMatch(/^user ladder-sentinel-client on resetpass #[0-9a-f]{64} /m);
    expect(conf).toContain(`sentinel auth-user ladder-shard-0 ladder-sentinel\nsentinel auth-pass ladder-shard-0 ${pw["ladder-sentinel"]}`);
    expect(conf).toContain(`sentinel sentinel-user ladder-sentinel\nsentinel sentinel-pass ${pw["ladder-sentinel"]}`);
    expect(security.aclLines.join("\n")).not.toContain(pw["ladder-router"]);
  });
});
