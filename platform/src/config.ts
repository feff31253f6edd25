/**
 * Configuration: read from the environment once, every problem reported together, then
 * frozen. Nothing else in the code base reads process.env. Every service loads the same
 * object, so ingest, router and shard nodes agree on topic, slots, shards and boards.
 *
 * The variables are the schema below (servicesEnv): each declared once, with its type,
 * default, bounds and a one-line description, from the readers of env-schema.ts. The
 * docs/configuration.md's tables are generated from it (npm run config-table), and a unit test
 * fails when the two differ. Defaults are the local cluster's. The variables a client reads
 * are declared in client-config.ts, which the CLI loads alone, and listed here in their places.
 */
import { z } from "zod";
import { ROLES, type TokenGrant } from "./auth.js";
import { localCredentialsPath } from "./credentials-file.js";
import { launcherStatePath } from "./launcher-state.js";
import { redactSecrets } from "./redact.js";
import { limitOf, MAX_QUOTA, type Limit, type WriteQuota } from "@ladder/model/write-quota";
import { checkKafkaSecurity, kafkaSecurityEnv, kafkaSecurityOf, type KafkaSecurity } from "./kafka-security.js";
import { checkRedisLogin, redisLoginEnv, redisLoginsOf, type RedisLogin } from "./redis-login.js";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec, type BoardSpec, type BoardSpecInput } from "@ladder/model/board-spec";
import { CLIENT_VARIABLES, LADDER_DATA_DIR, LISTEN } from "./client-config.js";
import { expandSentinelUrl, hostPortProblem, isSentinelUrl, parseSentinelName } from "./redis-address.js";
import {
  duration,
  envSchema,
  envVar,
  envVariables,
  flag,
  int,
  list,
  oneOf,
  optional,
  parseEnv,
  string,
  type Env,
  type EnvVar,
} from "./env-schema.js";

export { ConfigError, type Env } from "./env-schema.js";

import type { ShardAddress } from "@ladder/model/placement-record";
import { DEFAULT_RECORD_COUNT_BUCKETS, MAX_RECORD_COUNT_BUCKETS } from "@ladder/model/record-counts";
export type { ShardAddress };

