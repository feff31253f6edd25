// The Redis image's entry point (deploy/images/redis/ladder-redis.sh) run on this machine's redis-server,
// as the compose file and the Kubernetes base run it: a shard's primary and replica and a Sentinel, their
// ACL users filled in from the passwords in their environment (the templates build.sh stages).
//
//   1. Without credentials every command is refused (NOAUTH), on the nodes and on the Sentinel.
//   2. The router's user reads and cannot write (NOPERM); the shard node's user writes; the replica
//      follows its primary through its own login (masteruser); the Sentinel finds the replica through its.
//   3. No password is on a command line or in the environment of a running server or Sentinel.
//   4. The primary dies: the Sentinel promotes the replica (its login may REPLICAOF and CONFIG REWRITE);
//      the old primary, started again, asks the Sentinel (as ladder-sentinel-client) and rejoins as a replica.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./free-port.js";
import { REDIS_USER_NAMES, redisAclTemplates, redisPasswordVar } from "./redis-acl-templates.js";
import { redisAs } from "./test-support.js";

const run = promisify(execFile);
const LADDER_REDIS = fileURLToPath(new URL("../../images/redis/ladder-redis.sh", import.meta.url));
const PREFIX = "img:";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const passwords = Object.fromEntries(REDIS_USER_NAMES.map((u) => [u, `${u.replace("ladder-", "")}-Pw0123456789abcdef`]));
const passwordEnv = Object.fromEntries(REDIS_USER_NAMES.map((u) => [redisPasswordVar(u), passwords[u]!]));

let root: string;
let templates: string;
const processes = new Map<string, ChildProcess>();
const outputs = new Map<string, string>();
const clients: Redis[] = [];

function connect(port: number, user?: string): Redis {
  const c = redisAs(port, user === undefined ? undefined : { username: user, password: passwords[user]! });
  clients.push(c);
  return c;
}
const answer = (p: Promise<unknown>) =>
  p.then(
    (v) => v,
    (e: Error) => e.message,
  );

