// Starts a real redis-server (from PATH) as a child process on 127.0.0.1, its files in `dataDir`.
// With `persist` it keeps an append-only file (fsync every second), so a restart on the same dataDir
// gets its data back; without, it keeps nothing. It never snapshots (save "") and never evicts.
// Its output is logged at debug (Redis marks routine notices as warnings) and quoted if it fails.
// With `replicaOf` it starts as a replica of that primary (replicated-redis.ts). With `security` it runs
// with the cluster's ACL users (redis-credentials.ts), `default` off: its ACL file and a configuration
// file holding the replication login are written in `dataDir`, mode 0600, so no password is on its
// command line. With `hugePages` its memory is backed by transparent huge pages (HUGE_PAGES_ENV below).
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { connect } from "node:net";
import type { Logger } from "@ladder/platform/logger";
import { freePort, portIsFree } from "./free-port.js";
import { describeExit, spawnManaged, type ManagedProcess } from "./managed-process.js";
import { LAUNCH_BACKOFF, retryUntil } from "@ladder/platform/backoff";
import type { LocalRedisSecurity, Login } from "./redis-credentials.js";

export interface RedisServer {
  /** e.g. "redis://127.0.0.1:40123" */
  url: string;
  port: number;
  dataDir: string;
  /** Clean shutdown (SIGTERM: flushes the AOF), SIGKILL if still running after 10 s. */
  stop(): Promise<void>;
  /** SIGKILL (a crash, for fault tests); resolves once it has exited. */
  kill(): Promise<void>;
  /** The local process, to watch (the launcher restarts it when it dies); none for a container. */
  readonly process?: ManagedProcess;
  /** The ACL it runs with (started again with the same). */
  readonly security?: LocalRedisSecurity;
}

export interface RedisServerOptions {
  dataDir: string;
  /** Port on 127.0.0.1; absent or 0 for any free port. Never 6379 (the machine's own Redis). */
  port?: number;
  /** Append-only file with fsync every second when true; no persistence at all when false. */
  persist: boolean;
  log: Logger;
  readyTimeoutMs?: number; // default 20 s (loading a large AOF takes a while)
  /** The redis-server executable. */
  command?: string;
  /** Start as a replica of this primary ("host:port"). */
  replicaOf?: string;
  /** Part of a primary/replica set: a full sync starts at once instead of after 5 s (Redis's default delay). */
  replicated?: boolean;
  /** Run with these ACL users, `default` off. */
  security?: LocalRedisSecurity;
  /** Back its memory with transparent huge pages (HUGE_PAGES_ENV, `--disable-thp no`); Redis's 4 KiB pages when absent. */
  hugePages?: boolean;
}

/**
 * What makes a redis-server back its memory with transparent huge pages: its allocator, jemalloc
 * (Debian's redis-server links the system's; a build from Redis's sources reads JE_MALLOC_CONF), asks
 * the kernel for them (madvise) on everything it maps, and `--disable-thp no` keeps Redis from turning
 * them off for itself when the kernel's mode is `always`. With the kernel's mode `never` nothing changes.
 *
 * Why: a sorted set of millions of players is a skip list and a hash table spread over gigabytes,
 * and each write walks pointers through them; with 4 KiB pages nearly every step also misses the
 * TLB. With 2 MiB pages a board's ZSCORE and ZADD at 10M and 25M members cost 22–25% less of
 * Redis's CPU (docs/performance.md, "Huge pages"), for under 1% more resident memory. The advice
 * against them is about forks (BGSAVE, AOF rewrites, full syncs of replicas) copying whole 2 MiB
 * pages on write; on the kernel measured (6.18) a BGSAVE under writes copied as much memory with them
 * as without, and its fork took 3.6 ms instead of 48.5 (fewer page tables to copy).
 */
export const HUGE_PAGES_ENV: Readonly<Record<string, string>> = {
  MALLOC_CONF: "thp:always,metadata_thp:always",
  JE_MALLOC_CONF: "thp:always,metadata_thp:always",
};

const RESERVED_PORT = 6379;
const STOP_GRACE_MS = 10_000;

