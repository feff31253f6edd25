// Shared by the integration tests of deploy/local (and the compose test): the Kafka jars (fetched once
// into the same cache the local cluster uses), temporary directories, and plain Redis connections.
import { mkdtemp } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { silentLogger } from "@ladder/platform/logger";
import { ensureKafkaJars } from "./kafka-jars.js";

export const CACHE_DIR = join(homedir(), ".cache", "ladder");

export function kafkaLibs(): Promise<string> {
  return ensureKafkaJars({ cacheDir: CACHE_DIR, log: silentLogger() });
}

export function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `ladder-${prefix}-`));
}

/**
 * A connection to 127.0.0.1:`port` logged in as `login` (none: no credentials), connecting at its first
 * command, without ready check or retries: a refused login or a missing server fails that command.
 */
export function redisAs(port: number, login?: { username: string; password: string }): Redis {
  const c = new Redis({
    host: "127.0.0.1",
    port,
    ...login,
    lazyConnect: true,
    enableReadyCheck: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  c.on("error", () => {});
  return c;
}
