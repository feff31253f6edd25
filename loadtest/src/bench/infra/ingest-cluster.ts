/**
 * A full local cluster for the benchmarks that measure a real one (grpc, ingest),
 * on the run's Kafka broker and fresh redis-servers: shard nodes, router and ingest as real
 * processes (deploy/local/src/services.ts), a fresh score topic, the bench's key prefix and a write
 * token of the bench's own (LADDER_TOKENS; reads stay open). It comes with the bench's writing
 * clients of it and a CPU probe of each of its processes (cpu-meter.ts); stop() closes them all.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { startSentinel, type SentinelServer } from "@ladder/deploy/sentinel";
import { startServices, type RunningServices } from "@ladder/deploy/services";
import { clusterClients, type ClusterClients } from "../../run/cluster-clients.js";
import type { BenchContext } from "../context.js";
import { BENCH_KEY_PREFIX, BENCH_SLOTS } from "./bench-board.js";
import { pidCpu, redisCpu, selfCpu, sumProbes, type CpuProbe } from "./cpu-meter.js";
import { benchRedis, startRedisFleet, type RedisFleet } from "./infra-fixtures.js";
import { benchPort } from "./ports.js";
import { baseEnv } from "./service-process.js";

export interface IngestCluster {
  services: RunningServices;
  fleet: RedisFleet;
  /** With `sentinel`: the Sentinel watching the primaries. */
  sentinel?: SentinelServer;
  /** The bench's own connection to each shard's Redis, in shard order. */
  redis: Redis[];
  topic: string;
  /** Writes, with the write token. */
  writer: ClusterClients;
  /** The bench's admin token (boards it defines). */
  adminToken: string;
  /** Its processes' CPU (Redis: every shard's, summed), and this process's: the client. */
  cpu: Record<"router" | "shardNodes" | "redis" | "ingest" | "client", CpuProbe>;
  /** Stops the services (Redis and Kafka stay). */
  stopServices(): Promise<void>;
  stop(): Promise<void>;
}

/** The name the Sentinel of a cluster started with `sentinel` watches shard i's primary under. */
export const SENTINEL_NAME = (i: number) => `bench-shard-${i}`;

/**
 * With `sentinel`, the shards' Redis behind one Redis Sentinel (SENTINEL_NAME(i) watches shard i's
 * primary; it never fails one over here): the services address them as sentinel:// and spread their
 * reads over the replicas the Sentinel lists.
 */
export async function startIngestCluster(ctx: BenchContext, o: { shards: number; sentinel?: boolean }): Promise<IngestCluster> {
  const broker = await ctx.kafka();
  const fleet = await startRedisFleet(ctx, "cluster", o.shards);
  const sentinel = o.sentinel
    ? await startSentinel({
        dataDir: join(ctx.dataDir, "sentinel"),
        port: await benchPort(ctx.ports),
        primaries: fleet.servers.map((s, i) => ({ name: SENTINEL_NAME(i), address: `127.0.0.1:${s.port}` })),
        quorum: 1,
        downAfterMs: 600_000,
        failoverTimeoutMs: 600_000,
        log: ctx.log,
      })
    : undefined;
  if (sentinel) ctx.cleanup.push(`sentinel ${sentinel.address}`, () => sentinel.stop());
  const topic = `bench.scores.${randomBytes(4).toString("hex")}`;
  const writeToken = randomBytes(24).toString("base64url");
  const adminToken = randomBytes(24).toString("base64url");
  const services = await startServices({
    kafkaBrokers: broker.brokers,
    redisUrls: fleet.servers.map((s, i) => (sentinel ? `sentinel://${SENTINEL_NAME(i)}` : s.url)),
    routerListen: `127.0.0.1:${await benchPort(ctx.ports)}`,
    ingestListen: `127.0.0.1:${await benchPort(ctx.ports)}`,
    settings: {
      LADDER_SCORE_TOPIC: topic,
      LADDER_KEY_PREFIX: BENCH_KEY_PREFIX,
      LADDER_SLOTS: String(BENCH_SLOTS),
      LADDER_LOG_LEVEL: "info", // the launcher waits for the services' info-level ready lines
      LADDER_INGEST_MAX_LAG_MS: "0", // no admission control: the benches load the write path to its capacity, refusals would fail them
      ...(sentinel ? { LADDER_SENTINELS: sentinel.address } : {}),
    },
    tokens: [
      { name: "bench-game-server", token: writeToken, roles: ["write"] },
      { name: "bench-admin", token: adminToken, roles: ["admin"] },
    ],
    baseEnv: baseEnv(),
    log: ctx.log,
  });
  const servicesEntry = ctx.cleanup.push("cluster services", () => services.stop());
  const redis = fleet.servers.map((s) => benchRedis(s.url));
  const at = { router: services.routerAddress, ingest: services.ingestAddress, timeoutMs: 60_000 };
  const writer = clusterClients({ ...at, connections: 2, token: writeToken });
  return {
    services,
    fleet,
    sentinel,
    redis,
    topic,
    writer,
    adminToken,
    cpu: {
      router: pidCpu(services.router().pid!),
      shardNodes: sumProbes(services.shardIds.map((id) => pidCpu(services.shardNode(id).pid!))),
      redis: sumProbes(redis.map(redisCpu)),
      ingest: pidCpu(services.ingest().pid!),
      client: selfCpu,
    },
    stopServices: () => servicesEntry.release(),
    async stop() {
      writer.close();
      await servicesEntry.release();
      redis.forEach((r) => r.disconnect());
      await fleet.stop();
    },
  };
}