export interface Config {
  readonly kafkaBrokers: readonly string[];
  /** SASL and TLS to the brokers (kafka-security.ts); undefined: PLAINTEXT without login. */
  readonly kafkaSecurity: KafkaSecurity | undefined;
  /** The router's control plane's login (its writes); kafkaSecurity when no control user is set. */
  readonly kafkaControlSecurity: KafkaSecurity | undefined;
  readonly scoreTopic: string;
  readonly numSlots: number;
  readonly shards: readonly ShardAddress[];
  /** The Redis Sentinels (host:port) that sentinel:// shards are found through. */
  readonly sentinels: readonly string[];
  /** How long ago a replica must last have been seen holding all its primary had applied, to serve reads. */
  readonly replicaMaxLagMs: number;
  /** This service's login to the shards' Redis and Sentinels (redis-login.ts). */
  readonly redisLogin: RedisLogin;
  /** The router's login for rebuilds and reshards (redisLogin unless LADDER_REDIS_ADMIN_USERNAME is set). */
  readonly redisAdminLogin: RedisLogin;
  readonly keyPrefix: string;
  /** Hashes per slot that the counts of records are spread over (model/src/record-counts.ts); part of every shard's stamp. */
  readonly recordCountBuckets: number;
  readonly boards: BoardSpecs;
  /** Boards without a definition take `boards` (true), or are refused with NOT_FOUND (false). */
  readonly implicitBoards: boolean;
  readonly shardId: string | undefined;
  readonly routerListen: string;
  /** Router processes sharing routerListen (router/src/processes.ts). */
  readonly routerProcesses: number;
  readonly ingestListen: string;
  /** Where each service serves its Prometheus metrics (GET /metrics), host:port. */
  readonly routerMetricsListen: string;
  readonly ingestMetricsListen: string;
  readonly shardMetricsListen: string;
  readonly maxBatch: number;
  readonly maxClockSkewMs: number;
  readonly shardTimeoutMs: number;
  readonly heartbeatTtlMs: number;
  readonly applyBatch: number;
  /** Longest wait of an idle fetch at the broker (shard nodes, definitions followers), ms. */
  readonly fetchWaitMs: number;
  readonly logLevel: string;
  readonly tokens: readonly TokenGrant[];
  /** The key resume tokens of watch streams are signed with (HMAC-SHA-256); undefined: each router makes its own at start. */
  readonly streamSecret: string | undefined;
  readonly readsOpen: boolean;
  /** Fault injection for tests: the router exits at this step of a period's close (router/src/control/closer.ts); "" never. */
  readonly closerCrashAt: "" | "markers" | "event";
  /** Between two looks of the router's retainer at the boards with retention (router/src/control/retainer.ts), ms. */
  readonly retentionIntervalMs: number;
  readonly clientToken: string | undefined;
  readonly clientCredentialsFile: string;
  /** The local cluster launcher's view of its processes (launcher-state.ts), under LADDER_DATA_DIR; the CLI's `status` shows it. */
  readonly launcherStateFile: string;
  readonly tls: { readonly certFile: string; readonly keyFile: string } | undefined;
  readonly tlsCaFile: string | undefined;
  readonly dedupWindowMs: number;
  readonly readyLag: number;
  readonly stallMs: number;
  readonly maxLag: number;
  readonly maxLagMs: number;
  /** Replicas of the score topic's partitions; undefined = min(3, brokers). */
  readonly topicReplication: number | undefined;
  /** The score topic's min.insync.replicas; undefined = replication - 1, at least 1. */
  readonly topicMinInsync: number | undefined;
  readonly consistencyWaitMs: number;
  /** GetTop pages served from the router's memory for at most this long (0: no cache). */
  readonly topCacheMs: number;
  readonly topCacheDepth: number;
  /** Longest age of a histogram the router answers from (0: none kept), ms. */
  readonly histogramCacheMs: number;
  /** Boards whose GetRank counts the other shards, and GetRanks every shard, from the router's copies of them (router/src/rank-index). */
  readonly rankIndexBoards: readonly string[];
  /** How long ago a copy must last have caught up with its shard to answer for it, ms. */
  readonly rankIndexMaxLagMs: number;
  /** LADDER_RANK_INDEX_MAX_ENTRIES: 0 derives it from the heap limit (router/src/rank-index). */
  readonly rankIndexMaxEntries: number;
  /** A WatchTop or WatchPlayer stream whose caller leaves more than watchBufferBytes untaken for watchStallMs is ended. */
  readonly watchBufferBytes: number;
  readonly watchStallMs: number;
  /** WatchTop and WatchPlayer streams one caller (a token, or an address without one) may hold open at once. */
  readonly watchStreamsPerCaller: number;
  readonly rebuildDb: number;
  readonly ingestMaxQueued: number;
  /** Lag admission at ingest (ingest/src/lag-admission.ts). */
  readonly ingestLag: Readonly<{ maxLagMs: number; waitMs: number; pollMs: number }>;
  /** The cluster-wide write quota, kept by each ingest process (model/src/write-quota.ts). */
  readonly ingestQuota: WriteQuota;
  /** Shard nodes take snapshots and rebuilds and refills load them (store/src/writer/snapshot.ts). */
  readonly snapshots: boolean;
  readonly snapshotRecords: number;
  readonly snapshotMinIntervalMs: number;
  /** The browser gateway (gateway/): where it listens (HTTP), host:port. */
  readonly gatewayListen: string;
  /** The router the gateway asks, host:port, or several as a gRPC target (`ipv4:a:1,b:2`: the first that answers). */
  readonly gatewayRouter: string;
  /** The gateway's own token (monitor role), for ListBoards and GetClusterStatus only; undefined: it makes neither. */
  readonly gatewayToken: string | undefined;
  /** Origins (scheme://host[:port]) allowed to call the gateway cross-origin; "*" allows any; empty: same origin only. */
  readonly gatewayCorsOrigins: readonly string[];
  /** Per client: requests per second sustained, the bucket's size, and open streams at once. */
  readonly gatewayRate: number;
  readonly gatewayBurst: number;
  readonly gatewayStreams: number;
  /** How long a live stream may wait for its client to take what was sent before the gateway ends it, ms. */
  readonly gatewayStreamStallMs: number;
  /** The client is the last X-Forwarded-For address (behind a reverse proxy) instead of the peer. */
  readonly gatewayTrustProxy: boolean;
}

export const DEFAULT_SHARDS = "shard-0=redis://127.0.0.1:7001,shard-1=redis://127.0.0.1:7002,shard-2=redis://127.0.0.1:7003";

