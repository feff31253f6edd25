/**
 * Configuration: read from the environment once, every problem reported together, then
 * frozen. Nothing else in the code base reads process.env. Every service loads the same
 * object, so ingest, router and shard nodes agree on topic, slots, shards and boards.
 *
 * Variables (defaults are the local cluster's):
 *   LADDER_KAFKA_BROKERS     host:port list                          127.0.0.1:9092
 *   LADDER_SCORE_TOPIC       the score log topic                     ladder.scores
 *   LADDER_SLOTS             partitions of the topic = slots          64
 *   LADDER_SHARDS            id=redis-url list                        shard-0=redis://127.0.0.1:7001,...7003
 *   LADDER_KEY_PREFIX        prefix of every Redis key               lb:
 *   LADDER_BOARDS            JSON array of board specs (board-spec.ts) the default board only
 *   LADDER_SHARD_ID          which shard a shard node serves         (shard nodes only)
 *   LADDER_ROUTER_LISTEN     router's host:port                       127.0.0.1:50051
 *   LADDER_INGEST_LISTEN     ingest's host:port                       127.0.0.1:50052
 *   LADDER_MAX_BATCH         updates per SubmitScores                 1000
 *   LADDER_MAX_CLOCK_SKEW_MS how far ahead of ingest's clock a timestamp may be   300000
 *   LADDER_SHARD_TIMEOUT_MS  router's deadline for one shard call    2000
 *   LADDER_HEARTBEAT_TTL_MS  a shard node not heard from this long is down   5000
 *   LADDER_APPLY_BATCH       events per apply-script call             500
 *   LADDER_LOG_LEVEL         pino level                               info
 *   LADDER_TOKENS            JSON [{name, token, roles: [read|write|admin]}]   none: every write is refused
 *   LADDER_READS             open | token                             open
 *   LADDER_TOKEN             the token a client (CLI, loadtest) sends  (none)
 *   LADDER_CREDENTIALS_FILE  a client's credentials file (JSON grants), used without a token   <LADDER_DATA_DIR or .ladder>/credentials.json
 *   LADDER_TLS_CERT_FILE     PEM certificate chain: serve TLS on every gRPC port   (plaintext)
 *   LADDER_TLS_KEY_FILE      PEM private key of that certificate
 *   LADDER_TLS_CA_FILE       PEM CA that clients (CLI, loadtest) trust   (system CAs)
 *   LADDER_DEDUP_WINDOW_MS   how long an event id is remembered for deduplication   600000
 *   LADDER_READY_LAG         a shard serves reads only within this many records of the log's end   1000
 *   LADDER_CONSISTENCY_WAIT_MS  longest a read waits for its consistency token        5000
 *   LADDER_REBUILD_DB        spare Redis database a rebuild fills before SWAPDB      1
 *   LADDER_INGEST_MAX_QUEUED records ingest lets wait for the log before refusing   100000
 */
import { ROLES, type Role, type TokenGrant } from "./auth.js";
import { localCredentialsPath } from "./credentials-file.js";
import { BoardSpecs, DEFAULT_BOARD, makeBoardSpec, type BoardSpec, type BoardSpecInput } from "./board-spec.js";

export interface ShardAddress {
  readonly id: string;
  readonly redisUrl: string;
}

export interface Config {
  readonly kafkaBrokers: readonly string[];
  readonly scoreTopic: string;
  readonly numSlots: number;
  readonly shards: readonly ShardAddress[];
  readonly keyPrefix: string;
  readonly boards: BoardSpecs;
  readonly shardId: string | undefined;
  readonly routerListen: string;
  readonly ingestListen: string;
  readonly maxBatch: number;
  readonly maxClockSkewMs: number;
  readonly shardTimeoutMs: number;
  readonly heartbeatTtlMs: number;
  readonly applyBatch: number;
  readonly logLevel: string;
  readonly tokens: readonly TokenGrant[];
  readonly readsOpen: boolean;
  readonly clientToken: string | undefined;
  readonly clientCredentialsFile: string;
  readonly tls: { readonly certFile: string; readonly keyFile: string } | undefined;
  readonly tlsCaFile: string | undefined;
  readonly dedupWindowMs: number;
  readonly readyLag: number;
  readonly consistencyWaitMs: number;
  readonly rebuildDb: number;
  readonly ingestMaxQueued: number;
}

