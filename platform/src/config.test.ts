import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, type Config } from "./config.js";

describe("platform > config", () => {
  it("starts the local cluster on embedded defaults", () => {
    const c = loadConfig({});
    expect(c.kafkaBrokers).toEqual(["127.0.0.1:9092"]);
    expect(c.shards.map((s) => s.id)).toEqual(["shard-0", "shard-1", "shard-2"]);
    expect(c.routerListen).toBe("127.0.0.1:50051");
    expect(c.ingestListen).toBe("127.0.0.1:50052");
    expect(c.boards.forBoard("anything").prefix).toBe("");
    expect(Object.isFrozen(c)).toBe(true);
  });

  it("reports every problem at once", () => {
    try {
      loadConfig({ LADDER_SLOTS: "0", LADDER_SHARDS: "a=nope", LADDER_SHARD_ID: "zz", LADDER_BOARDS: "{" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join("\n");
      expect(problems).toMatch(/LADDER_SLOTS/);
      expect(problems).toMatch(/LADDER_SHARDS/);
      expect(problems).toMatch(/LADDER_SHARD_ID/);
      expect(problems).toMatch(/LADDER_BOARDS/);
    }
  });

  it("reads board specs and keeps a default", () => {
    const c = loadConfig({ LADDER_BOARDS: JSON.stringify([{ prefix: "daily:", maxPoints: 1000, resolutionMs: 1, ttlSeconds: 172800 }]) });
    expect(c.boards.forBoard("daily:2026-11-30")).toMatchObject({ maxPoints: 1000, resolutionMs: 1, ttlSeconds: 172800 });
    expect(c.boards.forBoard("global").maxPoints).toBe(2 ** 31 - 1);
    // order, ties and periods are a defined board's (AdminService.CreateBoard), not configuration
    expect(() => loadConfig({ LADDER_BOARDS: JSON.stringify([{ prefix: "d:", lowerIsBetter: true }]) })).toThrow(
      /board spec field "lowerIsBetter"/,
    );
  });

  it("reads tokens with roles and rejects weak or malformed ones", () => {
    const c = loadConfig({
      LADDER_TOKENS: JSON.stringify([{ name: "gs", token: "x".repeat(32), roles: ["write"] }]),
      LADDER_READS: "token",
    });
    expect(c.tokens).toEqual([{ name: "gs", token: "x".repeat(32), roles: ["write"] }]);
    expect(c.readsOpen).toBe(false);
    expect(() => loadConfig({ LADDER_TOKENS: JSON.stringify([{ name: "gs", token: "short", roles: ["write"] }]) })).toThrow(
      /LADDER_TOKENS\[0\]/,
    );
    expect(() => loadConfig({ LADDER_TOKENS: JSON.stringify([{ name: "gs", token: "x".repeat(32), roles: ["root"] }]) })).toThrow(/roles/);
  });

  it("reads the stream secret, unset or of 32+ characters", () => {
    expect(loadConfig({}).streamSecret).toBeUndefined();
    expect(loadConfig({ LADDER_STREAM_SECRET: "s".repeat(32) }).streamSecret).toBe("s".repeat(32));
    expect(() => loadConfig({ LADDER_STREAM_SECRET: "s".repeat(31) })).toThrow(/LADDER_STREAM_SECRET: needs 32\+ characters \(got 31\)/);
  });

  it("keeps today's defaults", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      scoreTopic: "ladder.scores",
      numSlots: 64,
      keyPrefix: "lb:",
      shardId: undefined,
      maxBatch: 1000,
      maxClockSkewMs: 300_000,
      shardTimeoutMs: 2000,
      heartbeatTtlMs: 5000,
      applyBatch: 500,
      logLevel: "info",
      tokens: [],
      readsOpen: true,
      clientToken: undefined,
      clientCredentialsFile: ".ladder/credentials.json",
      tls: undefined,
      tlsCaFile: undefined,
      dedupWindowMs: 600_000,
      readyLag: 1000,
      consistencyWaitMs: 5000,
      rebuildDb: 1,
      ingestMaxQueued: 100_000,
      ingestLag: { maxLagMs: 250, waitMs: 2000, pollMs: 20 },
    } satisfies Partial<Config>);
    expect(c.shards[0]).toEqual({ id: "shard-0", redisUrl: "redis://127.0.0.1:7001" });
  });

  it("reads every kind of variable", () => {
    const c = loadConfig({
      LADDER_KAFKA_BROKERS: " k1:9092, k2:9092 ,",
      LADDER_SLOTS: "128",
      LADDER_SHARDS: "a=redis://h:1,b=rediss://h:2",
      LADDER_SHARD_ID: "b",
      LADDER_KEY_PREFIX: "",
      LADDER_SHARD_TIMEOUT_MS: "250",
      LADDER_LOG_LEVEL: "debug",
      LADDER_TOKEN: "t",
      LADDER_DATA_DIR: "/d",
      LADDER_TLS_CERT_FILE: "c.pem",
      LADDER_TLS_KEY_FILE: "k.pem",
      LADDER_SLOTS_UNKNOWN: "ignored",
    });
    expect(c).toMatchObject({
      kafkaBrokers: ["k1:9092", "k2:9092"],
      numSlots: 128,
      shardId: "b",
      keyPrefix: "",
      shardTimeoutMs: 250,
      logLevel: "debug",
      clientToken: "t",
    });
    expect(c.shards).toEqual([
      { id: "a", redisUrl: "redis://h:1" },
      { id: "b", redisUrl: "rediss://h:2" },
    ]);
    expect(c.clientCredentialsFile).toBe("/d/credentials.json");
    expect(c.launcherStateFile).toBe("/d/launcher-state.json");
    expect(c.tls).toEqual({ certFile: "c.pem", keyFile: "k.pem" });
    expect(Object.isFrozen(c.shards)).toBe(true);
  });

  it("reads the gateway's variables: its router defaults to LADDER_ROUTER_LISTEN, origins are checked", () => {
    expect(loadConfig({ LADDER_ROUTER_LISTEN: "r:1" })).toMatchObject({
      gatewayListen: "127.0.0.1:8080",
      gatewayRouter: "r:1",
      gatewayToken: undefined,
      gatewayCorsOrigins: [],
      gatewayRate: 20,
      gatewayBurst: 60,
      gatewayStreams: 8,
      gatewayTrustProxy: false,
    } satisfies Partial<Config>);
    const c = loadConfig({
      LADDER_GATEWAY_LISTEN: "0.0.0.0:80",
      LADDER_GATEWAY_ROUTER: "router:50051",
      LADDER_GATEWAY_TOKEN: "t",
      LADDER_GATEWAY_CORS_ORIGINS: "https://game.example, http://localhost:5173",
      LADDER_GATEWAY_RATE: "5",
      LADDER_GATEWAY_BURST: "10",
      LADDER_GATEWAY_STREAMS: "2",
      LADDER_GATEWAY_TRUST_PROXY: "1",
    });
    expect(c).toMatchObject({
      gatewayListen: "0.0.0.0:80",
      gatewayRouter: "router:50051",
      gatewayToken: "t",
      gatewayCorsOrigins: ["https://game.example", "http://localhost:5173"],
      gatewayRate: 5,
      gatewayBurst: 10,
      gatewayStreams: 2,
      gatewayTrustProxy: true,
    });
    expect(loadConfig({ LADDER_GATEWAY_CORS_ORIGINS: "*" }).gatewayCorsOrigins).toEqual(["*"]);
    expect(() => loadConfig({ LADDER_GATEWAY_CORS_ORIGINS: "https://game.example/path" })).toThrow(
      /LADDER_GATEWAY_CORS_ORIGINS: "https:\/\/game.example\/path" is not an origin/,
    );
    expect(() => loadConfig({ LADDER_GATEWAY_ROUTER: "nowhere" })).toThrow(/LADDER_GATEWAY_ROUTER/);
    // several routers, as the compose file gives them: a gRPC target the gateway's channel resolves
    expect(loadConfig({ LADDER_GATEWAY_ROUTER: "ipv4:127.0.0.1:25051,127.0.0.1:25053" }).gatewayRouter).toBe(
      "ipv4:127.0.0.1:25051,127.0.0.1:25053",
    );
  });

  it("takes an unset-looking empty integer or duration as its default", () => {
    expect(loadConfig({ LADDER_SLOTS: "", LADDER_SHARD_TIMEOUT_MS: "" })).toMatchObject({ numSlots: 64, shardTimeoutMs: 2000 });
  });

  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as ConfigError).problems;
    }
    return expect.unreachable("no ConfigError");
  };

  it("rejects a bad integer with its bounds", () => {
    expect(problemsOf({ LADDER_MAX_BATCH: "1.5" })).toEqual(['LADDER_MAX_BATCH: "1.5" must be an integer from 1 to 100000']);
    expect(problemsOf({ LADDER_REBUILD_DB: "16" })).toEqual(['LADDER_REBUILD_DB: "16" must be an integer from 1 to 15']);
    expect(problemsOf({ LADDER_SLOTS: "many" })).toEqual(['LADDER_SLOTS: "many" must be an integer from 1 to 10000']);
  });

  it("rejects a bad duration with its bounds", () => {
    expect(problemsOf({ LADDER_HEARTBEAT_TTL_MS: "99" })).toEqual([
      'LADDER_HEARTBEAT_TTL_MS: "99" must be a duration in milliseconds, an integer from 100 to 600000 (10 min)',
    ]);
    expect(problemsOf({ LADDER_SHARD_TIMEOUT_MS: "2s" })[0]).toMatch(/^LADDER_SHARD_TIMEOUT_MS: "2s" must be a duration in milliseconds/);
  });

  it("rejects strings, choices, lists and pairs that do not fit, each once, naming the variable", () => {
    expect(problemsOf({ LADDER_SCORE_TOPIC: "a b" })).toEqual([`LADDER_SCORE_TOPIC: "a b" does not match /^[A-Za-z0-9._-]{1,200}$/`]);
    expect(problemsOf({ LADDER_READS: "closed" })).toEqual(['LADDER_READS: "closed" must be one of open, token']);
    expect(problemsOf({ LADDER_KAFKA_BROKERS: "" })).toEqual(["LADDER_KAFKA_BROKERS: empty list"]);
    expect(problemsOf({ LADDER_SHARDS: "" })).toEqual(["LADDER_SHARDS: at least one shard is needed"]);
    expect(problemsOf({ LADDER_SHARDS: "a=redis://h:1,a=redis://h:2" })).toEqual(["LADDER_SHARDS: shard ids must be unique"]);
    expect(problemsOf({ LADDER_TLS_CERT_FILE: "c.pem" })).toEqual([
      "LADDER_TLS_KEY_FILE: needed with LADDER_TLS_CERT_FILE (the two go together)",
    ]);
    expect(problemsOf({ LADDER_TOKENS: "{}" })).toEqual(["LADDER_TOKENS: not a JSON array"]);
    expect(problemsOf({ LADDER_BOARDS: JSON.stringify([{ prefix: "a", minPoints: 5, maxPoints: 1 }]) })).toEqual([
      'LADDER_BOARDS: board spec "a": minPoints and maxPoints must be integers with minPoints <= maxPoints, got 5 and 1',
    ]);
  });

  it("addresses a shard with replicas through the Sentinels of LADDER_SENTINELS", () => {
    const c = loadConfig({
      LADDER_SHARDS: "a=sentinel://ladder-a,b=redis://h:2,c=sentinel://:pw@ladder-c",
      LADDER_SENTINELS: "s1:26379, s2:26379",
      LADDER_REPLICA_MAX_LAG_MS: "500",
    });
    expect(c.shards).toEqual([
      { id: "a", redisUrl: "sentinel://s1:26379,s2:26379/ladder-a" },
      { id: "b", redisUrl: "redis://h:2" },
      { id: "c", redisUrl: "sentinel://:pw@s1:26379,s2:26379/ladder-c" },
    ]);
    expect(c).toMatchObject({ sentinels: ["s1:26379", "s2:26379"], replicaMaxLagMs: 500 });
    expect(loadConfig({}).replicaMaxLagMs).toBe(1000);
    expect(problemsOf({ LADDER_SHARDS: "a=sentinel://ladder-a" })).toEqual([
      "LADDER_SENTINELS: needed by the sentinel:// shards of LADDER_SHARDS (the Sentinels to ask for their primary and replicas)",
    ]);
    expect(problemsOf({ LADDER_SHARDS: "a=sentinel://bad name", LADDER_SENTINELS: "s:1" })).toEqual([
      'LADDER_SHARDS: "a=sentinel://bad name": "bad name" is not a master name (1-128 of A-Z a-z 0-9 . _ -)',
    ]);
    expect(problemsOf({ LADDER_SENTINELS: "s1:26379,nope" })).toEqual(['LADDER_SENTINELS: "nope" is not host:port']);
  });
});

describe("platform > config > secrets", () => {
  it("never repeats a Redis password in a problem", () => {
    try {
      loadConfig({ LADDER_SHARDS: "shard-0=redis://:hunter2@h:1,bad part=redis://:hunter2@h:2" });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toMatch(/LADDER_SHARDS/);
      expect((err as Error).message).not.toContain("hunter2");
    }
  });
});