/** pino's levels. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

export { LADDER_DATA_DIR };

/** Every variable the services read, in the order of Config. */
export const servicesEnv = envVariables({
  LADDER_KAFKA_BROKERS: list({ default: "127.0.0.1:9092", description: "Kafka bootstrap servers, comma-separated host:port" }),
  ...kafkaSecurityEnv,
  LADDER_SCORE_TOPIC: string({
    default: "ladder.scores",
    pattern: /^[A-Za-z0-9._-]{1,200}$/,
    description: "the score log; created with one partition per slot, infinite retention",
  }),
  LADDER_SLOTS: int({
    default: 64,
    min: 1,
    max: 10_000,
    description: "slots = partitions of the score log; fixed for the life of a topic",
  }),
  LADDER_SHARDS: shards(),
  LADDER_SENTINELS: sentinels(),
  ...redisLoginEnv,
  LADDER_REPLICA_MAX_LAG_MS: duration({
    default: 1000,
    min: 1,
    max: 600_000,
    description: "a replica serves reads only while the router has seen it hold everything its primary had applied at most this long ago",
  }),
  LADDER_KEY_PREFIX: string({ default: "lb:", pattern: /^[A-Za-z0-9:._{}-]{0,64}$/, description: "prefix of every Redis key" }),
  LADDER_RECORD_COUNT_BUCKETS: int({
    default: DEFAULT_RECORD_COUNT_BUCKETS,
    min: 1,
    max: MAX_RECORD_COUNT_BUCKETS,
    description:
      "hashes per slot holding the players' counts of records; about players ÷ (slots × 100) keeps each a small listpack (docs/scaling.md); part of every shard's stamp: changing it needs a rebuild",
  }),
  LADDER_BOARDS: boards(),
  LADDER_IMPLICIT_BOARDS: flag({
    default: false,
    description:
      "boards need no definition (AdminService.CreateBoard): a write to any valid name creates it under `LADDER_BOARDS` (1; the local cluster's default), or reads and writes of a board not defined are `NOT_FOUND` (0)",
  }),
  LADDER_SHARD_ID: optional({
    unsetMeans: "— (shard nodes only)",
    description: "which shard a shard node serves: one of the ids of `LADDER_SHARDS`",
  }),
  LADDER_ROUTER_LISTEN: CLIENT_VARIABLES.LADDER_ROUTER_LISTEN,
  LADDER_ROUTER_PROCESSES: int({
    default: 1,
    min: 1,
    max: 64,
    description:
      "router processes sharing `LADDER_ROUTER_LISTEN` (Node's cluster module: a supervising process accepts connections and hands them to the routers in turn, restarts one that dies, and serves their metrics summed at `LADDER_ROUTER_METRICS_LISTEN`)",
  }),
  LADDER_INGEST_LISTEN: CLIENT_VARIABLES.LADDER_INGEST_LISTEN,
  LADDER_ROUTER_METRICS_LISTEN: string({
    default: "127.0.0.1:9464",
    pattern: LISTEN,
    description: "where the router serves its Prometheus metrics (`GET /metrics`), host:port",
  }),
  LADDER_INGEST_METRICS_LISTEN: string({
    default: "127.0.0.1:9465",
    pattern: LISTEN,
    description: "where ingest serves its Prometheus metrics (`GET /metrics`), host:port",
  }),
  LADDER_SHARD_METRICS_LISTEN: string({
    default: "127.0.0.1:9470",
    pattern: LISTEN,
    description:
      "where a shard node serves its Prometheus metrics (`GET /metrics`), host:port; the local cluster gives shard i this port + i",
  }),
  LADDER_MAX_BATCH: int({ default: 1000, min: 1, max: 100_000, description: "most updates in one SubmitScores" }),
  LADDER_MAX_CLOCK_SKEW_MS: duration({
    default: 5 * 60_000,
    min: 0,
    max: 24 * 3600_000,
    description: "how far ahead of ingest's clock an update's timestamp may be",
  }),
  LADDER_SHARD_TIMEOUT_MS: duration({ default: 2000, min: 1, max: 600_000, description: "the router's deadline for one shard call" }),
  LADDER_TOP_CACHE_MS: duration({
    default: 0,
    min: 0,
    max: 60_000,
    description:
      "the router serves GetTop pages of the live boards from memory for at most this long after reading them (0: off); reads with a consistency token never use it",
  }),
  LADDER_HISTOGRAM_CACHE_MS: duration({
    default: 1000,
    min: 0,
    max: 60_000,
    description:
      "the router answers GetHistogram and GetApproximateRank of the live boards from a histogram it read at most this long before (0: every call reads the shards); reads with a consistency token never use it",
  }),
  LADDER_RANK_INDEX_BOARDS: list({
    default: "",
    mayBeEmpty: true,
    description:
      "all-time boards (no periods, windows or retention) whose GetRank counts the other shards, GetRanks every shard, and GetAround takes the other shards' windows (boards without metadata) from the router's copy of them, kept from the shards' change streams: one Redis read per rank or around instead of one per shard, one per owning shard for GetRanks (docs/reads.md#the-rank-index); empty: none",
  }),
  LADDER_RANK_INDEX_MAX_LAG_MS: duration({
    default: 1000,
    min: 1,
    max: 600_000,
    description:
      "a rank index copy answers for its shard only while the router has seen it hold everything the shard had applied at most this long ago",
  }),
  LADDER_RANK_INDEX_MAX_ENTRIES: int({
    default: 0,
    min: 0,
    max: 2 ** 40,
    description:
      "entries the rank index holds at most over all its copies: a board whose copies would hold more is read through the shards (logged, ladder_router_rank_index_refused_total); 0: a third of the router's V8 heap limit at 160 bytes an entry (about 9M entries with a 4 GiB heap; 1.1M in a 1 GiB container, where Node's heap limit is 524 MiB; raise it with NODE_OPTIONS=--max-old-space-size)",
  }),
  LADDER_WATCH_BUFFER_BYTES: int({
    default: 256 * 1024, // 256 KiB
    min: 1024,
    max: 64 * 1024 * 1024,
    description:
      "bytes of a WatchTop or WatchPlayer stream's messages its caller may leave untaken (HTTP/2 flow control) before the router stops making messages for it; changes meanwhile are folded into the next message",
  }),
  LADDER_WATCH_STALL_MS: duration({
    default: 10_000,
    min: 100,
    max: 600_000,
    description:
      "how long a WatchTop or WatchPlayer stream may stay above `LADDER_WATCH_BUFFER_BYTES` untaken before the router ends it with `RESOURCE_EXHAUSTED` (resume with the last message's token)",
  }),
  LADDER_WATCH_STREAMS_PER_CALLER: int({
    default: 1000,
    min: 1,
    max: 1_000_000,
    description:
      "WatchTop and WatchPlayer streams one caller may hold open at once on a router process: per token, or per address for calls without one (a gateway's anonymous browsers share its address); past it `RESOURCE_EXHAUSTED`",
  }),
  LADDER_TOP_CACHE_DEPTH: int({
    default: 100,
    min: 1,
    max: 10_000,
    description: "how deep the top cache keeps each board (offset + limit up to this); deeper pages are read from the shards",
  }),
  LADDER_HEARTBEAT_TTL_MS: duration({
    default: 5000,
    min: 100,
    max: 600_000,
    description: "a shard node silent this long makes its shard's reads `UNAVAILABLE`",
  }),
  LADDER_APPLY_BATCH: int({ default: 500, min: 1, max: 10_000, description: "events per apply-script call of a shard node" }),
  LADDER_LOG_LEVEL: oneOf({ values: LOG_LEVELS, default: "info", description: `pino level: ${LOG_LEVELS.join(", ")}` }),
  LADDER_TOKENS: tokens(),
  LADDER_STREAM_SECRET: streamSecret(),
  LADDER_CLOSER_CRASH_AT: oneOf({
    values: ["", "markers", "event"],
    default: "",
    description:
      "fault injection for tests: the router exits right after writing a period's close markers (`markers`) or its close event before committing it (`event`); empty: never",
  }),
  LADDER_RETENTION_INTERVAL_MS: duration({
    default: 10_000,
    min: 100,
    max: 3_600_000,
    description:
      "how often the router's retainer looks at the boards with keep_top or expire_inactive_ms and writes their trims and expiries to the score log",
  }),
  LADDER_READS: oneOf({ values: ["open", "token"], default: "open", description: "`token`: reads need a token (with the read role) too" }),
  LADDER_TOKEN: CLIENT_VARIABLES.LADDER_TOKEN,
  LADDER_CREDENTIALS_FILE: CLIENT_VARIABLES.LADDER_CREDENTIALS_FILE,
  LADDER_DATA_DIR,
  LADDER_TLS_CERT_FILE: CLIENT_VARIABLES.LADDER_TLS_CERT_FILE,
  LADDER_TLS_KEY_FILE: optional({ description: "PEM private key of that certificate" }),
  LADDER_TLS_CA_FILE: CLIENT_VARIABLES.LADDER_TLS_CA_FILE,
  LADDER_DEDUP_WINDOW_MS: duration({
    default: 10 * 60_000,
    min: 0,
    max: 7 * 86_400_000,
    description: "how long a shard remembers an event id, to drop its duplicates",
  }),
  LADDER_READY_LAG: int({
    default: 1000,
    min: 0,
    max: 1e9,
    description:
      "a rebuild swaps its database in once within this many records of the log's end; the shard then refuses reads until its node has applied the rest",
  }),
  LADDER_FETCH_WAIT_MS: duration({
    default: 5000,
    min: 10,
    max: 30_000,
    description:
      "how long a shard node's or a definitions follower's fetch waits at the broker when no record comes (a record ends the wait at once): bounds their polling when idle, and how long a shard node takes to stop",
  }),
  LADDER_STALL_MS: duration({
    default: 10_000,
    min: 100,
    max: 3_600_000,
    description:
      'a serving shard whose applier applies nothing this long while behind the log stops serving until it catches up; with 2 × LADDER_HEARTBEAT_TTL_MS added, the staleness bound: a shard whose node last held the log\'s end longer ago is refused ("shard node is not current"), so no answer misses a write acknowledged longer before it was read',
  }),
  LADDER_MAX_LAG: int({
    default: 100_000,
    min: 0,
    max: 1e12,
    description:
      "a serving shard more than this many records behind the log for `LADDER_MAX_LAG_MS` stops serving until it catches up; a shard node takes no snapshot while its shard is more than this behind",
  }),
  LADDER_MAX_LAG_MS: duration({
    default: 30_000,
    min: 0,
    max: 3_600_000,
    description: "how long a shard may stay more than `LADDER_MAX_LAG` records behind",
  }),
  LADDER_TOPIC_REPLICATION: int({
    default: 0,
    min: 0,
    max: 100,
    description: "replicas of the score topic's partitions (0: min(3, brokers)); an existing topic with fewer is refused",
  }),
  LADDER_TOPIC_MIN_ISR: int({
    default: 0,
    min: 0,
    max: 100,
    description: "the score topic's `min.insync.replicas` (0: replication − 1, at least 1); an existing topic with less is refused",
  }),
  LADDER_CONSISTENCY_WAIT_MS: duration({
    default: 5000,
    min: 0,
    max: 600_000,
    description: "longest a read waits for its consistency token",
  }),
  LADDER_REBUILD_DB: int({ default: 1, min: 1, max: 15, description: "the spare Redis database a rebuild fills before `SWAPDB`" }),
  LADDER_INGEST_MAX_QUEUED: int({
    default: 100_000,
    min: 1,
    max: 10_000_000,
    description: "records ingest lets wait for the log before refusing more",
  }),
  LADDER_INGEST_MAX_LAG_MS: int({
    default: 250,
    min: 0,
    max: 600_000,
    description:
      "the bound on a shard's lag (how long its acknowledged records wait to be applied): ingest admits writes to a shard while it would apply them within 80% of it (the rest is headroom for pauses), makes them wait past that, then refuses them with RESOURCE_EXHAUSTED and `retry-after-ms` (0: never)",
  }),
  LADDER_INGEST_LAG_WAIT_MS: int({
    default: 2000,
    min: 0,
    max: 60_000,
    description:
      "how long a write waits for a shard past what `LADDER_INGEST_MAX_LAG_MS` admits before it is refused (never past the call's deadline)",
  }),
  LADDER_INGEST_LAG_POLL_MS: int({
    default: 20,
    min: 1,
    max: 10_000,
    description: "how often ingest reads the applied offsets of the shards that owe records it acknowledged",
  }),
  LADDER_QUOTA_PLAYER_RATE: int({
    default: 0,
    min: 0,
    max: MAX_QUOTA,
    description:
      "score updates per second one player may submit through one ingest process, sustained (every process keeps its own buckets: N processes allow N times this); past it SubmitScores answers RESOURCE_EXHAUSTED with `retry-after-ms` (0: no limit)",
  }),
  LADDER_QUOTA_PLAYER_BURST: int({
    default: 0,
    min: 0,
    max: MAX_QUOTA,
    description: "updates one player may submit at once above that rate (its bucket's size; 0: `LADDER_QUOTA_PLAYER_RATE`)",
  }),
  LADDER_QUOTA_TOKEN_RATE: int({
    default: 0,
    min: 0,
    max: MAX_QUOTA,
    description:
      "score updates per second one token (its grant's name in `LADDER_TOKENS`) may submit through one ingest process, sustained (0: no limit)",
  }),
  LADDER_QUOTA_TOKEN_BURST: int({
    default: 0,
    min: 0,
    max: MAX_QUOTA,
    description: "updates one token may submit at once above that rate (0: `LADDER_QUOTA_TOKEN_RATE`)",
  }),
  LADDER_SNAPSHOTS: flag({
    default: true,
    description:
      "shard nodes write snapshots of their shard to the topic `<LADDER_SCORE_TOPIC>.snapshots`; a rebuild, or a shard whose Redis lost its data, loads the latest and replays only the log after it (0: none written or read)",
  }),
  LADDER_SNAPSHOT_RECORDS: int({
    default: 1_000_000,
    min: 1,
    max: 1e12,
    description:
      "a shard node takes a snapshot once its partitions have this many records past the latest snapshot (or as many as that snapshot has players, when more), raised by 0–50% by a fraction fixed per shard id (so shards written alike do not take theirs together)…",
  }),
  LADDER_SNAPSHOT_MIN_INTERVAL_MS: duration({
    default: 60_000,
    min: 0,
    max: 7 * 86_400_000,
    description: "…and this long has passed since the latest snapshot",
  }),
  LADDER_GATEWAY_LISTEN: string({
    default: "127.0.0.1:8080",
    pattern: LISTEN,
    description: "the browser gateway's HTTP listen address (read-only JSON, live push by Server-Sent Events, the dashboard), host:port",
  }),
  LADDER_GATEWAY_ROUTER: optional({
    unsetMeans: "`LADDER_ROUTER_LISTEN`",
    description:
      "the router the gateway asks, host:port; several as a gRPC target, `ipv4:host:port,host:port`: the first that answers, the next while it is away",
  }),
  LADDER_GATEWAY_TOKEN: optional({
    unsetMeans: "— (no board list, no shard status)",
    description:
      "the gateway's own token (a token with the monitor role; an admin one works but holds more than it needs), used for two reads only: the board list (`ListBoards`) and the shards' readiness, lag and size (`GetClusterStatus`); every other read carries its caller's token",
  }),
  LADDER_GATEWAY_CORS_ORIGINS: corsOrigins(),
  LADDER_GATEWAY_RATE: int({
    default: 20,
    min: 1,
    max: 1_000_000,
    description: "requests per second one client (its IP address) may make to the gateway's API, sustained; opening a stream counts one",
  }),
  LADDER_GATEWAY_BURST: int({
    default: 60,
    min: 1,
    max: 1_000_000,
    description:
      "requests a client may make at once above that rate (its token bucket's size); past it the gateway answers 429 with `Retry-After`",
  }),
  LADDER_GATEWAY_STREAMS: int({
    default: 8,
    min: 1,
    max: 10_000,
    description: "live streams one client may hold open at once; past it: 429",
  }),
  LADDER_GATEWAY_STREAM_STALL_MS: int({
    default: 10_000,
    min: 100,
    max: 600_000,
    description:
      "how long a live stream may wait, ms, for its client to take what was sent (the connection's buffers full) before the gateway ends it; a browser's EventSource that is still there reconnects with `Last-Event-ID`",
  }),
  LADDER_GATEWAY_TRUST_PROXY: flag({
    default: false,
    description:
      "who a client is: the last address of `X-Forwarded-For`, as a reverse proxy in front of the gateway sets it (1), or the connection's peer address (0)",
  }),
});

