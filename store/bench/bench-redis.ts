/**
 * A redis-server of a store benchmark's own: started on a free port (never the machine's 6379),
 * without persistence, its CPU read from /proc. Used by apply-bench.ts and zset-floor.ts.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

/** utime + stime of a process, seconds (clock ticks of 10 ms: USER_HZ is 100 on Linux). */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export interface BenchRedis {
  redis: Redis;
  /** The server's process id. */
  pid: number;
  /** The server's CPU so far, seconds. */
  cpuSeconds(): number;
  stop(): void;
}

/**
 * A fresh redis-server and a client of it, answering once the server is up; `args` after the
 * benchmark's own (then BENCH_REDIS_ARGS), `env` added to this process's for it.
 */
export async function startBenchRedis(
  opts: { args?: readonly string[]; env?: Readonly<Record<string, string>> } = {},
): Promise<BenchRedis> {
  const port = await freePort();
  const server = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--enable-debug-command",
      "local",
      ...(opts.args ?? []),
      ...(process.env.BENCH_REDIS_ARGS?.split(" ").filter(Boolean) ?? []),
    ],
    { stdio: "ignore", env: { ...process.env, ...opts.env } },
  );
  // refused while the server starts: retried every 50 ms, the first command queued until then
  const redis = new Redis({ port, host: "127.0.0.1", retryStrategy: () => 50, maxRetriesPerRequest: null });
  redis.on("error", () => {});
  await redis.ping();
  return {
    redis,
    pid: server.pid!,
    cpuSeconds: () => cpuSecondsOf(server.pid!),
    stop: () => {
      redis.disconnect();
      server.kill("SIGTERM");
    },
  };
}

/**
 * The command line of a benchmark of script calls on a board (zset-floor.ts, huge-pages.ts):
 * `--players`, `--chunk` (records per call), `--calls` (per shape and round), `--rounds`, `--out`.
 */
export function boardBenchArgs(defaults: { players: number; calls: number }) {
  const { values } = parseArgs({
    options: {
      players: { type: "string", default: String(defaults.players) },
      chunk: { type: "string", default: "500" },
      calls: { type: "string", default: String(defaults.calls) },
      rounds: { type: "string", default: "3" },
      out: { type: "string" },
    },
  });
  return {
    players: Number(values.players),
    chunk: Number(values.chunk),
    calls: Number(values.calls),
    rounds: Number(values.rounds),
    out: values.out,
  };
}
