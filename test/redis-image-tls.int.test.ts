// Redis over TLS behind Sentinel, as the Redis image runs it (deploy/images/redis/ladder-redis.sh with
// REDIS_TLS_CERT_FILE and REDIS_TLS_CA_FILE) on this machine's redis-server: a shard's primary, its
// replica and a Sentinel serving TLS alone, with the ACL users, and a cluster whose services reach them
// with LADDER_SENTINEL_TLS=1 and the CA (LADDER_REDIS_TLS_CA_FILE), each as its own user.
//
//   1. A plaintext connection gets no answer; over TLS without credentials, NOAUTH.
//   2. The replica follows its primary over TLS; the Sentinel sees it (its links are TLS too).
//   3. The shard node finds its primary through the Sentinel and applies what ingest writes; the router
//      reads it through its own connections to the Sentinel and the nodes (GetTop, GetRank, GetCount).
//   4. The image's health check answers over TLS.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@ladder/deploy/free-port";
import { REDIS_USER_NAMES, redisAclTemplates, redisPasswordVar } from "@ladder/deploy/redis-acl-templates";
import { tempDir } from "@ladder/deploy/test-support";
import { NO_LOGIN } from "@ladder/platform/redis-login";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { startTestCluster, type TestCluster } from "./cluster-harness.js";
import { makeSelfSignedCert } from "./self-signed.js";

const run = promisify(execFile);
const LADDER_REDIS = fileURLToPath(new URL("../deploy/images/redis/ladder-redis.sh", import.meta.url));
const BOARD = "tls";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const passwords = Object.fromEntries(REDIS_USER_NAMES.map((u) => [u, `${u.replace("ladder-", "")}-Tls0123456789abcdef`]));
const passwordEnv = Object.fromEntries(REDIS_USER_NAMES.map((u) => [redisPasswordVar(u), passwords[u]!]));

