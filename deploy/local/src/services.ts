// Starts the cluster's own services as child processes: one shard node per Redis, then the router and
// ingest, all from this checkout's TypeScript through tsx, configured only through LADDER_* variables
// (the same ones a deployment sets). Each service is ready when it logs its ready line; the router's
// and ingest's bound ports are read from those lines, so tests can ask for port 0.
import type { Logger } from "@ladder/common/logger";
import type { ManagedProcess } from "./managed-process.js";
import { spawnService, type Started } from "./spawn-service.js";

const ENTRY = {
  shard: "shard-node/src/main.ts",
  router: "router/src/main.ts",
  ingest: "ingest/src/main.ts",
} as const;

export interface ServicesOptions {
  kafkaBrokers: readonly string[];
  /** One shard per Redis URL: shard-0, shard-1, ... */
  redisUrls: readonly string[];
  /** Router and ingest listen addresses; port 0 picks a free port. */
  routerListen: string;
  ingestListen: string;
  /** Any other LADDER_* settings (topic, slots, key prefix, heartbeat TTL, log level...). */
  settings?: Readonly<Record<string, string>>;
  /** The environment the children inherit (PATH and friends). */
  baseEnv: Readonly<Record<string, string | undefined>>;
  log: Logger;
  readyTimeoutMs?: number;
}

export interface RunningServices {
  readonly routerAddress: string;
  readonly ingestAddress: string;
  readonly shardIds: readonly string[];
  /** The environment every service got (without the per-shard id). */
  readonly env: Readonly<Record<string, string>>;
  shardNode(id: string): ManagedProcess;
  /** Starts shard node `id` again after it stopped or was killed. */
  restartShardNode(id: string): Promise<void>;
  router(): ManagedProcess;
  restartRouter(): Promise<void>;
  ingest(): ManagedProcess;
  restartIngest(): Promise<void>;
  /** SIGTERM to every service (ingest first, shard nodes last), waiting for each to exit. */
  stop(): Promise<void>;
}

export async function startServices(opts: ServicesOptions): Promise<RunningServices> {
  const shardIds = opts.redisUrls.map((_, i) => `shard-${i}`);
  const env: Record<string, string> = {
    LADDER_KAFKA_BROKERS: opts.kafkaBrokers.join(","),
    LADDER_SHARDS: opts.redisUrls.map((url, i) => `${shardIds[i]}=${url}`).join(","),
    ...opts.settings,
  };
  const timeoutMs = opts.readyTimeoutMs ?? 60_000;
  const spawn = (name: string, entry: string, extra: Record<string, string>, ready: string) =>
    spawnService({ name, entry, env: { ...opts.baseEnv, ...env, ...extra }, ready, timeoutMs, log: opts.log.child({ service: name }) });

  const shards = new Map<string, Started>();
  const startShard = async (id: string) => {
    shards.set(id, await spawn(id, ENTRY.shard, { LADDER_SHARD_ID: id }, "shard node ready"));
  };
  await Promise.all(shardIds.map(startShard));
  const startRouter = (listen: string) => spawn("router", ENTRY.router, { LADDER_ROUTER_LISTEN: listen }, "router listening");
  let router = await startRouter(opts.routerListen);
  const startIngest = (listen: string) => spawn("ingest", ENTRY.ingest, { LADDER_INGEST_LISTEN: listen }, "ingest listening");
  let ingest = await startIngest(opts.ingestListen);
  const routerAddress = withPort(opts.routerListen, router.port!);
  const ingestAddress = withPort(opts.ingestListen, ingest.port!);

  return {
    routerAddress,
    ingestAddress,
    shardIds,
    env,
    shardNode: (id) => shards.get(id)!.process,
    restartShardNode: (id) => startShard(id),
    router: () => router.process,
    async restartRouter() {
      router = await startRouter(routerAddress);
    },
    ingest: () => ingest.process,
    async restartIngest() {
      ingest = await startIngest(ingestAddress);
    },
    async stop() {
      await ingest.process.stop(10_000);
      await router.process.stop(10_000);
      await Promise.all([...shards.values()].map((s) => s.process.stop(10_000)));
    },
  };
}

function withPort(listen: string, port: number): string {
  return `${listen.slice(0, listen.lastIndexOf(":"))}:${port}`;
}
