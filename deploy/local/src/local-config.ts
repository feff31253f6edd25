// Settings of the local cluster launcher (`npm start`), read once from the environment. The
// services' own settings (topic, slots, listen addresses...) are LADDER_* variables of
// common/src/config.ts, which the launcher passes through.
//
//   LADDER_LOCAL_SHARDS      redis-server + shard node pairs to start   3
//   LADDER_DATA_DIR          where Kafka and Redis keep their data      .ladder (git-ignored)
//   LADDER_CACHE_DIR         where Kafka's jars are cached              ~/.cache/ladder
//   LADDER_KAFKA_PORT        the broker's client port                   9092
//   LADDER_REDIS_BASE_PORT   first Redis port; shard i gets base + i    7001
//   KAFKA_HOME               an unpacked Kafka 4.x to use instead of fetching jars
//   LADDER_LAUNCHER_LOG_LEVEL the launcher's own pino level              info
//   LADDER_REDIS_PERSIST     shards' Redis keep an append-only file (1) or nothing (0: load tests)   1
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { ConfigError, type Env } from "@ladder/common/config";

export interface LocalConfig {
  readonly shards: number;
  readonly dataDir: string;
  readonly cacheDir: string;
  readonly kafkaPort: number;
  readonly redisBasePort: number;
  readonly kafkaHome: string | undefined;
  readonly logLevel: string;
  readonly persistRedis: boolean;
}

export function loadLocalConfig(env: Env, cwd: string): LocalConfig {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = env[name];
    const value = raw ? Number(raw) : fallback;
    if (!Number.isInteger(value) || value < min || value > max) problems.push(`${name}: "${raw}" must be an integer from ${min} to ${max}`);
    return value;
  };
  const config: LocalConfig = {
    shards: int("LADDER_LOCAL_SHARDS", 3, 1, 64),
    dataDir: resolve(cwd, env.LADDER_DATA_DIR || ".ladder"),
    cacheDir: env.LADDER_CACHE_DIR || join(homedir(), ".cache", "ladder"),
    kafkaPort: int("LADDER_KAFKA_PORT", 9092, 1, 65535),
    redisBasePort: int("LADDER_REDIS_BASE_PORT", 7001, 1, 65535),
    kafkaHome: env.KAFKA_HOME || undefined,
    logLevel: env.LADDER_LAUNCHER_LOG_LEVEL || "info",
    persistRedis: env.LADDER_REDIS_PERSIST !== "0",
  };
  if (config.redisBasePort <= 6379 && config.redisBasePort + config.shards > 6379) problems.push("LADDER_REDIS_BASE_PORT: the Redis ports would include 6379");
  if (problems.length) throw new ConfigError(problems);
  return Object.freeze(config);
}