export type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_SHARDS = "shard-0=redis://127.0.0.1:7001,shard-1=redis://127.0.0.1:7002,shard-2=redis://127.0.0.1:7003";

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

/** Reads, validates and freezes the configuration. Throws ConfigError listing every problem. */
export function loadConfig(env: Env): Config {
  const problems: string[] = [];
  const read = new Reader(env, problems);
  const config: Config = {
    kafkaBrokers: read.list("LADDER_KAFKA_BROKERS", "127.0.0.1:9092"),
    scoreTopic: read.string("LADDER_SCORE_TOPIC", "ladder.scores", /^[A-Za-z0-9._-]{1,200}$/),
    numSlots: read.int("LADDER_SLOTS", 64, 1, 10_000),
    shards: parseShards(read.string("LADDER_SHARDS", DEFAULT_SHARDS), problems),
    keyPrefix: read.string("LADDER_KEY_PREFIX", "lb:", /^[A-Za-z0-9:._{}-]{0,64}$/),
    boards: parseBoards(env.LADDER_BOARDS, problems),
    shardId: env.LADDER_SHARD_ID || undefined,
    routerListen: read.string("LADDER_ROUTER_LISTEN", "127.0.0.1:50051", /^.+:\d+$/),
    ingestListen: read.string("LADDER_INGEST_LISTEN", "127.0.0.1:50052", /^.+:\d+$/),
    maxBatch: read.int("LADDER_MAX_BATCH", 1000, 1, 100_000),
    maxClockSkewMs: read.int("LADDER_MAX_CLOCK_SKEW_MS", 5 * 60_000, 0, 24 * 3600_000), // 5 min
    shardTimeoutMs: read.int("LADDER_SHARD_TIMEOUT_MS", 2000, 1, 600_000), // 2 s
    heartbeatTtlMs: read.int("LADDER_HEARTBEAT_TTL_MS", 5000, 100, 600_000), // 5 s
    applyBatch: read.int("LADDER_APPLY_BATCH", 500, 1, 10_000),
    logLevel: read.string("LADDER_LOG_LEVEL", "info", /^(trace|debug|info|warn|error|fatal|silent)$/),
    tokens: parseTokens(env.LADDER_TOKENS, problems),
    readsOpen: read.string("LADDER_READS", "open", /^(open|token)$/) === "open",
    clientToken: env.LADDER_TOKEN || undefined,
    clientCredentialsFile: env.LADDER_CREDENTIALS_FILE || localCredentialsPath(env.LADDER_DATA_DIR || ".ladder"),
    tls: env.LADDER_TLS_CERT_FILE || env.LADDER_TLS_KEY_FILE ? { certFile: env.LADDER_TLS_CERT_FILE ?? "", keyFile: env.LADDER_TLS_KEY_FILE ?? "" } : undefined,
    tlsCaFile: env.LADDER_TLS_CA_FILE || undefined,
    dedupWindowMs: read.int("LADDER_DEDUP_WINDOW_MS", 10 * 60_000, 0, 7 * 86_400_000), // 10 min
    readyLag: read.int("LADDER_READY_LAG", 1000, 0, 1e9),
    consistencyWaitMs: read.int("LADDER_CONSISTENCY_WAIT_MS", 5000, 0, 600_000), // 5 s
    rebuildDb: read.int("LADDER_REBUILD_DB", 1, 1, 15),
    ingestMaxQueued: read.int("LADDER_INGEST_MAX_QUEUED", 100_000, 1, 10_000_000),
  };
  if (config.tls && (!config.tls.certFile || !config.tls.keyFile)) problems.push("LADDER_TLS_CERT_FILE and LADDER_TLS_KEY_FILE go together");
  if (config.shardId !== undefined && !config.shards.some((s) => s.id === config.shardId))
    problems.push(`LADDER_SHARD_ID: "${config.shardId}" is not one of LADDER_SHARDS`);
  if (problems.length) throw new ConfigError(problems);
  return Object.freeze(config);
}

