// Settings of the local cluster launcher (`npm start`), read once from the environment. The
// services' own settings (topic, slots, listen addresses...) are LADDER_* variables of
// platform/src/config.ts, which the launcher passes through.
//
// The variables are the schema below (localEnv), built from the readers of
// platform/src/env-schema.ts like the services' schema; docs/configuration.md's launcher table is generated
// from it (npm run config-table).
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { LADDER_DATA_DIR, LOG_LEVELS, type Env } from "@ladder/platform/config";
import { envSchema, envVariables, flag, int, oneOf, optional, parseEnv, path, port } from "@ladder/platform/env-schema";

export interface LocalConfig {
  readonly shards: number;
  readonly dataDir: string;
  readonly cacheDir: string;
  readonly kafkaPort: number;
  readonly redisBasePort: number;
  readonly kafkaHome: string | undefined;
  readonly logLevel: string;
  readonly persistRedis: boolean;
  /** The shards' Redis back their memory with transparent huge pages (redis-server.ts, HUGE_PAGES_ENV). */
  readonly redisHugePages: boolean;
  /** Replicas per shard's Redis; with any, Redis Sentinels decide failovers (replicated-redis.ts). */
  readonly replicas: number;
}

/** Redis's default port, which the shards' Redis must not take (a system Redis may hold it). */
const REDIS_DEFAULT_PORT = 6379;

/** Every variable the launcher reads, in the order of LocalConfig. */
export const localEnv = envVariables({
  LADDER_LOCAL_SHARDS: int({ default: 3, min: 1, max: 64, description: "redis-server + shard node pairs to start" }),
  LADDER_DATA_DIR,
  LADDER_CACHE_DIR: path({
    default: join(homedir(), ".cache", "ladder"),
    shown: "`~/.cache/ladder`",
    description: "where Kafka's jars are cached",
  }),
  LADDER_KAFKA_PORT: port({ default: 9092, description: "the broker's client port" }),
  LADDER_REDIS_BASE_PORT: port({ default: 7001, description: "first Redis port; shard i gets base + i (the range may not include 6379)" }),
  KAFKA_HOME: optional({ unsetMeans: "— (fetch the jars)", description: "an unpacked Kafka 4.x to use instead of fetching jars" }),
  LADDER_LAUNCHER_LOG_LEVEL: oneOf({ values: LOG_LEVELS, default: "info", description: "the launcher's own pino level" }),
  LADDER_REDIS_PERSIST: flag({
    default: false,
    description:
      "shards' Redis keep an append-only file (1: restarts keep the data, at the cost of AOF rewrites that fork and serialize the whole board) or nothing (0: a restarted Redis is refilled from the latest snapshot and the log's tail)",
  }),
  LADDER_REDIS_HUGE_PAGES: flag({
    default: true,
    description:
      "shards' Redis back their memory with transparent huge pages (1: jemalloc asks for them, `--disable-thp no`; 22–25% less Redis CPU per board write at 10M–25M players a shard: docs/performance.md, Huge pages) or 4 KiB pages (0: Redis's default); nothing changes where the kernel's THP mode is `never`",
  }),
  LADDER_LOCAL_REPLICAS: int({
    default: 0,
    min: 0,
    max: 5,
    description:
      "replicas per shard's Redis (replica j of shard i on base + 100·j + i), and with any, 3 Redis Sentinels (base + 100·(replicas + 1) + 0…2) that fail a shard over to a replica; the services then address the shards as sentinel://ladder-shard-i",
  }),
});

/** The launcher's Redis ports (primaries, replicas, Sentinels) as [first, last] ranges. */
export function localRedisPorts(base: number, shards: number, replicas: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [[base, base + shards - 1]];
  for (let j = 1; j <= replicas; j++) ranges.push([base + 100 * j, base + 100 * j + shards - 1]);
  if (replicas > 0) ranges.push([base + 100 * (replicas + 1), base + 100 * (replicas + 1) + SENTINELS - 1]);
  return ranges;
}

/** Sentinels of the local replica layout. */
export const SENTINELS = 3;

const localSchema = (cwd: string) =>
  envSchema(localEnv, {
    check(v, problem) {
      const ranges = localRedisPorts(v.LADDER_REDIS_BASE_PORT, v.LADDER_LOCAL_SHARDS, v.LADDER_LOCAL_REPLICAS);
      if (ranges.some(([first, last]) => first <= REDIS_DEFAULT_PORT && last >= REDIS_DEFAULT_PORT))
        problem("LADDER_REDIS_BASE_PORT", `the Redis ports would include ${REDIS_DEFAULT_PORT}`);
      if (ranges.some(([, last]) => last > 65_535))
        problem(
          "LADDER_REDIS_BASE_PORT",
          `the Redis ports would go past 65535 (${v.LADDER_LOCAL_SHARDS} shards${v.LADDER_LOCAL_REPLICAS ? `, ${v.LADDER_LOCAL_REPLICAS} replica${v.LADDER_LOCAL_REPLICAS > 1 ? "s" : ""} each` : ""})`,
        );
    },
    build: (v): LocalConfig => ({
      shards: v.LADDER_LOCAL_SHARDS,
      dataDir: resolve(cwd, v.LADDER_DATA_DIR),
      cacheDir: v.LADDER_CACHE_DIR,
      kafkaPort: v.LADDER_KAFKA_PORT,
      redisBasePort: v.LADDER_REDIS_BASE_PORT,
      kafkaHome: v.KAFKA_HOME,
      logLevel: v.LADDER_LAUNCHER_LOG_LEVEL,
      persistRedis: v.LADDER_REDIS_PERSIST,
      redisHugePages: v.LADDER_REDIS_HUGE_PAGES,
      replicas: v.LADDER_LOCAL_REPLICAS,
    }),
  });

/** Reads, validates and freezes the launcher's settings. Throws ConfigError listing every problem. */
export function loadLocalConfig(env: Env, cwd: string): LocalConfig {
  return parseEnv(localSchema(cwd), env);
}
