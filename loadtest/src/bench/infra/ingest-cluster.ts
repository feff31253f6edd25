/**
 * A full local cluster for the benchmarks that measure a real one (grpc, ingest),
 * on the run's Kafka broker and fresh redis-servers: shard nodes, router and ingest as real
 * processes (deploy/local/src/services.ts), a fresh score topic, the bench's key prefix, a write
 * token and an admin token of the bench's own (LADDER_TOKENS; reads stay open). It comes with
 * the bench's clients of it (reads open, writes with the write token, the admin service) and a
 * CPU probe of each of its processes (cpu-meter.ts); stop() closes them all.
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { LadderClient } from "@ladder/client";
import { startServices, type RunningServices } from "@ladder/deploy/services";
import { clusterClients, type ClusterClients } from "../../run/cluster-clients.js";
import type { BenchContext } from "../context.js";
import { BENCH_KEY_PREFIX, BENCH_SLOTS } from "./bench-board.js";
import { machineCpu, othersCpu, pidCpu, redisCpu, selfCpu, sumProbes, type CpuProbe } from "./cpu-meter.js";
import { benchRedis, startRedisFleet, type RedisFleet } from "./infra-fixtures.js";
import { benchPort } from "./ports.js";
import { baseEnv } from "./service-process.js";

/** The processes a cluster's CPU is read for: its own, this process (the client), the machine and everything not the bench's. */
export const CLUSTER_CPU = ["router", "shardNodes", "redis", "ingest", "kafka", "client", "machine", "others"] as const;
export type ClusterCpu = (typeof CLUSTER_CPU)[number];

export interface IngestCluster {
  services: RunningServices;
  fleet: RedisFleet;
  /** The bench's own connection to each shard's Redis, in shard order. */
  redis: Redis[];
  topic: string;
  /** Reads, without a token; two connections. */
  reader: ClusterClients;
  /** Writes, with the write token. */
  writer: ClusterClients;
  /** AdminService (CreateBoard...), with the admin token. */
  admin: LadderClient["admin"];
  cpu: Record<ClusterCpu, CpuProbe>;
  /** Stops the services (Redis and Kafka stay). */
  stopServices(): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  shards: number;
}

export async function startIngestCluster(ctx: BenchContext, o: ClusterOptions): Promise<IngestCluster> {
  const broker = await ctx.kafka();
  const fleet = await startRedisFleet(ctx, "cluster", o.shards);
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
      LADDER_INGEST_MAX_LAG_MS: "0", // no admission control: the benches load the write path to its capacity, refusals would fail them
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
  const reader = clusterClients({ ...at, connections: 2, token: undefined });
  const writer = clusterClients({ ...at, connections: 2, token: writeToken });
  const admin = new LadderClient({ router: services.routerAddress, token: adminToken });
  const pid = (p: number | undefined) => (p === undefined ? async () => NaN : pidCpu(p));
  return {
    services,
    fleet,
    redis,
    topic,
    reader,
    writer,
    admin: admin.admin,
    cpu: {
      router: pidCpu(services.router().pid!),
      shardNodes: sumProbes(services.shardIds.map((id) => pidCpu(services.shardNode(id).pid!))),
      redis: sumProbes(redis.map(redisCpu)),
      ingest: pidCpu(services.ingest().pid!),
      kafka: pid(broker.process?.pid),
      client: selfCpu,
      machine: machineCpu,
      others: othersCpu,
    },
    stopServices: () => servicesEntry.release(),
    async stop() {
      reader.close();
      writer.close();
      admin.close();
      await servicesEntry.release();
      redis.forEach((r) => r.disconnect());
      await fleet.stop();
    },
  };
}
