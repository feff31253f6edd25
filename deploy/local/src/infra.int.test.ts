import { connect } from "node:net";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "@ladder/platform/logger";
import { dockerAvailable, startKafkaContainer, startRedisContainer } from "./containers.js";
import { startInfra } from "./infra.js";
import { describeKafka } from "@ladder/log/kafka-ready";
import { CACHE_DIR, tempDir } from "./test-support.js";

const log = silentLogger();
const dockerCheckStarted = Date.now();
const docker = await dockerAvailable(); // decided before the tests are collected, for it.runIf
const dockerCheckMs = Date.now() - dockerCheckStarted;

function refused(hostPort: string): Promise<boolean> {
  const [host, port] = hostPort.replace("redis://", "").split(":");
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) }, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

async function pingRedis(url: string): Promise<string> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  await redis.connect();
  try {
    return await redis.ping();
  } finally {
    redis.disconnect();
  }
}

describe("deploy > infra", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await tempDir("infra");
  });

  it("finds out quickly whether a docker engine answers", () => {
    expect(dockerCheckMs).toBeLessThan(10_000);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("starts kafka and redis servers together, and stop ends them all", async () => {
    const infra = await startInfra({
      redisCount: 2,
      dataDir: join(dir, "data"),
      cacheDir: CACHE_DIR,
      persistRedis: true,
      preferContainers: true,
      log,
    });
    try {
      expect(infra.redis).toHaveLength(2);
      expect(new Set(infra.redis.map((r) => r.port)).size).toBe(2);
      for (const r of infra.redis) expect(await pingRedis(r.url)).toBe("PONG");
      expect((await describeKafka(infra.kafka.brokers)).brokers).toEqual(infra.kafka.brokers);
    } finally {
      await infra.stop();
    }
    await infra.stop(); // stopping twice is harmless
    for (const address of [...infra.kafka.brokers, ...infra.redis.map((r) => r.url)]) {
      expect(await refused(address)).toBe(true);
    }
  }, 180_000);

  it("rejects a redisPorts list of the wrong length before starting anything", async () => {
    await expect(
      startInfra({
        redisCount: 2,
        redisPorts: [7001],
        dataDir: join(dir, "bad"),
        cacheDir: CACHE_DIR,
        persistRedis: false,
        preferContainers: false,
        log,
      }),
    ).rejects.toThrow(/redisPorts/);
  });

  it.runIf(docker)(
    "runs kafka and redis in containers when a docker engine answers",
    async () => {
      const [kafka, redis] = await Promise.all([startKafkaContainer({ log }), startRedisContainer({ persist: false, log })]);
      try {
        expect((await describeKafka(kafka.brokers)).brokers).toEqual(kafka.brokers);
        expect(await pingRedis(redis.url)).toBe("PONG");
      } finally {
        await Promise.allSettled([kafka.stop(), redis.stop()]);
      }
    },
    300_000,
  );
});
