// Starts the integration tests' infrastructure once per run (shared by the integration projects): one
// Kafka broker and three Redis servers, in containers when a Docker engine answers, otherwise as local processes (a JVM from
// Maven Central jars, redis-server from PATH). Tests read the addresses with inject(). First it brings
// the build up to date (`npm run build`, incremental): the processes the tests start (services,
// launcher, CLI) run the packages' dist/, the tests themselves their src/.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";
import { rootLogger } from "@ladder/platform/logger";
import { startInfra } from "@ladder/deploy/infra";

declare module "vitest" {
  export interface ProvidedContext {
    kafkaBrokers: string[];
    redisUrls: string[];
    /** The heartbeat TTL of the test clusters (cluster-harness.ts), by group (vitest.config.ts). */
    heartbeatTtlMs?: number;
  }
}

/** One infrastructure for every project that names this setup (the serial and the parallel integration tests), stopped by the last. */
interface Shared {
  infra: ReturnType<typeof startInfra>;
  dataDir: Promise<string>;
  users: number;
}
const SHARED = Symbol.for("ladder.test.infra");
const registry = globalThis as unknown as { [SHARED]?: Shared };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let shared = registry[SHARED];
  if (!shared) {
    const dataDir = mkdtemp(join(tmpdir(), "ladder-test-"));
    const log = rootLogger({ level: "warn", name: "test-infra" });
    shared = registry[SHARED] = {
      dataDir,
      users: 0,
      infra: Promise.all([dataDir, build()]).then(([dir]) =>
        startInfra({
          redisCount: 3,
          dataDir: dir,
          cacheDir: join(homedir(), ".cache", "ladder"),
          persistRedis: false,
          preferContainers: true,
          log,
        }),
      ),
    };
  }
  shared.users++;
  const infra = await shared.infra;
  project.provide("kafkaBrokers", infra.kafka.brokers);
  project.provide(
    "redisUrls",
    infra.redis.map((r) => r.url),
  );
  return async () => {
    if (--shared.users > 0) return;
    delete registry[SHARED];
    await infra.stop();
    await rm(await shared.dataDir, { recursive: true, force: true });
  };
}

/** `npm run build`: what the tests' child processes run, compiled from this checkout's sources. */
async function build(): Promise<void> {
  await promisify(execFile)("npm", ["run", "build", "--silent"], { cwd: join(import.meta.dirname, "..") }).catch(
    (err: { stdout?: string; stderr?: string }) => {
      throw new Error(`npm run build failed:\n${err.stdout ?? ""}${err.stderr ?? ""}`);
    },
  );
}
