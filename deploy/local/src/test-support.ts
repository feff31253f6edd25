// Shared by the integration tests of deploy/local: the Kafka jars (fetched once into the same cache
// the local cluster uses) and temporary directories.
import { mkdtemp } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@ladder/platform/logger";
import { ensureKafkaJars } from "./kafka-jars.js";

export const CACHE_DIR = join(homedir(), ".cache", "ladder");

export function kafkaLibs(): Promise<string> {
  return ensureKafkaJars({ cacheDir: CACHE_DIR, log: silentLogger() });
}

export function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `ladder-${prefix}-`));
}