/** `ladder-redis <mode>` with the image's environment: its data directory, the templates, every password. */
function start(name: string, mode: "server" | "sentinel", env: Record<string, string>): ChildProcess {
  const child = spawn("bash", [LADDER_REDIS, mode], {
    env: {
      PATH: process.env.PATH!,
      REDIS_DATA_DIR: join(root, name),
      LADDER_REDIS_TEMPLATES: templates,
      REDIS_KEY_PREFIX: PREFIX,
      ...passwordEnv,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  outputs.set(name, "");
  const keep = (d: Buffer) => outputs.set(name, outputs.get(name) + d.toString());
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  processes.set(name, child);
  return child;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; await sleep(100)) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${timeoutMs} ms\n${[...outputs].map(([n, o]) => `${n}: ${o}`).join("\n")}`);
  }
}

/** `probe` on a fresh connection to `port` as `user` (a connection that found no server is not retried), until it answers. */
const untilAs = <T>(what: string, port: number, user: string, probe: (c: Redis) => Promise<T | undefined>, timeoutMs?: number) =>
  until(
    what,
    async () => {
      const c = connect(port, user);
      try {
        return await probe(c);
      } finally {
        c.disconnect();
      }
    },
    timeoutMs,
  );

const pingAs = (port: number, user: string) =>
  untilAs(`PONG from ${port}`, port, user, async (c) => ((await c.ping()) === "PONG" ? true : undefined));

describe("deploy > redis image entry point (ladder-redis) with ACL users", () => {
  let primary: number;
  let replica: number;
  let sentinel: number;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "ladder-redis-image-"));
    templates = join(root, "templates");
    await run("mkdir", ["-p", templates, join(root, "primary"), join(root, "replica"), join(root, "sentinel")]);
    for (const [name, text] of Object.entries(redisAclTemplates())) writeFileSync(join(templates, name), text);
    [primary, replica, sentinel] = [await freePort(), await freePort(), await freePort()];
    const sentinels = { REDIS_SENTINELS: `127.0.0.1:${sentinel}`, REDIS_MASTER_NAME: "img-shard", REDIS_REJOIN_WAIT_S: "20" };
    start("primary", "server", { REDIS_PORT: String(primary), ...sentinels });
    await pingAs(primary, "ladder-replication");
    start("replica", "server", { REDIS_PORT: String(replica), REDIS_REPLICA_OF: `127.0.0.1:${primary}`, ...sentinels });
    start("sentinel", "sentinel", {
      SENTINEL_PORT: String(sentinel),
      SENTINEL_MONITOR: `img-shard=127.0.0.1:${primary}`,
      SENTINEL_QUORUM: "1",
      SENTINEL_DOWN_AFTER_MS: "1000",
      SENTINEL_FAILOVER_TIMEOUT_MS: "5000",
    });
    await pingAs(replica, "ladder-replication");
    await pingAs(sentinel, "ladder-sentinel-client");
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) c.disconnect();
    for (const p of processes.values()) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
    await sleep(200);
    if (root) await rm(root, { recursive: true, force: true });
  });

  it("refuses every command without credentials, on the nodes and on the Sentinel (NOAUTH)", async () => {
    for (const port of [primary, replica, sentinel]) expect(await answer(connect(port).ping())).toMatch(/^NOAUTH/);
    expect(await answer(connect(sentinel).call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "img-shard"))).toMatch(/^NOAUTH/);
  });

  it("lets the shard node's user write and the router's read, never write (NOPERM); the replica and the Sentinel follow through their logins", async () => {
    const writer = connect(primary, "ladder-shard-node");
    expect(await writer.zadd(`${PREFIX}board:b`, 5, "p1", 3, "p2")).toBe(2);
    const router = connect(primary, "ladder-router");
    expect(await router.zrange(`${PREFIX}board:b`, "0", "-1")).toEqual(["p2", "p1"]);
    expect(await answer(router.zadd(`${PREFIX}board:b`, 9, "p3"))).toMatch(/^NOPERM/);
    expect(await answer(router.set(`${PREFIX}shard:heartbeat`, "1"))).toMatch(/^NOPERM/);
    expect(await answer(router.eval("return 1", 0))).toMatch(/^NOPERM/);
    expect(await answer(router.call("FLUSHALL"))).toMatch(/^NOPERM/);
    expect(await answer(writer.zadd("other:board", 1, "p"))).toMatch(/^NOPERM/); // keys outside the prefix
    expect(await router.zcard(`${PREFIX}board:b`)).toBe(2);
    // the replica copies the primary through ladder-replication (masteruser/masterauth)
    const onReplica = connect(replica, "ladder-router");
    await until("the replica's copy", async () => ((await onReplica.zcard(`${PREFIX}board:b`)) === 2 ? true : undefined));
    const role = (await connect(replica, "ladder-router").call("ROLE")) as unknown[];
    expect(role.slice(0, 4)).toEqual(["slave", "127.0.0.1", primary, "connected"]);
    // the Sentinel logs in to the primary (auth-user) and learns its replica from it
    const client = connect(sentinel, "ladder-sentinel-client");
    expect(await client.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "img-shard")).toEqual(["127.0.0.1", String(primary)]);
    const replicas = await until("the Sentinel's view of the replica", async () => {
      const r = (await client.call("SENTINEL", "REPLICAS", "img-shard")) as string[][];
      return r.length === 1 ? r : undefined;
    });
    expect(replicas[0]).toContain(String(replica));
    // its user asks, it does not command
    expect(await answer(client.call("SENTINEL", "FAILOVER", "img-shard"))).toMatch(/^NOPERM/);
    // health checks log in as the container's own role
    const env = { PATH: process.env.PATH!, ...passwordEnv };
    await run("bash", [LADDER_REDIS, "ping"], { env: { ...env, REDIS_PORT: String(primary) } });
    await run("bash", [LADDER_REDIS, "ping"], { env: { ...env, SENTINEL_MONITOR: "x=127.0.0.1:1", SENTINEL_PORT: String(sentinel) } });
    await expect(
      run("bash", [LADDER_REDIS, "ping"], {
        env: { ...env, REDIS_PORT: String(primary), REDIS_REPLICATION_PASSWORD: "wrong-password-0123456789" },
      }),
    ).rejects.toMatchObject({ stderr: expect.stringMatching(/WRONGPASS/) });
  });

  it("holds no password on a command line or in a running server's or Sentinel's environment", () => {
    for (const [name, p] of processes) {
      const cmdline = readFileSync(`/proc/${p.pid}/cmdline`, "utf8");
      const environ = readFileSync(`/proc/${p.pid}/environ`, "utf8");
      expect(cmdline, name).toMatch(/redis-server/);
      for (const pw of Object.values(passwords)) {
        expect(cmdline, name).not.toContain(pw);
        expect(environ, name).not.toContain(pw);
      }
    }
    const acl = readFileSync(join(root, "primary", "users.acl"), "utf8");
    for (const pw of Object.values(passwords)) expect(acl).not.toContain(pw);
  });

  it("fails over: the Sentinel promotes the replica, and the old primary, started again, rejoins as its replica", async () => {
    const writer = connect(primary, "ladder-shard-node");
    await writer.zadd(`${PREFIX}board:b`, 7, "p4");
    processes.get("primary")!.kill("SIGKILL");
    const client = connect(sentinel, "ladder-sentinel-client");
    const promoted = await until(
      "the replica's promotion",
      async () => {
        const addr = (await client.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "img-shard")) as string[];
        return addr[1] === String(replica) ? addr : undefined;
      },
      60_000,
    );
    expect(promoted).toEqual(["127.0.0.1", String(replica)]);
    const newPrimary = connect(replica, "ladder-shard-node");
    await until("the promoted node's role", async () => (((await newPrimary.call("ROLE")) as string[])[0] === "master" ? true : undefined));
    expect(await newPrimary.zadd(`${PREFIX}board:b`, 8, "p5")).toBe(1);
    // the old primary's data directory holds its marker: it asks the Sentinel and follows the new primary
    start("primary", "server", {
      REDIS_PORT: String(primary),
      REDIS_SENTINELS: `127.0.0.1:${sentinel}`,
      REDIS_MASTER_NAME: "img-shard",
    });
    await untilAs(
      "the old primary's copy of the new primary",
      primary,
      "ladder-router",
      async (c) => ((await c.zscore(`${PREFIX}board:b`, "p5")) === "8" ? true : undefined),
      60_000,
    );
    const rejoined = connect(primary, "ladder-router");
    expect(((await rejoined.call("ROLE")) as unknown[]).slice(0, 3)).toEqual(["slave", "127.0.0.1", replica]);
    expect(await answer(rejoined.zadd(`${PREFIX}board:b`, 1, "p6"))).toMatch(/^NOPERM/);
  }, 120_000);
});
