import { readFile, readdir, rm } from "node:fs/promises";
import { execFile } from "node:child_process";
import { connect } from "node:net";
import { promisify } from "node:util";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "@ladder/platform/logger";
import { builtEntry, REPO } from "./built-entry.js";
import { type RedisServer, startRedisServer } from "./redis-server.js";
import { tempDir } from "./test-support.js";
import { LAUNCH_BACKOFF, retryUntil } from "@ladder/platform/backoff";

const log = silentLogger();
const run = promisify(execFile);

function client(url: string): Redis {
  return new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
}

function tcpConnect(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port }, () => {
      socket.destroy();
      resolve();
    });
    socket.once("error", reject);
  });
}

describe("deploy > redis server", () => {
  let dir: string;
  const running: RedisServer[] = [];

  beforeAll(async () => {
    dir = await tempDir("redis-server");
  });

  afterAll(async () => {
    await Promise.allSettled(running.map((r) => r.stop()));
    await rm(dir, { recursive: true, force: true });
  });

  async function start(name: string, persist: boolean, port?: number, hugePages?: boolean): Promise<RedisServer> {
    const server = await startRedisServer({ dataDir: join(dir, name), port, persist, hugePages, log });
    running.push(server);
    return server;
  }

  it("answers SET and GET, and is gone after kill", async () => {
    const server = await start("kill", false);
    expect(server.port).not.toBe(6379);
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    const redis = client(server.url);
    await redis.connect();
    await redis.set("k", "v");
    expect(await redis.get("k")).toBe("v");
    expect(await redis.config("GET", "maxmemory-policy")).toEqual(["maxmemory-policy", "noeviction"]);
    expect(await redis.config("GET", "appendonly")).toEqual(["appendonly", "no"]);
    redis.disconnect();

    await server.kill();
    await expect(tcpConnect(server.port)).rejects.toThrow(/ECONNREFUSED/);
  });

  it("keeps data across a clean restart when persisting, on the same port", async () => {
    const server = await start("persist", true);
    const redis = client(server.url);
    await redis.connect();
    await redis.zadd("board", 10, "alice", 20, "bob");
    redis.disconnect();
    await server.stop();

    const again = await start("persist", true, server.port);
    const redis2 = client(again.url);
    await redis2.connect();
    expect(await redis2.zrevrange("board", 0, -1, "WITHSCORES")).toEqual(["bob", "20", "alice", "10"]);
    redis2.disconnect();
    await again.stop();
  });

  it("keeps nothing when not persisting", async () => {
    const server = await start("volatile", false);
    const redis = client(server.url);
    await redis.connect();
    await redis.set("k", "v");
    redis.disconnect();
    await server.stop();
    expect(await readdir(join(dir, "volatile"))).toEqual([]);

    const again = await start("volatile", false);
    const redis2 = client(again.url);
    await redis2.connect();
    expect(await redis2.get("k")).toBeNull();
    redis2.disconnect();
    await again.stop();
  });

  it("does not outlive the node process that started it", async () => {
    const script = `
      const { startRedisServer } = await import(process.argv[1]);
      const { silentLogger } = await import(process.argv[2]);
      const r = await startRedisServer({ dataDir: process.argv[3], persist: false, log: silentLogger() });
      console.log(r.port);
      process.exit(0);`;
    const { stdout } = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        script,
        builtEntry("deploy/local/src/redis-server.ts"),
        builtEntry("platform/src/logger.ts"),
        join(dir, "orphan"),
      ],
      { cwd: REPO },
    );
    const port = Number(stdout.trim());
    expect(port).toBeGreaterThan(0);
    await retryUntil(() => expect(tcpConnect(port)).rejects.toThrow(/ECONNREFUSED/), {
      ...LAUNCH_BACKOFF,
      what: "orphan gone",
      timeoutMs: 5000,
    });
  });

  it("backs its memory with transparent huge pages when asked, and with 4 KiB pages otherwise", async () => {
    // the kernel's mode, e.g. "always [madvise] never": with [never] no process gets huge pages
    const mode = /\[(\w+)\]/.exec(await readFile("/sys/kernel/mm/transparent_hugepage/enabled", "utf8"))?.[1];
    const hugeKb = async (hugePages: boolean): Promise<number> => {
      const server = await start(`thp-${hugePages}`, false, undefined, hugePages);
      const redis = client(server.url);
      await redis.connect();
      if (hugePages) expect(await redis.config("GET", "disable-thp")).toEqual(["disable-thp", "no"]);
      // a board of 300,000 players: tens of MB, enough for whole 2 MiB pages
      await redis.eval("for i = 1, 300000 do redis.call('ZADD', 'board', i, 'p' .. i) end return 1", 0);
      const pid = /process_id:(\d+)/.exec(await redis.info("server"))![1];
      redis.disconnect();
      const rollup = await readFile(`/proc/${pid}/smaps_rollup`, "utf8");
      await server.stop();
      return Number(/AnonHugePages:\s+(\d+) kB/.exec(rollup)![1]);
    };
    expect(await hugeKb(false)).toBe(0);
    if (mode !== "never") expect(await hugeKb(true)).toBeGreaterThan(10_000);
  });

  it("refuses port 6379, which belongs to the machine's own Redis", async () => {
    await expect(startRedisServer({ dataDir: join(dir, "x"), port: 6379, persist: false, log })).rejects.toThrow(/6379/);
  });
});
