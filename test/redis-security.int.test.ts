// Redis secured (issue #28, item 2), on real processes: redis-servers (and, in the second part, a
// primary, its replica and three Sentinels) running with the cluster's ACL users and the `default`
// user off (platform/src/redis-acl.ts, deploy/local/src/redis-credentials.ts), and the services each logging in
// as its own user: the shard nodes as the writer, the router as the reader (its rebuild path as the
// admin), ingest as its reader.
//
//   1. Without credentials, or with a wrong password, every command is refused (NOAUTH, WRONGPASS).
//   2. The shard nodes apply what ingest writes, and every read the router serves answers through
//      its reader user: GetTop, GetRank, GetAround, GetStanding, GetCount, GetEntryAtRank,
//      GetRanks, a WatchTop stream (the change feed: the one key the reader may set).
//   3. The router's user cannot write: ZADD, EVALSHA of the apply script, EVAL, DEL, FLUSHALL, SET
//      of the heartbeat, SWAPDB, CONFIG SET are refused with NOPERM, a write inside EVAL_RO is
//      refused by Redis, and the board is unchanged afterwards.
//   5. Over TLS: a rediss:// shard is read through the reader user when the login carries the CA
//      (LADDER_REDIS_TLS_CA_FILE), and not reached without it.
//   4. Behind Sentinel with auth: the Sentinels refuse a connection without credentials, the shard
//      node finds its primary through them with its Sentinel user, and the router reads.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { WatchTopResponse } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { silentLogger } from "@ladder/platform/logger";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { NO_LOGIN, type RedisLogin } from "@ladder/platform/redis-login";
import { keyLayout, openRedis, readyWithin, ShardReader } from "@ladder/store";
import { APPLY_SCRIPT_SHA } from "@ladder/store/writer";
import { localRedisSecurity, localRedisServiceEnv, localRedisPasswords, type Login } from "@ladder/deploy/redis-credentials";
import { choosePort, ping, startRedisServer, type RedisServer } from "@ladder/deploy/redis-server";
import { startReplicatedRedis } from "@ladder/deploy/replicated-redis";
import { tempDir } from "@ladder/deploy/test-support";
import { startTestCluster, type TestCluster } from "./cluster-harness.js";
import { makeSelfSignedCert } from "./self-signed.js";

const log = silentLogger();
const BOARD = "secured";
const cleanups: Array<() => Promise<unknown>> = [];
const dirs: string[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
});
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** The passwords of a fresh data dir (made as `npm start` makes them) and the ACLs for `keyPrefix`. */
async function secured(label: string, keyPrefix: string) {
  const dataDir = await tempDir(label);
  dirs.push(dataDir);
  const passwords = localRedisPasswords(dataDir);
  return { dataDir, passwords, security: localRedisSecurity(passwords, keyPrefix) };
}

const asLogin = (l: Login): RedisLogin => ({ ...NO_LOGIN, username: l.username, password: l.password });

