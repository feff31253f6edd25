import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ConfigError, loadConfig } from "./config.js";

const dir = mkdtempSync(join(tmpdir(), "ladder-redis-login-"));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
};
const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    return (err as ConfigError).problems;
  }
  return [];
};

describe("platform > redis login", () => {
  it("logs in as nobody when nothing is set: the router's admin path as the same", () => {
    const c = loadConfig({});
    expect(c.redisLogin).toEqual({
      username: undefined,
      password: undefined,
      sentinelUsername: undefined,
      sentinelPassword: undefined,
      tlsCa: undefined,
      sentinelTls: false,
    });
    expect(c.redisAdminLogin).toBe(c.redisLogin);
  });

  it("takes a password from its variable or from a file (its final newline dropped), and the CA's PEM", () => {
    const c = loadConfig({
      LADDER_REDIS_USERNAME: "ladder-router",
      LADDER_REDIS_PASSWORD_FILE: file("pw", "secret-from-a-file\n"),
      LADDER_REDIS_ADMIN_USERNAME: "ladder-router-admin",
      LADDER_REDIS_ADMIN_PASSWORD: "admin-secret",
      LADDER_SENTINEL_USERNAME: "ladder-sentinel-client",
      LADDER_SENTINEL_PASSWORD: "sentinel-secret",
      LADDER_REDIS_TLS_CA_FILE: file("ca.pem", "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n"),
    });
    expect(c.redisLogin).toMatchObject({
      username: "ladder-router",
      password: "secret-from-a-file",
      sentinelUsername: "ladder-sentinel-client",
    });
    expect(c.redisLogin.tlsCa).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(c.redisAdminLogin).toMatchObject({
      username: "ladder-router-admin",
      password: "admin-secret",
      sentinelPassword: "sentinel-secret",
    });
    expect(Object.isFrozen(c.redisLogin)).toBe(true);
    // Sentinels (and the nodes they name) over TLS: the admin path too
    expect(c.redisLogin.sentinelTls).toBe(false);
    const tls = loadConfig({ LADDER_SENTINEL_TLS: "1" });
    expect([tls.redisLogin.sentinelTls, tls.redisAdminLogin.sentinelTls]).toEqual([true, true]);
    expect(problems({ LADDER_SENTINEL_TLS: "maybe" })).toEqual([expect.stringMatching(/LADDER_SENTINEL_TLS.*1 or 0/)]);
  });

  it("refuses a password given twice, a user without one and a file it cannot read, naming each variable", () => {
    const found = problems({
      LADDER_REDIS_PASSWORD: "a",
      LADDER_REDIS_PASSWORD_FILE: file("pw2", "b"),
      LADDER_REDIS_ADMIN_USERNAME: "admin",
      LADDER_SENTINEL_PASSWORD_FILE: join(dir, "missing"),
    });
    expect(found).toContain("LADDER_REDIS_PASSWORD_FILE: set LADDER_REDIS_PASSWORD or LADDER_REDIS_PASSWORD_FILE, not both");
    expect(found).toContain("LADDER_REDIS_ADMIN_PASSWORD: needed with LADDER_REDIS_ADMIN_USERNAME (or LADDER_REDIS_ADMIN_PASSWORD_FILE)");
    expect(found.join("\n")).toMatch(/LADDER_SENTINEL_PASSWORD_FILE: cannot read the Sentinel password from .*missing: ENOENT/);
    expect(found.join("\n")).not.toMatch(/secret|: a\b|: b\b/);
  });
});
