// Starts the integration tests' infrastructure once per run: one Kafka broker and three Redis
// servers, in containers when a Docker engine answers, otherwise as local processes (a JVM from
// Maven Central jars, redis-server from PATH). Tests read the addresses with inject().
import { mkdtemp, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { rootLogger } from "@ladder/common/logger";
import { startInfra } from "@ladder/deploy/infra";

declare module "vitest" {
  export interface ProvidedContext {
    kafkaBrokers: string[];
    redisUrls: string[];
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dataDir = await mkdtemp(join(tmpdir(), "ladder-test-"));
  const log = rootLogger({ level: "warn", name: "test-infra" });
  const infra = await startInfra({
    redisCount: 3,
    dataDir,
    cacheDir: join(homedir(), ".cache", "ladder"),
    persistRedis: false,
    preferContainers: true,
    log,
  });
  project.provide("kafkaBrokers", infra.kafka.brokers);
  project.provide("redisUrls", infra.redis.map((r) => r.url));
  return async () => {
    await infra.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}
