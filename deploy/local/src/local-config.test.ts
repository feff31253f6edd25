import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "@ladder/platform/config";
import { loadLocalConfig, localRedisPorts } from "./local-config.js";

const problemsOf = (env: Record<string, string>) => {
  try {
    loadLocalConfig(env, "/work");
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  return expect.unreachable("no ConfigError");
};

describe("deploy > local-config", () => {
  it("starts on its defaults, the data dir under the working directory", () => {
    const c = loadLocalConfig({}, "/work");
    expect(c).toEqual({
      shards: 3,
      dataDir: "/work/.ladder",
      cacheDir: join(homedir(), ".cache", "ladder"),
      kafkaPort: 9092,
      redisBasePort: 7001,
      kafkaHome: undefined,
      logLevel: "info",
      persistRedis: false,
      redisHugePages: true,
      replicas: 0,
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it("reads every variable; an empty one counts as unset", () => {
    const c = loadLocalConfig(
      {
        LADDER_LOCAL_SHARDS: "5",
        LADDER_DATA_DIR: "/tmp/ladder-x",
        LADDER_CACHE_DIR: "/c",
        LADDER_KAFKA_PORT: "19092",
        LADDER_REDIS_BASE_PORT: "17001",
        KAFKA_HOME: "/opt/kafka",
        LADDER_LAUNCHER_LOG_LEVEL: "warn",
        LADDER_REDIS_PERSIST: "1",
        LADDER_REDIS_HUGE_PAGES: "0",
        LADDER_LOCAL_REPLICAS: "1",
      },
      "/work",
    );
    expect(c).toEqual({
      shards: 5,
      dataDir: "/tmp/ladder-x",
      cacheDir: "/c",
      kafkaPort: 19092,
      redisBasePort: 17001,
      kafkaHome: "/opt/kafka",
      logLevel: "warn",
      persistRedis: true,
      redisHugePages: false,
      replicas: 1,
    });
    expect(
      loadLocalConfig({ LADDER_LOCAL_SHARDS: "", LADDER_DATA_DIR: "", KAFKA_HOME: "", LADDER_LAUNCHER_LOG_LEVEL: "" }, "/w"),
    ).toMatchObject({
      shards: 3,
      dataDir: "/w/.ladder",
      kafkaHome: undefined,
      logLevel: "info",
    });
  });

  it("keeps the shards' Redis ports off 6379", () => {
    expect(problemsOf({ LADDER_REDIS_BASE_PORT: "6377" })).toEqual(["LADDER_REDIS_BASE_PORT: the Redis ports would include 6379"]);
    expect(problemsOf({ LADDER_REDIS_BASE_PORT: "6379", LADDER_LOCAL_SHARDS: "1" })).toEqual([
      "LADDER_REDIS_BASE_PORT: the Redis ports would include 6379",
    ]);
    expect(loadLocalConfig({ LADDER_REDIS_BASE_PORT: "6376" }, "/w").redisBasePort).toBe(6376); // 6376..6378
    expect(loadLocalConfig({ LADDER_REDIS_BASE_PORT: "6380" }, "/w").redisBasePort).toBe(6380);
    expect(problemsOf({ LADDER_REDIS_BASE_PORT: "65534" })).toEqual([
      "LADDER_REDIS_BASE_PORT: the Redis ports would go past 65535 (3 shards)",
    ]);
  });

  it("lays out replicas and Sentinels above the primaries, and keeps them off 6379 too", () => {
    expect(localRedisPorts(7001, 3, 1)).toEqual([
      [7001, 7003],
      [7101, 7103],
      [7201, 7203],
    ]);
    expect(localRedisPorts(7001, 3, 0)).toEqual([[7001, 7003]]);
    expect(problemsOf({ LADDER_REDIS_BASE_PORT: "6279", LADDER_LOCAL_REPLICAS: "1" })).toEqual([
      "LADDER_REDIS_BASE_PORT: the Redis ports would include 6379",
    ]);
    expect(loadLocalConfig({ LADDER_REDIS_BASE_PORT: "6279" }, "/w").redisBasePort).toBe(6279);
    expect(problemsOf({ LADDER_REDIS_BASE_PORT: "65400", LADDER_LOCAL_REPLICAS: "1" })).toEqual([
      "LADDER_REDIS_BASE_PORT: the Redis ports would go past 65535 (3 shards, 1 replica each)",
    ]);
  });

  it("reports every bad variable together, with the shared readers' messages", () => {
    expect(
      problemsOf({
        LADDER_LOCAL_SHARDS: "65",
        LADDER_KAFKA_PORT: "0",
        LADDER_REDIS_BASE_PORT: "x",
        LADDER_LAUNCHER_LOG_LEVEL: "loud",
        LADDER_REDIS_PERSIST: "maybe",
      }),
    ).toEqual([
      'LADDER_LOCAL_SHARDS: "65" must be an integer from 1 to 64',
      'LADDER_KAFKA_PORT: "0" must be an integer from 1 to 65535',
      'LADDER_REDIS_BASE_PORT: "x" must be an integer from 1 to 65535',
      'LADDER_LAUNCHER_LOG_LEVEL: "loud" must be one of trace, debug, info, warn, error, fatal, silent',
      'LADDER_REDIS_PERSIST: "maybe" must be 1 or 0',
    ]);
  });
});