export async function startRedisServer(opts: RedisServerOptions): Promise<RedisServer> {
  const { dataDir, persist, log, readyTimeoutMs = 20_000, command = "redis-server" } = opts;
  const port = await choosePort(opts.port ?? 0);
  await mkdir(dataDir, { recursive: true });
  const started = Date.now();
  const conf = opts.security ? [await writeSecurityFiles(dataDir, opts.security)] : [];
  const proc = spawnManaged({
    command,
    args: [
      ...conf,
      ...redisArgs({ port, dataDir, persist, replicaOf: opts.replicaOf, replicated: opts.replicated, hugePages: opts.hugePages }),
    ],
    cwd: dataDir,
    ...(opts.hugePages ? { env: { ...process.env, ...HUGE_PAGES_ENV } } : {}),
    log: log.child({ proc: "redis", port }),
  });
  const url = `redis://127.0.0.1:${port}`;
  try {
    await retryUntil(() => ping(port, 1000, opts.security?.admin), {
      what: `redis-server on ${url}`,
      timeoutMs: readyTimeoutMs,
      ...LAUNCH_BACKOFF,
      initialMs: 20,
      giveUp: () => (proc.hasExited() ? "process ended before it was ready" : undefined),
    });
  } catch (err) {
    const s = await proc.stop(2000);
    throw new Error(`${(err as Error).message} (${describeExit(s)})\n${proc.output()}`, { cause: err });
  }
  log.info({ url, persist, hugePages: opts.hugePages ?? false, ms: Date.now() - started }, "redis ready");

  return {
    url,
    port,
    dataDir,
    process: proc,
    security: opts.security,
    stop: async () => {
      const s = await proc.stop(STOP_GRACE_MS);
      log.info({ url, how: describeExit(s) }, "redis stopped");
    },
    kill: async () => {
      await proc.kill();
      log.info({ url }, "redis killed");
    },
  };
}

export function redisArgs({
  port,
  dataDir,
  persist,
  replicaOf,
  replicated,
  hugePages,
}: {
  port: number;
  dataDir: string;
  persist: boolean;
  replicaOf?: string;
  replicated?: boolean;
  hugePages?: boolean;
}): string[] {
  // The shards' Redis is a rebuildable view: the AOF only makes restarts quick. Rewrites of a large
  // board cost seconds of a core each, so they wait for 4x growth past 1 GiB.
  const aof = persist
    ? ["--appendonly", "yes", "--appendfsync", "everysec", "--auto-aof-rewrite-percentage", "400", "--auto-aof-rewrite-min-size", "1gb"]
    : ["--appendonly", "no"];
  return [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dataDir,
    "--daemonize",
    "no",
    "--save",
    "",
    ...aof,
    "--maxmemory-policy",
    "noeviction",
    ...(replicated || replicaOf ? ["--repl-diskless-sync-delay", "0"] : []),
    ...(hugePages ? ["--disable-thp", "no"] : []),
    ...(replicaOf ? ["--replicaof", replicaOf.slice(0, replicaOf.lastIndexOf(":")), replicaOf.slice(replicaOf.lastIndexOf(":") + 1)] : []),
  ];
}

export async function choosePort(port: number): Promise<number> {
  if (port === RESERVED_PORT) throw new Error(`port ${RESERVED_PORT} belongs to the machine's own Redis`);
  if (port !== 0) {
    if (!(await portIsFree(port))) throw new Error(`port 127.0.0.1:${port} is in use`);
    return port;
  }
  for (;;) {
    const p = await freePort();
    if (p !== RESERVED_PORT) return p;
  }
}

/** Writes users.acl and redis.conf (both 0600) into `dataDir`; returns the configuration file's path. */
async function writeSecurityFiles(dataDir: string, security: LocalRedisSecurity): Promise<string> {
  const acl = join(dataDir, "users.acl");
  const conf = join(dataDir, "redis.conf");
  const { username, password } = security.replication;
  await secretFile(acl, `${security.aclLines.join("\n")}\n`);
  await secretFile(conf, `${[`aclfile ${acl}`, `masteruser ${username}`, `masterauth ${password}`].join("\n")}\n`);
  return conf;
}

/** `text` in `path`, readable by its owner only (also when the file existed). */
export async function secretFile(path: string, text: string): Promise<void> {
  await writeFile(path, text, { mode: 0o600 });
  await chmod(path, 0o600);
}

/** A command as RESP: an array of bulk strings. */
const resp = (...args: string[]) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`;

/**
 * One PING over a raw socket (after AUTH as `login`, when given); resolves when the answer is
 * +PONG. A server still loading its AOF answers -LOADING, which counts as not ready.
 */
export function ping(port: number, timeoutMs = 1000, login?: Login): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let reply = "";
    const done = (err?: Error): void => {
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    socket.setTimeout(timeoutMs, () => done(new Error("PING timed out")));
    socket.once("error", done);
    socket.once("connect", () => socket.write((login ? resp("AUTH", login.username, login.password) : "") + resp("PING")));
    socket.on("data", (chunk) => {
      reply += chunk.toString("utf8");
      const lines = reply.split("\r\n");
      if (lines.length <= (login ? 2 : 1)) return;
      if (login && lines[0] !== "+OK") return done(new Error(`AUTH answered ${lines[0]}`));
      const pong = lines[login ? 1 : 0]!;
      done(pong.startsWith("+PONG") ? undefined : new Error(`PING answered ${pong}`));
    });
  });
}
