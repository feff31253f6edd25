// Starts the cluster's services (3 shard nodes, router, ingest) as real processes on the shared test
// infrastructure, in a fresh namespace, with clients for both APIs and a wait for applied offsets.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, inject } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import type { TokenGrant } from "@ladder/platform/auth";
import { rootLogger } from "@ladder/platform/logger";
import { isSentinelUrl, expandSentinelUrl } from "@ladder/platform/redis-address";
import { keyLayout, openRedis, parseCurrent, servesReads } from "@ladder/store";
import { startRedisServer } from "@ladder/deploy/redis-server";
import { spawnService, type Started } from "@ladder/deploy/spawn-service";
import { startServices, type RunningServices, type ServicesOptions } from "@ladder/deploy/services";
import { silentLogger } from "@ladder/platform/logger";
import { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { KafkaRoleSettings } from "@ladder/deploy/kafka-credentials";
import type { RedisLogin } from "@ladder/platform/redis-login";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import type { PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { freshNamespace, type Namespace } from "@ladder/platform/test-namespace";

export interface TestCluster {
  ns: Namespace;
  services: RunningServices;
  ingest: ClientOf<typeof IngestService>;
  router: ClientOf<typeof LeaderboardService>;
  /** Resolves once the shards have applied every offset given and serve reads (polls their Redis). */
  waitApplied(offsets: Iterable<PartitionOffset>, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** The test clusters' LADDER_HEARTBEAT_TTL_MS: as the vitest group gives it (vitest.config.ts), else 1 s. */
export const TEST_HEARTBEAT_TTL_MS = inject("heartbeatTtlMs") ?? 1000;
export const TEST_TOKENS = {
  write: "test-write-token-0123456789",
  admin: "test-admin-token-0123456789",
  read: "test-read-token-01234567890",
  monitor: "test-monitor-token-012345678",
};
const grants: TokenGrant[] = [
  { name: "test-game-server", token: TEST_TOKENS.write, roles: ["write"] },
  { name: "test-admin", token: TEST_TOKENS.admin, roles: ["admin"] },
  { name: "test-reader", token: TEST_TOKENS.read, roles: ["read"] },
  { name: "test-monitor", token: TEST_TOKENS.monitor, roles: ["monitor"] },
];

/** The test clusters' LADDER_STREAM_SECRET: every router started with the harness's env shares it. */
export const TEST_STREAM_SECRET = "test-stream-secret-0123456789abcdef";

export interface TestClusterOptions {
  /** LADDER_* settings on top of the test defaults (not LADDER_TOKENS: see `tokens`). */
  settings?: Record<string, string>;
  /** The cluster's token grants, when not the harness's own (TEST_TOKENS). */
  tokens?: readonly TokenGrant[];
  /** Infrastructure of the test's own (for tests that kill it); the shared one otherwise. */
  kafkaBrokers?: string[];
  /** redis://host:port, or sentinel://master-name with LADDER_SENTINELS in `settings` (replicated-redis.ts). */
  redisUrls?: string[];
  /**
   * Three redis-servers of the cluster's own, stopped with it: for a file that rebuilds shards (a
   * rebuild's SWAPDB swaps every key of database 0, every other test's on a shared server too).
   */
  ownRedis?: boolean;
  /** Each service's own login to a secured broker (kafka-credentials.ts); none for the shared PLAINTEXT one. */
  kafkaLogins?: KafkaRoleSettings;
  /** Runs once the namespace is chosen, before any service starts (e.g. a secured broker's ACLs on its topic). */
  prepare?(ns: Namespace): Promise<void>;
  /** The namespace to run in (a fresh one when absent): Redis ACLs name its key prefix. */
  ns?: Namespace;
  /** Each kind of service's own variables (its Redis user: deploy/local/src/redis-credentials.ts). */
  own?: ServicesOptions["own"];
  /** The harness's own login to the shards' Redis (to wait for applied offsets) when they run with ACL users. */
  redisLogin?: RedisLogin;
  /**
   * Whether to return only once every shard serves reads (default true). A shard node says it is ready
   * when its run has started, before its first heartbeat: a call that reaches the shards at once can
   * still find no heartbeat. False for clusters whose shards are not meant to serve at the start.
   */
  waitServing?: boolean;
}

export async function startTestCluster(label: string, opts: TestClusterOptions = {}): Promise<TestCluster> {
  const ns = opts.ns ?? freshNamespace(label);
  const own = opts.ownRedis ? await ownRedisServers(label) : undefined;
  const redisUrls = opts.redisUrls ?? own?.urls ?? inject("redisUrls");
  await opts.prepare?.(ns);
  const services = await startServices({
    kafkaBrokers: opts.kafkaBrokers ?? inject("kafkaBrokers"),
    redisUrls,
    routerListen: "127.0.0.1:0",
    ingestListen: "127.0.0.1:0",
    tokens: opts.tokens ?? grants,
    streamSecret: TEST_STREAM_SECRET,
    settings: {
      LADDER_SCORE_TOPIC: ns.topic,
      LADDER_KEY_PREFIX: ns.keyPrefix,
      LADDER_SLOTS: "12",
      LADDER_HEARTBEAT_TTL_MS: String(TEST_HEARTBEAT_TTL_MS),
      LADDER_FETCH_WAIT_MS: "500", // a shard node stopping waits for its fetch in flight, and tests stop many
      LADDER_LOG_LEVEL: "info", // the launcher waits for the services' info-level ready lines
      // writes to a shard behind wait rather than fail: a busy test machine slows the shards, and only
      // test/backpressure.int.test.ts is about the refusals (it sets its own wait)
      LADDER_INGEST_LAG_WAIT_MS: "9000",
      ...opts.settings,
    },
    ...(opts.kafkaLogins ? { kafkaLogins: opts.kafkaLogins } : {}),
    own: opts.own,
    baseEnv: process.env,
    // services' own warnings are expected in fault tests; start failures carry their output anyway
    log: rootLogger({ level: (process.env.LADDER_TEST_LOG_LEVEL ?? "fatal") as "fatal", name: `test-${label}` }),
  });
  const ingest = createClient(IngestService, services.ingestAddress, undefined, {}, TEST_TOKENS.write);
  const router = createClient(LeaderboardService, services.routerAddress, undefined, {}, TEST_TOKENS.read);
  // the primaries (through Sentinel for sentinel:// shards, following failovers)
  const sentinels = (opts.settings?.LADDER_SENTINELS ?? "").split(",").filter(Boolean);
  const redis = redisUrls.map((url) =>
    openRedis(isSentinelUrl(url) ? expandSentinelUrl(url, sentinels) : url, { maxRetriesPerRequest: null }, opts.redisLogin),
  );
  for (const r of redis) r.on("error", () => {}); // tests kill Redis on purpose
  const { offsets: offsetsKey, heartbeat: heartbeatKey, current: currentKey } = keyLayout(ns.keyPrefix);

  async function waitApplied(offsets: Iterable<PartitionOffset>, timeoutMs = 60_000): Promise<void> {
    const target = new Map<number, bigint>();
    for (const o of offsets) target.set(o.partition, o.offset > (target.get(o.partition) ?? -1n) ? o.offset : target.get(o.partition)!);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const applied = new Map<number, bigint>();
      for (const r of redis) for (const [p, o] of Object.entries(await r.hgetall(offsetsKey))) applied.set(Number(p), BigInt(o));
      const behind = [...target].filter(([p, o]) => (applied.get(p) ?? -1n) < o);
      // serving: the heartbeat holds the shard's stamp, not "!<why not>" (store/src/lua/heartbeat.lua),
      // and the shard is current with room to spare: its "<as of> <bound>" (ms, the Redis's clock, this
      // host's) no older than half the bound. After Kafka was away, a node may have applied everything
      // while the as-of its heartbeat carries still dates from before: reads are refused as "not current"
      // until its next answer of the log's end renews it.
      const serving = (await Promise.all(redis.map((r) => r.get(heartbeatKey)))).every(servesReads);
      const current = (await Promise.all(redis.map((r) => r.get(currentKey))))
        .map(parseCurrent)
        .every((c) => c !== undefined && Date.now() - c.asOfMs <= c.boundMs / 2);
      if (behind.length === 0 && serving && current) return;
      if (Date.now() > deadline)
        throw new Error(`offsets not applied within ${timeoutMs} ms: ${JSON.stringify(behind.map(([p, o]) => [p, String(o)]))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const cluster: TestCluster = {
    ns,
    services,
    ingest,
    router,
    waitApplied,
    async stop() {
      ingest.close();
      router.close();
      await services.stop();
      await Promise.all(redis.map((r) => r.quit()));
      await own?.stop();
    },
  };
  if (opts.waitServing !== false)
    await waitApplied([]).catch(async (err: unknown) => {
      await cluster.stop();
      throw err;
    });
  return cluster;
}

export interface PerTest {
  /** Starts a test cluster that is stopped after the current test (`ownRedis`: TestClusterOptions's). */
  cluster(label: string, settings?: Record<string, string>, o?: { ownRedis?: boolean }): Promise<TestCluster>;
  /** Runs `undo` after the current test (last registered first). */
  defer(undo: () => Promise<unknown>): void;
}

/** Clusters and clean-ups scoped to each test of the calling file (registers an afterEach). */
export function perTest(): PerTest {
  const undos: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    while (undos.length) await undos.pop()!().catch(() => {});
  });
  return {
    async cluster(label, settings = {}, o = {}) {
      const c = await startTestCluster(label, { settings, ...o });
      undos.push(() => c.stop());
      return c;
    },
    defer: (undo) => void undos.push(undo),
  };
}

/**
 * A read's answer, asked again while it is refused with UNAVAILABLE and a reason (a shard node that
 * missed its heartbeat on a busy machine, a failover: docs/guarantees.md). Such a refusal is never a
 * wrong answer; tests about refusals count them instead. Gives up after `timeoutMs`.
 */
export async function served<T>(read: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const from = Date.now();
  for (;;) {
    try {
      return await read();
    } catch (err) {
      const e = err as { code?: number; details?: string };
      if (e.code !== 14 || !e.details || Date.now() - from > timeoutMs) throw err; // 14: UNAVAILABLE
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Three redis-servers in a data dir of their own, and what stops them and removes it. */
async function ownRedisServers(label: string): Promise<{ urls: string[]; stop(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), `ladder-${label}-`));
  const log = silentLogger();
  const redis = await Promise.all([0, 1, 2].map((i) => startRedisServer({ dataDir: join(dataDir, `r-${i}`), persist: false, log })));
  return {
    urls: redis.map((r) => r.url),
    async stop() {
      await Promise.all(redis.map((r) => r.stop()));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One cluster for a whole test file, on three redis-servers of its own (a shard rebuild swaps whole
 * databases, which the run's shared servers must not see), with an admin client: started at the
 * first call, stopped with its servers and data dir after the file.
 */
export function fileClusterOnOwnRedis(
  label: string,
  settings: Record<string, string>,
): () => Promise<{ c: TestCluster; admin: ClientOf<typeof AdminService> }> {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => {});
  });
  let shared: Promise<{ c: TestCluster; admin: ClientOf<typeof AdminService> }> | undefined;
  return () =>
    (shared ??= (async () => {
      const c = await startTestCluster(label, { ownRedis: true, settings });
      cleanups.push(() => c.stop());
      const admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
      cleanups.push(async () => admin.close());
      return { c, admin };
    })());
}

/** A call's answer, or its gRPC status code and details when it failed: for tests that count both. */
export async function outcome<T>(p: Promise<T>): Promise<{ ok: T } | { code: number; details: string }> {
  try {
    return { ok: await p };
  } catch (err) {
    const e = err as { code: number; details: string };
    return { code: e.code, details: e.details };
  }
}

/**
 * Resolves once ingest knows `board`: ingest follows the definitions topic, so a board just created
 * is NOT_FOUND there for a moment. Asks with a value no board takes (INVALID_ARGUMENT once known,
 * nothing written either way).
 */
export async function untilIngestKnows(c: TestCluster, board: string, timeoutMs = 30_000): Promise<void> {
  const from = Date.now();
  for (;;) {
    const got = await outcome(c.ingest.submitScores({ updates: [{ board, playerId: "probe", value: 2n ** 62n }] }));
    if (!("ok" in got) && got.code === 3) return; // INVALID_ARGUMENT: the value, for a board it knows
    if ("ok" in got) throw new Error(`ingest took a probe write of 2^62 to ${board}`);
    if (Date.now() - from > timeoutMs) throw new Error(`ingest still answers ${got.code} for board ${board}: ${got.details}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * One more ingest or router process of cluster `c` (on port 0), with `settings` over the cluster's,
 * stopped by the cleanup it pushes onto `cleanups`: its address and the process (a test may kill it).
 */
export async function spawnMore(
  c: TestCluster,
  kind: "ingest" | "router",
  name: string,
  cleanups: Array<() => Promise<unknown>>,
  settings: Record<string, string> = {},
): Promise<{ address: string; process: Started["process"] }> {
  const listen = kind === "ingest" ? { LADDER_INGEST_LISTEN: "127.0.0.1:0" } : { LADDER_ROUTER_LISTEN: "127.0.0.1:0" };
  const started = await spawnService({
    name,
    entry: `${kind}/src/main.ts`,
    env: { ...process.env, ...c.services.envOf(kind), ...listen, ...settings },
    ready: `${kind} listening`,
    timeoutMs: 60_000,
    log: silentLogger(),
  });
  cleanups.push(() => started.process.stop(10_000));
  return { address: `127.0.0.1:${started.port}`, process: started.process };
}

/**
 * A cluster of three shards on redis-servers of its own (boards only by definition, no snapshots),
 * with a second ingest and a second router beside the harness's: what the competition tests race
 * writers and readers through. Everything it starts is stopped by the cleanups it pushes onto
 * `cleanups` (popped last first).
 */
export async function startTwinCluster(label: string, cleanups: Array<() => Promise<unknown>>) {
  const own = await ownRedisServers(label);
  cleanups.push(() => own.stop());
  const redisUrls = own.urls;
  const c = await startTestCluster(label, { redisUrls, settings: { LADDER_IMPLICIT_BOARDS: "0", LADDER_SNAPSHOTS: "0" } });
  cleanups.push(() => c.stop());
  const admin: ClientOf<typeof AdminService> = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
  const ingest2 = await spawnMore(c, "ingest", "ingest-2", cleanups);
  const router2 = await spawnMore(c, "router", "router-2", cleanups);
  const ingests = [c.ingest, createClient(IngestService, ingest2.address, undefined, {}, TEST_TOKENS.write)];
  const routers = [c.router, createClient(LeaderboardService, router2.address, undefined, {}, TEST_TOKENS.read)];
  cleanups.push(async () => [admin, ingests[1]!, routers[1]!].forEach((x) => x.close()));
  return { c, admin, ingests, routers, router2: router2.process, redisUrls };
}