/** The services' configuration: the variables, checked across each other, as a Config. */
export const configSchema = envSchema(servicesEnv, {
  check(v, problem) {
    checkKafkaSecurity(v, problem);
    checkRedisLogin(v, problem);
    if (v.LADDER_TLS_CERT_FILE && !v.LADDER_TLS_KEY_FILE)
      problem("LADDER_TLS_KEY_FILE", "needed with LADDER_TLS_CERT_FILE (the two go together)");
    if (v.LADDER_TLS_KEY_FILE && !v.LADDER_TLS_CERT_FILE)
      problem("LADDER_TLS_CERT_FILE", "needed with LADDER_TLS_KEY_FILE (the two go together)");
    if (v.LADDER_TOPIC_MIN_ISR > 0 && v.LADDER_TOPIC_REPLICATION > 0 && v.LADDER_TOPIC_MIN_ISR > v.LADDER_TOPIC_REPLICATION)
      problem(
        "LADDER_TOPIC_MIN_ISR",
        `${v.LADDER_TOPIC_MIN_ISR} is above LADDER_TOPIC_REPLICATION (${v.LADDER_TOPIC_REPLICATION}): no write could ever be acknowledged`,
      );
    if (v.LADDER_SENTINELS.length === 0 && v.LADDER_SHARDS.some((s) => isSentinelUrl(s.redisUrl)))
      problem(
        "LADDER_SENTINELS",
        "needed by the sentinel:// shards of LADDER_SHARDS (the Sentinels to ask for their primary and replicas)",
      );
    if (v.LADDER_SHARD_ID !== undefined && !v.LADDER_SHARDS.some((s) => s.id === v.LADDER_SHARD_ID))
      problem("LADDER_SHARD_ID", `"${v.LADDER_SHARD_ID}" is not one of LADDER_SHARDS`);
    if (v.LADDER_GATEWAY_ROUTER !== undefined && !LISTEN.test(v.LADDER_GATEWAY_ROUTER))
      problem("LADDER_GATEWAY_ROUTER", `"${v.LADDER_GATEWAY_ROUTER}" is not host:port`);
    for (const scope of ["PLAYER", "TOKEN"] as const)
      if (v[`LADDER_QUOTA_${scope}_BURST`] > 0 && v[`LADDER_QUOTA_${scope}_RATE`] === 0)
        problem(`LADDER_QUOTA_${scope}_BURST`, `needs LADDER_QUOTA_${scope}_RATE above 0 (0 means no limit)`);
  },
  build: (v): Config => ({
    kafkaBrokers: v.LADDER_KAFKA_BROKERS,
    kafkaSecurity: kafkaSecurityOf(v).main,
    kafkaControlSecurity: kafkaSecurityOf(v).control,
    scoreTopic: v.LADDER_SCORE_TOPIC,
    numSlots: v.LADDER_SLOTS,
    shards: Object.freeze(
      v.LADDER_SHARDS.map((s) =>
        isSentinelUrl(s.redisUrl) && v.LADDER_SENTINELS.length
          ? Object.freeze({ id: s.id, redisUrl: expandSentinelUrl(s.redisUrl, v.LADDER_SENTINELS) })
          : s,
      ),
    ),
    sentinels: v.LADDER_SENTINELS,
    replicaMaxLagMs: v.LADDER_REPLICA_MAX_LAG_MS,
    ...redisLoginsOf(v),
    keyPrefix: v.LADDER_KEY_PREFIX,
    recordCountBuckets: v.LADDER_RECORD_COUNT_BUCKETS,
    boards: v.LADDER_BOARDS,
    implicitBoards: v.LADDER_IMPLICIT_BOARDS,
    shardId: v.LADDER_SHARD_ID,
    routerListen: v.LADDER_ROUTER_LISTEN,
    routerProcesses: v.LADDER_ROUTER_PROCESSES,
    ingestListen: v.LADDER_INGEST_LISTEN,
    routerMetricsListen: v.LADDER_ROUTER_METRICS_LISTEN,
    ingestMetricsListen: v.LADDER_INGEST_METRICS_LISTEN,
    shardMetricsListen: v.LADDER_SHARD_METRICS_LISTEN,
    maxBatch: v.LADDER_MAX_BATCH,
    maxClockSkewMs: v.LADDER_MAX_CLOCK_SKEW_MS,
    shardTimeoutMs: v.LADDER_SHARD_TIMEOUT_MS,
    heartbeatTtlMs: v.LADDER_HEARTBEAT_TTL_MS,
    applyBatch: v.LADDER_APPLY_BATCH,
    fetchWaitMs: v.LADDER_FETCH_WAIT_MS,
    logLevel: v.LADDER_LOG_LEVEL,
    tokens: v.LADDER_TOKENS,
    streamSecret: v.LADDER_STREAM_SECRET,
    readsOpen: v.LADDER_READS === "open",
    closerCrashAt: v.LADDER_CLOSER_CRASH_AT,
    retentionIntervalMs: v.LADDER_RETENTION_INTERVAL_MS,
    clientToken: v.LADDER_TOKEN,
    clientCredentialsFile: v.LADDER_CREDENTIALS_FILE ?? localCredentialsPath(v.LADDER_DATA_DIR),
    launcherStateFile: launcherStatePath(v.LADDER_DATA_DIR),
    tls:
      v.LADDER_TLS_CERT_FILE && v.LADDER_TLS_KEY_FILE
        ? Object.freeze({ certFile: v.LADDER_TLS_CERT_FILE, keyFile: v.LADDER_TLS_KEY_FILE })
        : undefined,
    tlsCaFile: v.LADDER_TLS_CA_FILE,
    dedupWindowMs: v.LADDER_DEDUP_WINDOW_MS,
    readyLag: v.LADDER_READY_LAG,
    stallMs: v.LADDER_STALL_MS,
    maxLag: v.LADDER_MAX_LAG,
    maxLagMs: v.LADDER_MAX_LAG_MS,
    topicReplication: v.LADDER_TOPIC_REPLICATION || undefined,
    topicMinInsync: v.LADDER_TOPIC_MIN_ISR || undefined,
    consistencyWaitMs: v.LADDER_CONSISTENCY_WAIT_MS,
    topCacheMs: v.LADDER_TOP_CACHE_MS,
    topCacheDepth: v.LADDER_TOP_CACHE_DEPTH,
    histogramCacheMs: v.LADDER_HISTOGRAM_CACHE_MS,
    rankIndexBoards: v.LADDER_RANK_INDEX_BOARDS,
    rankIndexMaxLagMs: v.LADDER_RANK_INDEX_MAX_LAG_MS,
    rankIndexMaxEntries: v.LADDER_RANK_INDEX_MAX_ENTRIES,
    watchBufferBytes: v.LADDER_WATCH_BUFFER_BYTES,
    watchStallMs: v.LADDER_WATCH_STALL_MS,
    watchStreamsPerCaller: v.LADDER_WATCH_STREAMS_PER_CALLER,
    rebuildDb: v.LADDER_REBUILD_DB,
    ingestMaxQueued: v.LADDER_INGEST_MAX_QUEUED,
    ingestLag: Object.freeze({
      maxLagMs: v.LADDER_INGEST_MAX_LAG_MS,
      waitMs: v.LADDER_INGEST_LAG_WAIT_MS,
      pollMs: v.LADDER_INGEST_LAG_POLL_MS,
    }),
    ingestQuota: Object.freeze({
      ...optionalLimit("player", limitOf(v.LADDER_QUOTA_PLAYER_RATE, v.LADDER_QUOTA_PLAYER_BURST)),
      ...optionalLimit("token", limitOf(v.LADDER_QUOTA_TOKEN_RATE, v.LADDER_QUOTA_TOKEN_BURST)),
    }),
    snapshots: v.LADDER_SNAPSHOTS,
    snapshotRecords: v.LADDER_SNAPSHOT_RECORDS,
    snapshotMinIntervalMs: v.LADDER_SNAPSHOT_MIN_INTERVAL_MS,
    gatewayListen: v.LADDER_GATEWAY_LISTEN,
    gatewayRouter: v.LADDER_GATEWAY_ROUTER ?? v.LADDER_ROUTER_LISTEN,
    gatewayToken: v.LADDER_GATEWAY_TOKEN,
    gatewayCorsOrigins: v.LADDER_GATEWAY_CORS_ORIGINS,
    gatewayRate: v.LADDER_GATEWAY_RATE,
    gatewayBurst: v.LADDER_GATEWAY_BURST,
    gatewayStreams: v.LADDER_GATEWAY_STREAMS,
    gatewayStreamStallMs: v.LADDER_GATEWAY_STREAM_STALL_MS,
    gatewayTrustProxy: v.LADDER_GATEWAY_TRUST_PROXY,
  }),
});