function parseShards(text: string, problems: string[]): ShardAddress[] {
  const shards = text.split(",").filter(Boolean).map((part) => {
    const eq = part.indexOf("=");
    const id = part.slice(0, eq).trim();
    const redisUrl = part.slice(eq + 1).trim();
    if (eq < 1 || !/^[A-Za-z0-9_-]{1,64}$/.test(id) || !/^rediss?:\/\/.+/.test(redisUrl))
      problems.push(`LADDER_SHARDS: "${part}" is not id=redis://host:port`);
    return Object.freeze({ id, redisUrl });
  });
  if (shards.length === 0) problems.push("LADDER_SHARDS: at least one shard is needed");
  if (new Set(shards.map((s) => s.id)).size !== shards.length) problems.push("LADDER_SHARDS: shard ids must be unique");
  return shards;
}

function parseTokens(text: string | undefined, problems: string[]): TokenGrant[] {
  if (!text) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    problems.push(`LADDER_TOKENS: not JSON (${(err as Error).message})`);
    return [];
  }
  if (!Array.isArray(parsed)) {
    problems.push("LADDER_TOKENS: not a JSON array");
    return [];
  }
  return parsed.flatMap((g: Partial<TokenGrant>, i) => {
    const ok = typeof g?.name === "string" && typeof g.token === "string" && g.token.length >= 16 && Array.isArray(g.roles) && g.roles.length > 0 && g.roles.every((r) => ROLES.includes(r as Role));
    if (!ok) {
      problems.push(`LADDER_TOKENS[${i}]: needs name, a token of 16+ characters and roles from ${ROLES.join(", ")}`);
      return [];
    }
    return [Object.freeze({ name: g.name!, token: g.token!, roles: Object.freeze([...g.roles!]) })];
  });
}

function parseBoards(text: string | undefined, problems: string[]): BoardSpecs {
  let inputs: BoardSpecInput[] = [];
  if (text) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (!Array.isArray(parsed)) throw new Error("not an array");
      inputs = parsed.map((p) => ({ ...DEFAULT_BOARD, ...(p as object) }) as BoardSpecInput);
    } catch (err) {
      problems.push(`LADDER_BOARDS: not a JSON array of board specs (${(err as Error).message})`);
    }
  }
  if (!inputs.some((i) => i.prefix === "")) inputs.push(DEFAULT_BOARD);
  const specs: BoardSpec[] = [];
  for (const input of inputs) {
    const { spec, problems: p } = makeBoardSpec(input);
    problems.push(...p.map((m) => `LADDER_BOARDS: ${m}`));
    if (spec) specs.push(spec);
  }
  if (new Set(specs.map((s) => s.prefix)).size !== specs.length) problems.push("LADDER_BOARDS: prefixes must be unique");
  return new BoardSpecs(specs.length && specs.some((s) => s.prefix === "") ? specs : [makeBoardSpec(DEFAULT_BOARD).spec!]);
}

class Reader {
  constructor(private readonly env: Env, private readonly problems: string[]) {}

  string(name: string, fallback: string, pattern?: RegExp): string {
    const value = this.env[name] ?? fallback;
    if (pattern && !pattern.test(value)) this.problems.push(`${name}: "${value}" does not match ${pattern}`);
    return value;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw === "") return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name}: "${raw}" must be an integer from ${min} to ${max}`);
      return fallback;
    }
    return value;
  }

  list(name: string, fallback: string): string[] {
    const items = this.string(name, fallback).split(",").map((s) => s.trim()).filter(Boolean);
    if (items.length === 0) this.problems.push(`${name}: empty list`);
    return items;
  }
}
