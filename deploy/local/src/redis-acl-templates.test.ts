import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { redisAclLines, sentinelAclLines } from "@ladder/platform/redis-acl";
import { REDIS_USER_NAMES, redisAclTemplates, redisPasswordVar } from "./redis-acl-templates.js";
import { LOCAL_REDIS_USERS } from "./redis-credentials.js";

const run = promisify(execFile);
const LADDER_REDIS = fileURLToPath(new URL("../../images/redis/ladder-redis.sh", import.meta.url));

/** The templates as build.sh stages them, in a fresh directory. */
function stagedTemplates(): string {
  const dir = mkdtempSync(join(tmpdir(), "ladder-redis-templates-"));
  for (const [name, text] of Object.entries(redisAclTemplates())) writeFileSync(join(dir, name), text);
  return dir;
}

const passwords = Object.fromEntries(REDIS_USER_NAMES.map((u, i) => [u, `pw-${i}-of-${u}`.padEnd(20, "x")]));
const passwordEnv = Object.fromEntries(REDIS_USER_NAMES.map((u) => [redisPasswordVar(u), passwords[u]!]));

describe("deploy > redis image > acl templates", () => {
  it("names each user's password variable after the user", () => {
    expect(REDIS_USER_NAMES.map(redisPasswordVar)).toEqual([
      "REDIS_SHARD_NODE_PASSWORD",
      "REDIS_ROUTER_PASSWORD",
      "REDIS_INGEST_PASSWORD",
      "REDIS_ROUTER_ADMIN_PASSWORD",
      "REDIS_REPLICATION_PASSWORD",
      "REDIS_SENTINEL_PASSWORD",
      "REDIS_SENTINEL_CLIENT_PASSWORD",
    ]);
  });

  it("hold markers, never a hash: the image carries no password", () => {
    for (const text of Object.values(redisAclTemplates())) {
      expect(text).not.toMatch(/#[0-9a-f]{64}/);
      expect(text).toContain("user default off");
    }
    expect(redisAclTemplates()["users.acl.template"]).toContain("{{REDIS_ROUTER_PASSWORD}} resetkeys %R~{{key-prefix}}*");
  });

  it("filled in by ladder-redis, are redisAclLines' ACL file for the prefix (and the Sentinels' user lines)", async () => {
    const env = { PATH: process.env.PATH!, LADDER_REDIS_TEMPLATES: stagedTemplates(), REDIS_KEY_PREFIX: "t{x}:", ...passwordEnv };
    const { stdout } = await run("bash", [LADDER_REDIS, "acl"], { env });
    const users = Object.entries(LOCAL_REDIS_USERS).map(([name, role]) => ({ name, role, password: passwords[name]! }));
    expect(stdout).toBe(`${redisAclLines(users, "t{x}:").join("\n")}\n`);
    const sentinel = sentinelAclLines({
      sentinel: { name: "ladder-sentinel", password: passwords["ladder-sentinel"]! },
      client: { name: "ladder-sentinel-client", password: passwords["ladder-sentinel-client"]! },
    });
    expect(redisAclTemplates()["sentinel-users.template"].split("\n").length).toBe(sentinel.length + 1);
    // the default prefix is the services' (lb:)
    const plain = await run("bash", [LADDER_REDIS, "acl"], { env: { ...env, REDIS_KEY_PREFIX: "" } });
    expect(plain.stdout).toContain("~lb:* ");
  });

  it("refuses to start without a user's password, or with one too short, naming the variable; no password is printed", async () => {
    const base: Record<string, string> = { PATH: process.env.PATH!, LADDER_REDIS_TEMPLATES: stagedTemplates(), ...passwordEnv };
    const { REDIS_ROUTER_PASSWORD: _, ...missing } = base;
    await expect(run("bash", [LADDER_REDIS, "acl"], { env: missing })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("REDIS_ROUTER_PASSWORD is required"),
    });
    const short = run("bash", [LADDER_REDIS, "acl"], { env: { ...base, REDIS_INGEST_PASSWORD: "short" } });
    await expect(short).rejects.toMatchObject({ stderr: expect.stringContaining("REDIS_INGEST_PASSWORD is required") });
    const err = (await short.catch((e: { stdout: string; stderr: string }) => e)) as { stdout: string; stderr: string };
    expect(err.stderr + err.stdout).not.toContain("short");
    const spaced = run("bash", [LADDER_REDIS, "acl"], { env: { ...base, REDIS_INGEST_PASSWORD: "a password with spaces" } });
    await expect(spaced).rejects.toMatchObject({ stderr: expect.stringContaining("REDIS_INGEST_PASSWORD is required") });
    await expect(run("bash", [LADDER_REDIS, "acl"], { env: { ...base, REDIS_KEY_PREFIX: "a b" } })).rejects.toMatchObject({
      stderr: expect.stringContaining("REDIS_KEY_PREFIX"),
    });
  });
});
