// Starts a Redis Sentinel as a child process on 127.0.0.1: the installed redis-server in sentinel mode
// (`redis-server <conf> --sentinel`, no other package needed), watching the given primaries. Its
// configuration file is written afresh in `dataDir` at every start (Sentinel rewrites it as it learns
// replicas, other Sentinels and failovers), so a restart begins from the layout it is given. With
// `security` the file (mode 0600) also holds the Sentinels' ACL users, `default` off, and Sentinel's
// logins to the Redis nodes and to the other Sentinels.
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "@ladder/platform/logger";
import { LAUNCH_BACKOFF, retryUntil } from "@ladder/platform/backoff";
import { describeExit, spawnManaged, type ManagedProcess } from "./managed-process.js";
import type { LocalRedisSecurity } from "./redis-credentials.js";
import { choosePort, ping, secretFile } from "./redis-server.js";

export interface SentinelServer {
  /** "127.0.0.1:port" */
  address: string;
  port: number;
  stop(): Promise<void>;
  kill(): Promise<void>;
  /** The process, to watch (the launcher restarts it when it dies). */
  readonly process: ManagedProcess;
}

export interface WatchedPrimary {
  /** The name the primary is monitored under (sentinel://<name>). */
  name: string;
  /** "host:port" */
  address: string;
}

export interface SentinelOptions {
  dataDir: string;
  /** Port on 127.0.0.1; absent or 0 for a free one. */
  port?: number;
  primaries: readonly WatchedPrimary[];
  /** Sentinels that must agree a primary is down before a failover (of the set watching it). */
  quorum: number;
  /** A primary silent this long is down for this Sentinel. */
  downAfterMs: number;
  /** Sentinel's failover-timeout: how long a failover may take before another is tried. */
  failoverTimeoutMs: number;
  log: Logger;
  readyTimeoutMs?: number;
  command?: string;
  /** Run with the cluster's ACL users (redis-credentials.ts). */
  security?: LocalRedisSecurity;
}

/** sentinel.conf for `o` (exported for its test). */
export function sentinelConf(
  o: Pick<SentinelOptions, "primaries" | "quorum" | "downAfterMs" | "failoverTimeoutMs" | "security"> & { port: number; dataDir: string },
): string {
  const lines = [`port ${o.port}`, "bind 127.0.0.1", "daemonize no", `dir ${o.dataDir}`];
  const s = o.security;
  if (s)
    lines.push(...s.sentinelAclLines, `sentinel sentinel-user ${s.sentinel.username}`, `sentinel sentinel-pass ${s.sentinel.password}`);
  for (const p of o.primaries) {
    const colon = p.address.lastIndexOf(":");
    lines.push(
      `sentinel monitor ${p.name} ${p.address.slice(0, colon)} ${p.address.slice(colon + 1)} ${o.quorum}`,
      `sentinel down-after-milliseconds ${p.name} ${o.downAfterMs}`,
      `sentinel failover-timeout ${p.name} ${o.failoverTimeoutMs}`,
      `sentinel parallel-syncs ${p.name} 1`,
      ...(s ? [`sentinel auth-user ${p.name} ${s.sentinel.username}`, `sentinel auth-pass ${p.name} ${s.sentinel.password}`] : []),
    );
  }
  return lines.join("\n") + "\n";
}

export async function startSentinel(o: SentinelOptions): Promise<SentinelServer> {
  const { dataDir, log, readyTimeoutMs = 20_000, command = "redis-server" } = o;
  const port = await choosePort(o.port ?? 0);
  await mkdir(dataDir, { recursive: true });
  const conf = join(dataDir, "sentinel.conf");
  await rm(conf, { force: true });
  await secretFile(conf, sentinelConf({ ...o, port, dataDir }));
  const proc = spawnManaged({ command, args: [conf, "--sentinel"], cwd: dataDir, log: log.child({ proc: "sentinel", port }) });
  const address = `127.0.0.1:${port}`;
  try {
    await retryUntil(() => ping(port, 1000, o.security?.sentinel), {
      what: `redis sentinel on ${address}`,
      timeoutMs: readyTimeoutMs,
      ...LAUNCH_BACKOFF,
      initialMs: 20,
      giveUp: () => (proc.hasExited() ? "process ended before it was ready" : undefined),
    });
  } catch (err) {
    const s = await proc.stop(2000);
    throw new Error(`${(err as Error).message} (${describeExit(s)})\n${proc.output()}`, { cause: err });
  }
  log.info({ address, primaries: o.primaries.map((p) => p.name) }, "sentinel ready");
  return {
    address,
    port,
    process: proc,
    stop: async () => {
      const s = await proc.stop(10_000);
      log.info({ address, how: describeExit(s) }, "sentinel stopped");
    },
    kill: async () => {
      await proc.kill();
    },
  };
}
