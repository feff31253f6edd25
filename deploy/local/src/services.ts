// Starts the cluster's own services as child processes: one shard node per Redis, then the router and
// ingest, all from this checkout's build (dist/), configured only through LADDER_* variables
// (the same ones a deployment sets); each is given only the tokens it verifies (service-tokens.ts). Each service is ready when it logs its ready line; the router's
// and ingest's bound ports, and every service's metrics port, are read from those lines, so tests can
// ask for port 0.
import type { TokenGrant } from "@ladder/platform/auth";
import type { Logger } from "@ladder/platform/logger";
import type { KafkaRoleSettings } from "./kafka-credentials.js";
import type { ManagedProcess } from "./managed-process.js";
import { tokensEnv, withoutCredentials, type TokenHolder } from "./service-tokens.js";
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
  /**
   * Where each service serves its metrics (host:port, port 0 picks a free port); default
   * 127.0.0.1:0 for all. A service restarted keeps the port it had.
   */
  metricsListen?: { router: string; ingest: string; shard(index: number): string };
  /** Each service's own Kafka login (kafka-credentials.ts); absent: none (a PLAINTEXT broker). */
  kafkaLogins?: KafkaRoleSettings;
  /** The cluster's token grants; each service gets those it verifies as LADDER_TOKENS (service-tokens.ts). */
  tokens?: readonly TokenGrant[];
  /** The routers' LADDER_STREAM_SECRET (resume tokens), given to the router alone. */
  streamSecret?: string;
  /** Any other LADDER_* settings (topic, slots, key prefix, heartbeat TTL, log level...), not LADDER_TOKENS. */
  settings?: Readonly<Record<string, string>>;
  /** Variables of one kind of service only (its own credentials), on top of `settings`. */
  own?: {
    readonly shard?: Readonly<Record<string, string>>;
    readonly router?: Readonly<Record<string, string>>;
    readonly ingest?: Readonly<Record<string, string>>;
  };
  /** The environment the children inherit (PATH and friends). */
  baseEnv: Readonly<Record<string, string | undefined>>;
  log: Logger;
  readyTimeoutMs?: number;
}

export interface RunningServices {
  readonly routerAddress: string;
  readonly ingestAddress: string;
  readonly shardIds: readonly string[];
  /** The environment every service got (without the per-shard id, tokens and Kafka logins). */
  readonly env: Readonly<Record<string, string>>;
  /** `env` with the tokens `holder` got: to start another process of its kind. */
  envOf(holder: TokenHolder): Readonly<Record<string, string>>;
  /** The metrics URL (http://host:port/metrics) of "router", "ingest" or a shard node (its shard id). */
  metricsUrl(service: string): string;
  shardNode(id: string): ManagedProcess;
  /** Starts shard node `id` again after it stopped or was killed. */
  restartShardNode(id: string): Promise<void>;
  /**
   * Starts a shard node for a shard the cluster does not have yet (its Redis at `redisUrl`): it waits,
   * not serving, until a placement names it (AdminService.Reshard adds it).
   */
  addShardNode(id: string, redisUrl: string): Promise<void>;
  router(): ManagedProcess;
  restartRouter(): Promise<void>;
  ingest(): ManagedProcess;
  restartIngest(): Promise<void>;
  /** SIGTERM to every service (ingest first, shard nodes last), waiting for each to exit. */
  stop(): Promise<void>;
}

