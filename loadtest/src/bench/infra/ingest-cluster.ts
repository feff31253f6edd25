/**
 * A full local cluster for the ingest benchmark, on the run's Kafka broker and fresh
 * redis-servers: shard nodes, router and ingest as real processes
 * (deploy/local/src/services.ts), a fresh score topic, the bench's key prefix, and a
 * write token and an admin token of the bench's own (LADDER_TOKENS; reads stay open).
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { startServices, type RunningServices } from "@ladder/deploy/services";
import type { BenchContext } from "../context.js";
import { BENCH_KEY_PREFIX, BENCH_SLOTS } from "./bench-board.js";
import { benchRedis, startRedisFleet, type RedisFleet } from "./infra-fixtures.js";
import { benchPort } from "./ports.js";
import { baseEnv } from "./service-process.js";

export interface IngestCluster {
  services: RunningServices;
  fleet: RedisFleet;
  /** The bench's own connection to each shard's Redis, in shard order. */
  redis: Redis[];
  topic: string;
  writeToken: string;
  /** A token with the admin role (AdminService: CreateBoard...). */
  adminToken: string;
  /** Stops the services (Redis and Kafka stay). */
  stopServices(): Promise<void>;
  stop(): Promise<void>;
}

/** `nodeOptions`: NODE_OPTIONS of every service (the push bench preloads its GC probe with it). */
export async function startIngestCluster(ctx: BenchContext, shards: number, nodeOptions?: string): Promise<IngestCluster> {
  const broker = await ctx.kafka();
  const fleet = await startRedisFleet(ctx, "ingest", shards);
  const topic = `bench.scores.${randomBytes(4).toString("hex")}`;
  const writeToken = randomBytes(24).toString("base64url");
  const adminToken = randomBytes(24).toString("base64url");
  const services = await startServices({
    kafkaBrokers: broker.brokers,
    redisUrls: fleet.servers.map((s) => s.url),
    routerListen: `127.0.0.1:${await benchPort(ctx.ports)}`,
    ingestListen: `127.0.0.1:${await benchPort(ctx.ports)}`,
    settings: {
      LADDER_SCORE_TOPIC: topic,
      LADDER_KEY_PREFIX: BENCH_KEY_PREFIX,
      LADDER_SLOTS: String(BENCH_SLOTS),
      LADDER_LOG_LEVEL: "info", // the launcher waits for the services' info-level ready lines
    },
    tokens: [
      { name: "bench-game-server", token: writeToken, roles: ["write"] },
      { name: "bench-admin", token: adminToken, roles: ["admin"] },
    ],
    baseEnv: nodeOptions === undefined ? baseEnv() : { ...baseEnv(), NODE_OPTIONS: nodeOptions },
    log: ctx.log,
  });
  const servicesEntry = ctx.cleanup.push("cluster services (ingest benchmark)", () => services.stop());
  const redis = fleet.servers.map((s) => benchRedis(s.url));
  return {
    services,
    fleet,
    redis,
    topic,
    writeToken,
    adminToken,
    stopServices: () => servicesEntry.release(),
    async stop() {
      await servicesEntry.release();
      redis.forEach((r) => r.disconnect());
      await fleet.stop();
    },
  };
}