/** Reads, validates and freezes the configuration. Throws ConfigError listing every problem. */
export function loadConfig(env: Env): Config {
  return parseEnv(configSchema, env);
}

/** LADDER_SHARDS: id=redis-url,... or id=sentinel://master-name,... */
function shards(): EnvVar<readonly ShardAddress[]> {
  const description =
    "the shards: comma-separated id=redis://host:port, or id=sentinel://master-name for a primary with replicas behind Redis Sentinel (`LADDER_SENTINELS`)";
  return envVar({ default: `\`${DEFAULT_SHARDS}\``, description }, (raw, report) => {
    const parts = (raw ?? DEFAULT_SHARDS).split(",").filter(Boolean);
    const shards = parts.map((part) => {
      const eq = part.indexOf("=");
      const id = part.slice(0, eq).trim();
      const redisUrl = part.slice(eq + 1).trim();
      const sentinel = isSentinelUrl(redisUrl) ? parseSentinelName(redisUrl) : undefined;
      if (eq < 1 || !/^[A-Za-z0-9_-]{1,64}$/.test(id) || (!/^rediss?:\/\/.+/.test(redisUrl) && sentinel === undefined))
        report(`"${redactSecrets(part)}" is not id=redis://host:port or id=sentinel://master-name`);
      else if (typeof sentinel === "string") report(`"${redactSecrets(part)}": ${sentinel}`);
      return Object.freeze({ id, redisUrl });
    });
    if (shards.length === 0) report("at least one shard is needed");
    if (new Set(shards.map((s) => s.id)).size !== shards.length) report("shard ids must be unique");
    return Object.freeze(shards);
  });
}