describe("redis image > TLS behind Sentinel", () => {
  const ns = freshNamespace("redis-image-tls");
  const master = `ladder-tls-${process.pid}`;
  const processes: ChildProcess[] = [];
  const clients: Redis[] = [];
  let root: string;
  let ca: string;
  let ports: { primary: number; replica: number; sentinel: number };
  let env: Record<string, string>;
  let cluster: TestCluster;

  const start = (name: string, mode: "server" | "sentinel", own: Record<string, string>) => {
    const child = spawn("bash", [LADDER_REDIS, mode], { env: { ...env, REDIS_DATA_DIR: join(root, name), ...own }, stdio: "ignore" });
    processes.push(child);
  };
  const tlsClient = (port: number, user?: string) => {
    const login = user === undefined ? {} : { username: user, password: passwords[user]! };
    const c = new Redis({
      host: "127.0.0.1",
      port,
      ...login,
      tls: { ca },
      lazyConnect: true,
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    c.on("error", () => {});
    clients.push(c);
    return c;
  };
  const until = async <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> => {
    for (const deadline = Date.now() + timeoutMs; ; await sleep(200)) {
      const v = await probe().catch(() => undefined);
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    }
  };

  beforeAll(async () => {
    root = await tempDir("redis-image-tls");
    const templates = join(root, "templates");
    for (const d of [templates, join(root, "primary"), join(root, "replica"), join(root, "sentinel")]) await mkdir(d, { recursive: true });
    for (const [name, text] of Object.entries(redisAclTemplates())) writeFileSync(join(templates, name), text);
    const cert = join(root, "cert.pem");
    const key = join(root, "key.pem");
    makeSelfSignedCert(cert, key);
    ca = readFileSync(cert, "utf8");
    writeFileSync(join(root, "redis.pem"), readFileSync(key, "utf8") + ca, { mode: 0o600 }); // key and certificate, as the image reads them
    env = {
      PATH: process.env.PATH!,
      LADDER_REDIS_TEMPLATES: templates,
      REDIS_KEY_PREFIX: ns.keyPrefix,
      REDIS_TLS_CERT_FILE: join(root, "redis.pem"),
      REDIS_TLS_CA_FILE: cert,
      ...passwordEnv,
    };
    ports = { primary: await freePort(), replica: await freePort(), sentinel: await freePort() };
    const sentinels = { REDIS_SENTINELS: `127.0.0.1:${ports.sentinel}`, REDIS_MASTER_NAME: master };
    start("primary", "server", { REDIS_PORT: String(ports.primary), ...sentinels });
    await until("the primary", async () => ((await tlsClient(ports.primary, "ladder-replication").ping()) === "PONG" ? true : undefined));
    start("replica", "server", { REDIS_PORT: String(ports.replica), REDIS_REPLICA_OF: `127.0.0.1:${ports.primary}`, ...sentinels });
    start("sentinel", "sentinel", {
      SENTINEL_PORT: String(ports.sentinel),
      SENTINEL_MONITOR: `${master}=127.0.0.1:${ports.primary}`,
      SENTINEL_QUORUM: "1",
    });
    await until("the Sentinel", async () =>
      (await tlsClient(ports.sentinel, "ladder-sentinel-client").ping()) === "PONG" ? true : undefined,
    );

    const own = (user: string) => ({
      LADDER_REDIS_USERNAME: user,
      LADDER_REDIS_PASSWORD: passwords[user]!,
      LADDER_SENTINEL_USERNAME: "ladder-sentinel-client",
      LADDER_SENTINEL_PASSWORD: passwords["ladder-sentinel-client"]!,
    });
    cluster = await startTestCluster("redis-image-tls", {
      ns,
      redisUrls: [`sentinel://${master}`],
      settings: { LADDER_SENTINELS: `127.0.0.1:${ports.sentinel}`, LADDER_SENTINEL_TLS: "1", LADDER_REDIS_TLS_CA_FILE: cert },
      own: {
        shard: own("ladder-shard-node"),
        router: {
          ...own("ladder-router"),
          LADDER_REDIS_ADMIN_USERNAME: "ladder-router-admin",
          LADDER_REDIS_ADMIN_PASSWORD: passwords["ladder-router-admin"]!,
        },
        ingest: own("ladder-ingest"),
      },
      redisLogin: {
        ...NO_LOGIN,
        username: "ladder-router-admin",
        password: passwords["ladder-router-admin"],
        sentinelUsername: "ladder-sentinel-client",
        sentinelPassword: passwords["ladder-sentinel-client"],
        tlsCa: ca,
        sentinelTls: true,
      },
    });
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    for (const c of clients) c.disconnect();
    for (const p of processes) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
    if (root) await rm(root, { recursive: true, force: true });
  });

  it("serves TLS alone: a plaintext client gets no answer, a TLS one without credentials NOAUTH", async () => {
    for (const port of Object.values(ports)) {
      const plain = new Redis({
        host: "127.0.0.1",
        port,
        lazyConnect: true,
        connectTimeout: 2000,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      plain.on("error", () => {});
      clients.push(plain);
      const answer = await Promise.race([plain.ping().catch((e: Error) => e.message), sleep(3000).then(() => "no answer")]);
      expect(answer, String(port)).not.toBe("PONG");
      expect(
        await tlsClient(port)
          .ping()
          .catch((e: Error) => e.message),
        String(port),
      ).toMatch(/^NOAUTH/);
    }
  });

  it("replicates, and Sentinel watches, over TLS; the services find the primary and read through it as their own users", async () => {
    const role = await until("the replica's link", async () => {
      const r = (await tlsClient(ports.replica, "ladder-router").call("ROLE")) as unknown[];
      return r[3] === "connected" ? r : undefined;
    });
    expect(role.slice(0, 3)).toEqual(["slave", "127.0.0.1", ports.primary]);
    const res = await cluster.ingest.submitScores({
      updates: Array.from({ length: 20 }, (_, i) => ({
        board: BOARD,
        playerId: `p${i}`,
        op: 1, // SET
        value: BigInt(500 - i),
        timestampMs: BigInt(Date.now()),
      })),
    });
    expect(res.accepted).toBe(20);
    await cluster.waitApplied(res.offsets);
    const top = await cluster.router.getTop({ board: BOARD, limit: 3 });
    expect(top.entries.map((e) => e.playerId)).toEqual(["p0", "p1", "p2"]);
    expect((await cluster.router.getRank({ board: BOARD, playerId: "p7" })).entry?.rank).toBe(8n);
    expect((await cluster.router.getCount({ board: BOARD })).count).toBe(20n);
    // the replica holds the board too, and the router's user cannot write it there or on the primary
    const onReplica = tlsClient(ports.replica, "ladder-router");
    expect(await onReplica.zcard(`${ns.keyPrefix}board:${BOARD}`)).toBe(20);
    expect(
      await tlsClient(ports.primary, "ladder-router")
        .zadd(`${ns.keyPrefix}board:${BOARD}`, 1, "x")
        .catch((e: Error) => e.message),
    ).toMatch(/^NOPERM/);
    // the image's health check, over TLS
    await run("bash", [LADDER_REDIS, "ping"], { env: { ...env, REDIS_PORT: String(ports.primary) } });
    await run("bash", [LADDER_REDIS, "ping"], {
      env: { ...env, SENTINEL_MONITOR: "x=127.0.0.1:1", SENTINEL_PORT: String(ports.sentinel) },
    });
  });
});