/** A plain connection to `port` as `login`. */
function connect(port: number, login: { username: string; password: string }): Redis {
  const c = new Redis({ host: "127.0.0.1", port, ...login, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  c.on("error", () => {});
  cleanups.push(async () => c.disconnect());
  return c;
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => "answered",
    (e: Error) => e.message,
  );

async function writeAndWait(c: TestCluster, players: number): Promise<void> {
  const res = await c.ingest.submitScores({
    updates: Array.from({ length: players }, (_, i) => ({
      board: BOARD,
      playerId: `p${i}`,
      op: 1, // SET
      value: BigInt(1000 - i * 7),
      timestampMs: BigInt(Date.now()),
    })),
  });
  expect(res.accepted).toBe(players);
  await c.waitApplied(res.offsets);
}

describe("redis security > shards with ACL users", () => {
  const ns = freshNamespace("redis-security");
  let servers: RedisServer[] = [];
  let cluster: TestCluster;
  let passwords: ReturnType<typeof localRedisPasswords>;
  const asAdmin = () => ({ username: "ladder-router-admin", password: passwords["ladder-router-admin"] });

  beforeAll(async () => {
    const s = await secured("redis-security", ns.keyPrefix);
    passwords = s.passwords;
    servers = await Promise.all(
      [0, 1].map((i) => startRedisServer({ dataDir: `${s.dataDir}/redis-${i}`, persist: false, security: s.security, log })),
    );
    cluster = await startTestCluster("redis-security", {
      ns,
      redisUrls: servers.map((r) => r.url),
      own: localRedisServiceEnv(s.dataDir, passwords, false),
      redisLogin: asLogin(asAdmin()),
    });
  });
  afterAll(async () => {
    await cluster?.stop();
    await Promise.all(servers.map((r) => r.stop()));
  });

  it("refuses every command without credentials (NOAUTH) or with a wrong password", async () => {
    for (const sv of servers) expect(await refusal(ping(sv.port))).toMatch(/^PING answered -NOAUTH/);
    const wrong = { username: "ladder-router", password: "not-the-password-at-all" };
    expect(await refusal(ping(servers[0]!.port, 1000, wrong))).toMatch(/^AUTH answered -WRONGPASS/);
  });

  it("applies what ingest writes through the shard nodes' user, and answers every read through the router's", async () => {
    await writeAndWait(cluster, 40);
    const r = cluster.router;
    const top = await r.getTop({ board: BOARD, limit: 10 });
    expect(top.entries.map((e) => e.playerId)).toEqual(Array.from({ length: 10 }, (_, i) => `p${i}`));
    expect((await r.getRank({ board: BOARD, playerId: "p3" })).entry?.rank).toBe(4n);
    expect((await r.getAround({ board: BOARD, playerId: "p20", radius: 2 })).entries.map((e) => e.playerId)).toEqual([
      "p18",
      "p19",
      "p20",
      "p21",
      "p22",
    ]);
    expect((await r.getCount({ board: BOARD })).count).toBe(40n);
    expect((await r.getEntryAtRank({ board: BOARD, at: { case: "rank", value: 40n } })).entry?.playerId).toBe("p39");
    expect((await r.getStanding({ playerId: "p0", boards: [{ board: BOARD }] })).standings[0]?.entry?.rank).toBe(1n);
    expect((await r.getRanks({ board: BOARD, playerIds: ["p1", "p2"] })).entries.map((x) => x.entry?.rank)).toEqual([2n, 3n]);
    // a live stream: the router's change feed sets its flag (the reader's one writable key) and reads the stream
    const controller = new AbortController();
    const seen: string[][] = [];
    const watching = (async () => {
      const stream = r.watchTop(
        { board: BOARD, limit: 3, intervalMs: 50 },
        { signal: controller.signal },
      ) as AsyncIterable<WatchTopResponse>;
      for await (const m of stream) seen.push(m.entries.map((e) => e.playerId));
    })().catch(() => {});
    await expect.poll(() => seen.length, { timeout: 15_000 }).toBeGreaterThan(0);
    const moved = await cluster.ingest.submitScores({
      updates: [{ board: BOARD, playerId: "newcomer", op: 1, value: 5000n, timestampMs: BigInt(Date.now()) }],
    });
    await cluster.waitApplied(moved.offsets);
    await expect.poll(() => seen.at(-1)?.[0], { timeout: 15_000 }).toBe("newcomer");
    controller.abort();
    await watching;
  });

  it("refuses the router's user every write: ZADD, EVALSHA of the apply script, DEL, FLUSHALL, and more, with NOPERM", async () => {
    const keys = keyLayout(ns.keyPrefix);
    const board = keys.board(BOARD);
    const sizes = await Promise.all(servers.map((sv) => connect(sv.port, asAdmin()).zcard(board)));
    const sv = servers[sizes.findIndex((n) => n > 0)]!;
    const reader = connect(sv.port, { username: "ladder-router", password: passwords["ladder-router"] });
    await reader.connect();
    const before = await reader.zrange(board, "0", "-1", "WITHSCORES");
    expect(before.length).toBeGreaterThan(0);
    const writes: Array<[string, Promise<unknown>]> = [
      ["ZADD", reader.zadd(board, 1, "intruder")],
      ["EVALSHA apply", reader.call("EVALSHA", APPLY_SCRIPT_SHA, "0")],
      ["EVAL", reader.call("EVAL", "return redis.call('ZADD', KEYS[1], 1, 'intruder')", 1, board)],
      ["DEL", reader.del(board)],
      ["UNLINK", reader.unlink(board)],
      ["FLUSHALL", reader.flushall()],
      ["FLUSHDB", reader.flushdb()],
      ["SET heartbeat", reader.set(keys.heartbeat, "forged")],
      ["SWAPDB", reader.call("SWAPDB", "0", "1")],
      ["CONFIG SET", reader.call("CONFIG", "SET", "maxmemory", "1")],
      ["ACL SETUSER", reader.call("ACL", "SETUSER", "ladder-router", "+@all")],
    ];
    for (const [what, p] of writes) expect(await refusal(p), what).toMatch(/^NOPERM/);
    // the read-only scripts may run, but Redis refuses any write inside them
    expect(await refusal(reader.call("EVAL_RO", "return redis.call('ZADD', KEYS[1], 1, 'intruder')", 1, board))).toMatch(
      /not allowed from read-only scripts|can't run this command/,
    );
    expect(await refusal(reader.call("EVAL_RO", "return redis.call('ZCARD', KEYS[1])", 1, board))).toBe("answered");
    // and a key outside the cluster's prefix is out of reach even to read
    expect(await refusal(reader.get("someone-else:key"))).toMatch(/^NOPERM/);
    expect(await reader.zrange(board, "0", "-1", "WITHSCORES")).toEqual(before);
    expect((await cluster.router.getCount({ board: BOARD })).count).toBe(41n);
  });
});

describe("redis security > Sentinel with auth", () => {
  it("refuses a Sentinel connection without credentials; the shard node finds its primary and the router reads, each as its own user", async () => {
    const ns = freshNamespace("redis-security-sentinel");
    const s = await secured("redis-security-sentinel", ns.keyPrefix);
    const name = `ladder-sec-${randomBytes(3).toString("hex")}-`;
    const replicated = await startReplicatedRedis({
      shards: 1,
      replicas: 1,
      sentinels: 3,
      dataDir: s.dataDir,
      persist: false,
      namePrefix: name,
      downAfterMs: 1000,
      failoverTimeoutMs: 5000,
      security: s.security,
      log,
    });
    cleanups.push(() => replicated.stop());
    for (const sn of replicated.sentinels) expect(await refusal(ping(sn.port))).toMatch(/^PING answered -NOAUTH/);
    const client = connect(replicated.sentinels[0]!.port, {
      username: "ladder-sentinel-client",
      password: s.passwords["ladder-sentinel-client"],
    });
    expect(await client.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", `${name}0`)).toEqual([
      "127.0.0.1",
      String(replicated.shards[0]!.primary.port),
    ]);
    expect(await refusal(client.call("SENTINEL", "RESET", "*"))).toMatch(/^NOPERM/);
    expect(await refusal(ping(replicated.shards[0]!.replicas[0]!.port))).toMatch(/^PING answered -NOAUTH/);

    const c = await startTestCluster("redis-security-sentinel", {
      ns,
      redisUrls: replicated.shards.map((sh) => sh.url),
      settings: { LADDER_SENTINELS: replicated.sentinelList },
      own: localRedisServiceEnv(s.dataDir, s.passwords, true),
      redisLogin: {
        ...NO_LOGIN,
        username: "ladder-router-admin",
        password: s.passwords["ladder-router-admin"],
        sentinelUsername: "ladder-sentinel-client",
        sentinelPassword: s.passwords["ladder-sentinel-client"],
      },
    });
    cleanups.push(() => c.stop());
    await writeAndWait(c, 12);
    expect((await c.router.getTop({ board: BOARD, limit: 3 })).entries.map((e) => e.playerId)).toEqual(["p0", "p1", "p2"]);
    expect((await c.router.getCount({ board: BOARD })).count).toBe(12n);
  });
});

describe("redis security > TLS", () => {
  it("reads a rediss:// shard as the reader when the login carries the CA, and reaches none without it", async () => {
    const ns = freshNamespace("redis-security-tls");
    const s = await secured("redis-security-tls", ns.keyPrefix);
    const [cert, key, acl] = ["cert.pem", "key.pem", "users.acl"].map((f) => join(s.dataDir, f)) as [string, string, string];
    makeSelfSignedCert(cert, key);
    await writeFile(acl, `${s.security.aclLines.join("\n")}\n`, { mode: 0o600 });
    const port = await choosePort(0);
    const server = spawn(
      "redis-server",
      ["--port", "0", "--tls-port", String(port), "--bind", "127.0.0.1", "--save", ""].concat([
        "--tls-cert-file",
        cert,
        "--tls-key-file",
        key,
        "--tls-ca-cert-file",
        cert,
        "--tls-auth-clients",
        "no",
        "--aclfile",
        acl,
      ]),
      { stdio: "ignore" },
    );
    cleanups.push(async () => void server.kill("SIGKILL"));
    const url = `rediss://127.0.0.1:${port}`;
    const login = { ...NO_LOGIN, username: "ladder-router", password: s.passwords["ladder-router"], tlsCa: readFileSync(cert, "utf8") };
    const reader = openRedis(url, { maxRetriesPerRequest: 1, retryStrategy: (n) => (n < 100 ? 50 : null) }, login);
    reader.on("error", () => {});
    cleanups.push(async () => reader.disconnect());
    await readyWithin(reader, 10_000);
    expect(await reader.call("PING")).toBe("PONG");
    // a read script over TLS, as the router runs it: no heartbeat yet, so the shard is "not running"
    const store = new ShardReader({ shardId: "shard-tls", stamp: "s", redis: reader, keyPrefix: ns.keyPrefix });
    expect(await refusal(store.top(BOARD, 3))).toBe("shard-tls: shard node is not running (no heartbeat)");
    expect(await refusal(reader.zadd(`${ns.keyPrefix}board:${BOARD}`, 1, "x"))).toMatch(/^NOPERM/);
    const untrusting = openRedis(
      url,
      { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true },
      { ...login, tlsCa: undefined },
    );
    untrusting.on("error", () => {});
    cleanups.push(async () => untrusting.disconnect());
    const failure = new Promise<string>((resolve) => untrusting.once("error", (e: Error) => resolve(e.message)));
    untrusting.connect().catch(() => {});
    expect(await failure).toMatch(/self.signed|certificate/i);
  });
});