export async function startServices(opts: ServicesOptions): Promise<RunningServices> {
  if (opts.settings?.LADDER_TOKENS !== undefined) throw new Error("startServices: give the grants as `tokens`, not LADDER_TOKENS");
  const tokens = opts.tokens ?? [];
  const secret = holderSecret(opts.streamSecret);
  const envOf = (holder: TokenHolder) => ({
    ...env,
    ...opts.kafkaLogins?.[holder],
    ...opts.own?.[holder],
    ...tokensEnv(holder, tokens),
    ...(holder === "router" ? secret : {}),
  });
  const shardIds = opts.redisUrls.map((_, i) => `shard-${i}`);
  const env: Record<string, string> = {
    LADDER_KAFKA_BROKERS: opts.kafkaBrokers.join(","),
    LADDER_SHARDS: opts.redisUrls.map((url, i) => `${shardIds[i]}=${url}`).join(","),
    // each service gets its own below; a process started with this env alone (tests) binds any free port
    LADDER_ROUTER_METRICS_LISTEN: ANY_PORT,
    LADDER_INGEST_METRICS_LISTEN: ANY_PORT,
    LADDER_SHARD_METRICS_LISTEN: ANY_PORT,
    // writes to any board name work without a definition, as before boards could be defined
    LADDER_IMPLICIT_BOARDS: "1",
    ...opts.settings,
  };
  const timeoutMs = opts.readyTimeoutMs ?? 60_000;
  const inherited = withoutCredentials(opts.baseEnv);
  const spawn = (name: string, entry: string, holder: TokenHolder, extra: Record<string, string>, ready: string) =>
    spawnService({
      name,
      entry,
      env: { ...inherited, ...envOf(holder), ...extra },
      ready,
      timeoutMs,
      log: opts.log.child({ service: name }),
    });

  // where each service serves its metrics; once started, the port it bound (kept across restarts)
  const metricsListen = new Map<string, string>([
    ["router", opts.metricsListen?.router ?? ANY_PORT],
    ["ingest", opts.metricsListen?.ingest ?? ANY_PORT],
    ...shardIds.map((id, i): [string, string] => [id, opts.metricsListen?.shard(i) ?? ANY_PORT]),
  ]);
  const metricsBound = (name: string, started: Started) => {
    if (started.metricsPort !== undefined) metricsListen.set(name, withPort(metricsListen.get(name)!, started.metricsPort));
    return started;
  };

  const shards = new Map<string, Started>();
  const extraShards = new Map<string, string>(); // shards added after the start: id -> Redis URL
  const startShard = async (id: string) => {
    const own: Record<string, string> = extraShards.has(id) ? { LADDER_SHARDS: `${env.LADDER_SHARDS},${id}=${extraShards.get(id)}` } : {};
    shards.set(
      id,
      metricsBound(
        id,
        await spawn(
          id,
          ENTRY.shard,
          "shard",
          { LADDER_SHARD_ID: id, LADDER_SHARD_METRICS_LISTEN: metricsListen.get(id)!, ...own },
          "shard node ready",
        ),
      ),
    );
  };
  const startRouter = async (listen: string) =>
    metricsBound(
      "router",
      await spawn(
        "router",
        ENTRY.router,
        "router",
        { LADDER_ROUTER_LISTEN: listen, LADDER_ROUTER_METRICS_LISTEN: metricsListen.get("router")! },
        "router listening",
      ),
    );
  const startIngest = async (listen: string) =>
    metricsBound(
      "ingest",
      await spawn(
        "ingest",
        ENTRY.ingest,
        "ingest",
        { LADDER_INGEST_LISTEN: listen, LADDER_INGEST_METRICS_LISTEN: metricsListen.get("ingest")! },
        "ingest listening",
      ),
    );
  let router: Started | undefined;
  let ingest: Started | undefined;
  try {
    // every start is awaited, failed or not, so that none is left running behind a failure
    const starts = await Promise.allSettled(shardIds.map(startShard));
    const failed = starts.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
    // the router and ingest need the shards' identity and placement, not each other: started together
    const [r, i] = await Promise.allSettled([startRouter(opts.routerListen), startIngest(opts.ingestListen)]);
    if (r.status === "fulfilled") router = r.value;
    if (i.status === "fulfilled") ingest = i.value;
    if (r.status === "rejected") throw r.reason;
    if (i.status === "rejected") throw i.reason;
  } catch (err) {
    // a service that failed to start stops the ones already started: nothing outlives the caller's failure
    await Promise.all([ingest, router, ...shards.values()].map((s) => s?.process.stop(10_000).catch(() => {})));
    throw err;
  }
  let [routerNow, ingestNow] = [router!, ingest!]; // both started: the try above threw otherwise
  const routerAddress = withPort(opts.routerListen, routerNow.port!);
  const ingestAddress = withPort(opts.ingestListen, ingestNow.port!);

  return {
    routerAddress,
    ingestAddress,
    shardIds,
    env,
    envOf,
    metricsUrl(service) {
      const listen = metricsListen.get(service);
      if (listen === undefined) throw new Error(`no service "${service}": router, ingest or one of ${shardIds.join(", ")}`);
      return `http://${listen}/metrics`;
    },
    shardNode: (id) => shards.get(id)!.process,
    restartShardNode: (id) => startShard(id),
    async addShardNode(id, redisUrl) {
      if (shards.has(id)) throw new Error(`shard node ${id} runs already`);
      extraShards.set(id, redisUrl);
      metricsListen.set(id, ANY_PORT);
      await startShard(id);
    },
    router: () => routerNow.process,
    async restartRouter() {
      routerNow = await startRouter(routerAddress);
    },
    ingest: () => ingestNow.process,
    async restartIngest() {
      ingestNow = await startIngest(ingestAddress);
    },
    async stop() {
      // the front doors together (neither needs the other to stop), then the shard nodes behind them
      await Promise.all([ingestNow.process.stop(10_000), routerNow.process.stop(10_000)]);
      await Promise.all([...shards.values()].map((s) => s.process.stop(10_000)));
    },
  };
}

const ANY_PORT = "127.0.0.1:0";

const holderSecret = (secret: string | undefined): Record<string, string> => (secret === undefined ? {} : { LADDER_STREAM_SECRET: secret });

function withPort(listen: string, port: number): string {
  return `${listen.slice(0, listen.lastIndexOf(":"))}:${port}`;
}
