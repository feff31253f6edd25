// deploy/compose/docker-compose.yml read as docker-compose reads it (YAML merge keys, ${VAR:?...} and
// ${VAR:-default} from the environment), without an engine: what must hold of its Redis security.
// The deployment itself runs in test/compose.containers.test.ts.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "@ladder/platform/config";
import { REDIS_USER_NAMES, redisPasswordVar } from "../../local/src/redis-acl-templates.js";

interface Service {
  image: string;
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
}

/** What the operator exports (the file's top comment): every Kafka and Redis password, a distinct value each. */
const ENV: Record<string, string> = {
  ...Object.fromEntries(
    ["BROKER", "INGEST", "SHARD", "ROUTER", "ROUTER_CONTROL"].map((u) => [`KAFKA_${u}_PASSWORD`, `kafka${u}0123456789`]),
  ),
  ...Object.fromEntries(REDIS_USER_NAMES.map((u) => [redisPasswordVar(u), `redis${u.replace(/-/g, "")}0123456789`])),
  LADDER_STREAM_SECRET: "s".repeat(32),
};

/** The compose file with `env` substituted in its values, as docker-compose does after parsing; throws its message for a required variable that is missing. */
function composeFile(env: Record<string, string>): Record<string, Service> {
  const substitute = (value: unknown): unknown => {
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    if (Array.isArray(value)) return value.map(substitute);
    if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v)]));
    if (typeof value !== "string") return value;
    return value.replace(/\$\{([A-Z0-9_]+)(?::([?-])([^}]*))?\}/g, (_, name: string, kind: string | undefined, rest: string) => {
      if (env[name] !== undefined && env[name] !== "") return env[name]!;
      if (kind === "?") throw new Error(`${name}: ${rest}`);
      return kind === "-" ? rest : "";
    });
  };
  const parsed = parse(readFileSync(new URL("../docker-compose.yml", import.meta.url), "utf8"), { merge: true }) as { services: unknown };
  return substitute(parsed.services) as Record<string, Service>;
}

const services = composeFile(ENV);
const redisPasswordsOf = (s: Service) =>
  Object.entries(s.environment ?? {})
    .filter(([, v]) => Object.entries(ENV).some(([k, pw]) => k.startsWith("REDIS_") && pw === v))
    .map(([, v]) => Object.entries(ENV).find(([k, pw]) => k.startsWith("REDIS_") && pw === v)![0])
    .sort();

describe("deploy > compose file > redis security", () => {
  it("refuses to start without the Redis passwords, naming what to do", () => {
    const { REDIS_ROUTER_PASSWORD: _, ...without } = ENV;
    expect(() => composeFile(without)).toThrow(/REDIS_ROUTER_PASSWORD: set the Redis passwords/);
  });

  it("runs every Redis with every user's password and its health check logged in; every Sentinel with its own and its clients'", () => {
    const redis = Object.entries(services).filter(([, s]) => s.image.startsWith("ladder/redis"));
    const servers = redis.filter(([, s]) => s.command?.[0] !== "sentinel");
    const sentinels = redis.filter(([, s]) => s.command?.[0] === "sentinel");
    expect(servers.map(([n]) => n).sort()).toEqual([
      "redis-0",
      "redis-0-replica",
      "redis-1",
      "redis-1-replica",
      "redis-2",
      "redis-2-replica",
    ]);
    expect(sentinels).toHaveLength(3);
    for (const [name, s] of servers) {
      expect(redisPasswordsOf(s), name).toEqual(REDIS_USER_NAMES.map(redisPasswordVar).sort());
      expect(s.environment?.REDIS_KEY_PREFIX ?? "lb:", name).toBe("lb:"); // the services' default LADDER_KEY_PREFIX
    }
    for (const [name, s] of sentinels)
      expect(redisPasswordsOf(s), name).toEqual(["REDIS_SENTINEL_CLIENT_PASSWORD", "REDIS_SENTINEL_PASSWORD"]);
    for (const name of ["redis-0", "redis-1", "redis-2"])
      expect(services[name]!.healthcheck?.test).toEqual(["CMD", "ladder-redis", "ping"]);
  });

  it("gives each service its own Redis user and only its password, which the services' configuration accepts", () => {
    const own: Record<string, { user?: string; admin?: string; passwords: string[] }> = {
      "shard-node-0": { user: "ladder-shard-node", passwords: ["REDIS_SENTINEL_CLIENT_PASSWORD", "REDIS_SHARD_NODE_PASSWORD"] },
      "router-0": {
        user: "ladder-router",
        admin: "ladder-router-admin",
        passwords: ["REDIS_ROUTER_ADMIN_PASSWORD", "REDIS_ROUTER_PASSWORD", "REDIS_SENTINEL_CLIENT_PASSWORD"],
      },
      ingest: { user: "ladder-ingest", passwords: ["REDIS_INGEST_PASSWORD", "REDIS_SENTINEL_CLIENT_PASSWORD"] },
      gateway: { passwords: [] },
      "kafka-acls": { passwords: [] },
    };
    for (const i of [1, 2]) own[`shard-node-${i}`] = own["shard-node-0"]!;
    own["router-1"] = own["router-0"]!;
    const ladder = Object.entries(services).filter(([, s]) => s.image.startsWith("ladder/services"));
    expect(ladder.map(([n]) => n).sort()).toEqual(Object.keys(own).sort());
    for (const [name, s] of ladder) {
      const want = own[name]!;
      expect(redisPasswordsOf(s), name).toEqual(want.passwords);
      if (want.user === undefined) continue;
      const config = loadConfig(s.environment!);
      expect(config.redisLogin.username, name).toBe(want.user);
      expect(config.redisLogin.password, name).toBe(ENV[redisPasswordVar(want.user)]);
      expect(config.redisLogin.sentinelUsername, name).toBe("ladder-sentinel-client");
      expect(config.redisLogin.sentinelPassword, name).toBe(ENV.REDIS_SENTINEL_CLIENT_PASSWORD);
      expect(config.redisAdminLogin.username, name).toBe(want.admin ?? want.user);
      expect(config.redisAdminLogin.password, name).toBe(ENV[redisPasswordVar(want.admin ?? want.user)]);
    }
  });
});