/** LADDER_SENTINELS: host:port,... (optional). */
function sentinels(): EnvVar<readonly string[]> {
  return envVar(
    {
      default: "— (no sentinel:// shards)",
      description: "the Redis Sentinels that `sentinel://` shards are found through, comma-separated host:port",
    },
    (raw, report) => {
      const items = (raw ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      for (const item of items) {
        const problem = hostPortProblem(item);
        if (problem) report(problem);
      }
      return Object.freeze(items);
    },
  );
}

/** LADDER_GATEWAY_CORS_ORIGINS: comma-separated origins, or "*"; unset: none (same origin only). */
function corsOrigins(): EnvVar<readonly string[]> {
  const description = "origins whose web pages may call the gateway (CORS), comma-separated `scheme://host[:port]`, or `*` for any";
  return envVar({ default: "— (same origin only)", description }, (raw, report) => {
    const items = (raw ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    for (const item of items)
      if (item !== "*" && !/^https?:\/\/[^/\s?#]+$/.test(item)) report(`"${item}" is not an origin: scheme://host[:port], no path`);
    return Object.freeze(items);
  });
}

const grant = z.object({ name: z.string(), token: z.string().min(16), roles: z.array(z.enum(ROLES)).min(1) });

/** LADDER_STREAM_SECRET: 32+ characters, the same on every router of a cluster. */
function streamSecret(): EnvVar<string | undefined> {
  const description =
    "the secret every router signs and checks watch streams' resume tokens with (HMAC-SHA-256), 32+ characters, the same on every router of the cluster; unset, a router makes one of its own at start, and a stream then resumes only on the router that opened it, until that router restarts";
  return envVar({ default: "— (each router its own, forgotten on restart)", description }, (raw, report) => {
    if (raw === undefined || raw === "") return undefined;
    if (raw.length < 32) report(`needs 32+ characters (got ${raw.length})`);
    return raw;
  });
}

/** LADDER_TOKENS: a JSON array of {name, token, roles}. */
function tokens(): EnvVar<readonly TokenGrant[]> {
  const description = `JSON \`[{"name","token","roles":[${ROLES.map((r) => `"${r}"`).join("|")}]}]\`, tokens of 16+ characters`;
  return envVar({ default: "none (every write refused)", description }, (raw, report) => {
    if (!raw) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      report(`not JSON (${(err as Error).message})`);
      return [];
    }
    if (!Array.isArray(parsed)) {
      report("not a JSON array");
      return [];
    }
    return Object.freeze(
      parsed.flatMap((g: unknown, i) => {
        const result = grant.safeParse(g);
        if (!result.success) {
          report(`needs name, a token of 16+ characters and roles from ${ROLES.join(", ")}`, [i]);
          return [];
        }
        const { name, token, roles } = result.data;
        return [Object.freeze({ name, token, roles: Object.freeze(roles) })];
      }),
    );
  });
}

/** LADDER_BOARDS: a JSON array of board specs (board-spec.ts), each over the default board's fields; the default board is kept unless one has prefix "". */
function boards(): EnvVar<BoardSpecs> {
  const fields = "`{prefix, minPoints, maxPoints, resolutionMs, epochMs, ttlSeconds}`";
  return envVar(
    { default: "the default board only", description: `JSON array of board specs ${fields}; prefix "" replaces the default board` },
    (raw, report) => {
      let inputs: BoardSpecInput[] = [];
      if (raw) {
        try {
          const parsed: unknown = JSON.parse(raw);
          if (!Array.isArray(parsed)) throw new Error("not an array");
          // only the configured fields: order, tie rule and periods belong to defined boards (AdminService.CreateBoard)
          const known = new Set(["prefix", "minPoints", "maxPoints", "resolutionMs", "epochMs", "ttlSeconds"]);
          for (const p of parsed)
            for (const k of Object.keys(p as object)) if (!known.has(k)) report(`board spec field "${k}" is not one of ${fields}`);
          inputs = parsed.map(
            (p) =>
              ({ ...DEFAULT_BOARD, ...Object.fromEntries(Object.entries(p as object).filter(([k]) => known.has(k))) }) as BoardSpecInput,
          );
        } catch (err) {
          report(`not a JSON array of board specs (${(err as Error).message})`);
        }
      }
      if (!inputs.some((i) => i.prefix === "")) inputs.push(DEFAULT_BOARD);
      const specs: BoardSpec[] = [];
      for (const input of inputs) {
        const { spec, problems } = makeBoardSpec(input);
        for (const p of problems) report(p);
        if (spec) specs.push(spec);
      }
      if (new Set(specs.map((s) => s.prefix)).size !== specs.length) report("prefixes must be unique");
      return new BoardSpecs(specs.length && specs.some((s) => s.prefix === "") ? specs : [makeBoardSpec(DEFAULT_BOARD).spec!]);
    },
  );
}

/** `{ [scope]: limit }`, or nothing when there is no limit (exactOptionalPropertyTypes). */
function optionalLimit(scope: "player" | "token", limit: Limit | undefined): Partial<WriteQuota> {
  return limit ? { [scope]: limit } : {};
}
