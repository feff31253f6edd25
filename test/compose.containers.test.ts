// The compose deployment run for real (issue #14, item 5): deploy/compose/docker-compose.yml brought up
// from the images deploy/images/build.sh built — three Kafka brokers (KRaft, replication 3,
// min.insync.replicas 2), per shard a Redis primary and replica, three Sentinels, three shard nodes, two
// routers and ingest, all on host networking. A game server's load of +1 increments (every acknowledged
// event known) runs while readers ask both routers; one broker's process is killed (SIGKILL: its
// container restarts it) and then shard-1's Redis primary (Sentinel promotes the replica; the old primary
// comes back as its replica). Then the board must hold every acknowledged event exactly once, and every
// player's rank on both routers must equal the oracle's. Prints the outage clients saw. The gateway
// (HTTP, the same image) serves the dashboard's files, the shards' status with its own token, and the
// top and a rank equal to the routers' gRPC answers, through router-1 while router-0 is stopped. Redis is
// secured: every Redis and Sentinel refuses a connection without credentials (NOAUTH), and the routers'
// user reads but every write it tries is refused (NOPERM).
import { writeFileSync } from "node:fs";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { toJson, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { status } from "@grpc/grpc-js";
import type { Redis } from "ioredis";
import { LogClient } from "@ladder/log/log-client";
import { describeKafka } from "@ladder/log/kafka-ready";
import { silentLogger } from "@ladder/platform/logger";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { dockerAvailable, KAFKA_IMAGE, REDIS_IMAGE, requireImages, SERVICES_IMAGE } from "@ladder/deploy/containers";
import { REDIS_USER_NAMES, redisPasswordVar } from "@ladder/deploy/redis-acl-templates";
import { redisAs as connectAs } from "@ladder/deploy/test-support";
import { AdminService, ShardReadiness } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { TEST_TOKENS } from "./cluster-harness.js";
import { composeProject, type ComposeProject } from "./compose-project.js";
import { getJson, http } from "./http-client.js";
import { pageProblems, plainEntry as plain } from "./oracle.js";
import { auditBoard, writeLoad, type WriteLoadResult } from "./write-load.js";

const ROUTERS = ["127.0.0.1:25051", "127.0.0.1:25053"];
const INGEST = "127.0.0.1:25052";
const GATEWAY = "http://127.0.0.1:25054";
const BROKERS = ["127.0.0.1:29091", "127.0.0.1:29092", "127.0.0.1:29093"];
/** The Kafka users' passwords compose needs (its top comment); the broker's is the test's own login. */
const KAFKA_PASSWORDS = Object.fromEntries(
  ["BROKER", "INGEST", "SHARD", "ROUTER", "ROUTER_CONTROL"].map((u) => [
    `KAFKA_${u}_PASSWORD`,
    `compose${u.toLowerCase().replace("_", "")}0123456789`,
  ]),
);
/** The Redis users' passwords compose needs (its top comment): REDIS_<USER>_PASSWORD. */
const REDIS_PASSWORDS = Object.fromEntries(REDIS_USER_NAMES.map((u) => [redisPasswordVar(u), `compose${u.replace(/-/g, "")}0123456789`]));
/** A connection to a compose Redis or Sentinel as `user` (none: no credentials). */
const redisAs = (port: number, user?: string): Redis =>
  connectAs(port, user === undefined ? undefined : { username: user, password: REDIS_PASSWORDS[redisPasswordVar(user)]! });
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => "answered",
    (e: Error) => e.message,
  );
const TOPIC = "ladder.scores"; // the compose file's (the services' default)
const grants = [
  { name: "game", token: TEST_TOKENS.write, roles: ["write"] },
  { name: "ops", token: TEST_TOKENS.admin, roles: ["admin"] },
  { name: "dash", token: TEST_TOKENS.monitor, roles: ["monitor"] },
];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const codeOf = (e: unknown) => (e as { code?: number }).code;
const retriable = (e: unknown) => codeOf(e) === status.UNAVAILABLE || codeOf(e) === status.DEADLINE_EXCEEDED;
const report = (what: string, figures: object) => console.log(`[compose] ${what}: ${JSON.stringify(figures)}`);
const proto3 = <D extends DescMessage>(schema: D, m: MessageShape<D>) => toJson(schema, m, { alwaysEmitImplicit: true });

/** The longest time between two consecutive instants of `times` (sorted) within [from, to]. */
function longestGap(times: number[], from: number, to: number): number {
  const inside = [from, ...times.filter((t) => t > from && t < to), to];
  let gap = 0;
  for (let i = 1; i < inside.length; i++) gap = Math.max(gap, inside[i]! - inside[i - 1]!);
  return gap;
}

describe("compose deployment", () => {
  let project: ComposeProject;
  let upMs = 0;
  let ingest: ClientOf<typeof IngestService>;
  let routers: ClientOf<typeof LeaderboardService>[];
  let admin: ClientOf<typeof AdminService>;

  beforeAll(async () => {
    if (!(await dockerAvailable())) throw new Error("no docker engine answers: npm run test:containers starts one");
    await requireImages(KAFKA_IMAGE, REDIS_IMAGE, SERVICES_IMAGE);
    project = composeProject(`ladder-test-${process.pid}`, {
      ...KAFKA_PASSWORDS,
      ...REDIS_PASSWORDS,
      LADDER_TOKENS: JSON.stringify(grants),
      LADDER_INGEST_TOKENS: JSON.stringify(grants.filter((g) => g.roles.includes("write")).map((g) => ({ ...g, roles: ["write"] }))),
      LADDER_GATEWAY_TOKEN: TEST_TOKENS.monitor,
      LADDER_STREAM_SECRET: "compose-test-stream-secret-0123456789",
      LADDER_IMPLICIT_BOARDS: "1",
      LADDER_LOG_LEVEL: "warn",
    });
    const started = Date.now();
    await project.up();
    ingest = createClient(IngestService, INGEST, undefined, {}, TEST_TOKENS.write);
    routers = ROUTERS.map((r) => createClient(LeaderboardService, r, undefined, {}, TEST_TOKENS.admin));
    admin = createClient(AdminService, ROUTERS[0]!, undefined, {}, TEST_TOKENS.admin);
    // up: every shard serving, as the router sees it
    for (;;) {
      const s = await admin.getClusterStatus({}, { timeoutMs: 3000 }).catch(() => undefined);
      if (s && s.shards.length === 3 && s.shards.every((x) => x.readiness === ShardReadiness.SERVING)) break;
      if (Date.now() - started > 240_000)
        throw new Error(
          `not serving 240 s after up: ${JSON.stringify(s?.shards.map((x) => x.refusal))}\n${await project.logs("shard-node-0")}`,
        );
      await sleep(500);
    }
    upMs = Date.now() - started;
  }, 300_000);

  afterAll(async () => {
    for (const c of [ingest, admin, ...(routers ?? [])]) c?.close();
    await project?.down();
  }, 120_000);

  it("writes on through a broker's and a Redis primary's death: nothing lost or doubled, every rank exact", async () => {
    // the score topic as the services made it against three brokers
    // the brokers are secured: no metadata without a login; the test logs in as the brokers' own user
    await expect(describeKafka(BROKERS)).rejects.toThrow();
    const caFile = join(await mkdtemp(join(tmpdir(), "ladder-compose-ca-")), "ca.pem");
    writeFileSync(caFile, await project.readFile("kafka-1", "/etc/ladder/kafka-tls/ca.pem"));
    const superUser = {
      sasl: { mechanism: "scram-sha-512" as const, username: "broker", password: KAFKA_PASSWORDS.KAFKA_BROKER_PASSWORD! },
      tls: { caFile },
    };
    const logClient = await LogClient.open(BROKERS, "compose-test", silentLogger(), superUser);
    const topic = await logClient.describeTopic(TOPIC);
    await logClient.close();
    expect(new Set(topic.partitions.map((p) => p.replicas))).toEqual(new Set([3]));
    expect(topic.configs.get("min.insync.replicas")).toBe("2");

    const board = "compose1";
    const players = 2000;
    let stop = false;
    let acknowledged = new Map<string, number>();
    const reads = ROUTERS.map(() => ({ ok: 0, refused: 0, okAt: [] as number[], problems: [] as string[] }));
    const readers = routers.map(async (router, r) => {
      for (let n = 0; !stop; n++) {
        if (acknowledged.size === 0) {
          await sleep(20);
          continue;
        }
        try {
          const bound = acknowledged;
          const page = await router.getTop({ board, limit: 10 }, { timeoutMs: 3000 });
          const entries = page.entries.map(plain);
          reads[r]!.problems.push(...pageProblems(entries, Number(page.total), 1));
          // a player gets at most 1 per batch: what was acknowledged before the call, and the batch in flight
          for (const e of entries)
            if (e.score > (bound.get(e.playerId) ?? 0) + 1)
              reads[r]!.problems.push(`${e.playerId} at ${e.score} over ${bound.get(e.playerId) ?? 0}`);
          reads[r]!.ok++;
          reads[r]!.okAt.push(Date.now());
        } catch (e) {
          if (!retriable(e)) throw e;
          reads[r]!.refused++;
          await sleep(20);
        }
      }
    });

    const faults: Record<string, number> = {};
    const ackAt: number[] = [];
    const loadStarted = Date.now();
    let load: WriteLoadResult;
    try {
      load = await writeLoad(
        { ingest },
        {
          board,
          batches: 160,
          batchSize: 100,
          players,
          afterBatch: async (b, sofar) => {
            acknowledged = new Map(sofar.expected);
            ackAt.push(Date.now());
            await sleep(30);
            if (b === 30) {
              faults.broker = Date.now();
              await project.crash("kafka-2");
            }
            if (b === 90) {
              faults.redisPrimary = Date.now();
              await project.crash("redis-1");
            }
          },
        },
      );
    } finally {
      stop = true;
      await Promise.all(readers);
    }
    const loadEnded = Date.now();

    // at rest: every acknowledged event applied exactly once, through either router
    let audit = await auditBoard({ router: routers[0]! }, board, load.oracle);
    for (const deadline = Date.now() + 90_000; (audit.lost > 0 || audit.misranked > 0) && Date.now() < deadline; await sleep(500)) {
      audit = await auditBoard({ router: routers[0]! }, board, load.oracle).catch(() => audit);
    }
    const audit2 = await auditBoard({ router: routers[1]! }, board, load.oracle);
    const expected = load.oracle.byPlayer(board);
    let wrongRanks = 0;
    const wrong: string[] = [];
    for (const router of routers) {
      for (const [player, want] of expected) {
        const got = plain((await router.getRank({ board, playerId: player }, { timeoutMs: 5000 })).entry!);
        if (!isDeepStrictEqual(got, want)) {
          wrongRanks++;
          if (wrong.length < 5) wrong.push(`${player}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
        }
      }
    }

    // the dead came back: the broker's container restarted; the old primary rejoined as the replica
    const brokerState = await project.state("kafka-2");
    const sentinel = redisAs(27200, "ladder-sentinel-client");
    const oldPrimary = redisAs(27001, "ladder-router");
    let primaryNow: unknown;
    let oldPrimaryRole: unknown;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(500)) {
      primaryNow = await sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "ladder-shard-1").catch(() => undefined);
      oldPrimaryRole = ((await oldPrimary.call("ROLE").catch(() => [])) as unknown[])[0];
      if (oldPrimaryRole === "slave") break;
    }
    sentinel.disconnect();
    oldPrimary.disconnect();

    const figures = {
      upMs,
      loadMs: loadEnded - loadStarted,
      acknowledged: load.acknowledged,
      writeRetries: load.retries,
      writeOutageBrokerMs: longestGap(ackAt, faults.broker!, faults.broker! + 30_000),
      writeOutageRedisMs: longestGap(ackAt, faults.redisPrimary!, Math.min(loadEnded, faults.redisPrimary! + 30_000)),
      reads: reads.map((r) => ({
        ok: r.ok,
        refused: r.refused,
        outageBrokerMs: longestGap(r.okAt, faults.broker!, Math.min(faults.redisPrimary!, faults.broker! + 30_000)),
        outageRedisMs: longestGap(r.okAt, faults.redisPrimary!, loadEnded),
      })),
      brokerRestarts: brokerState.restarts,
      shard1Primary: primaryNow,
      oldPrimaryRole,
    };
    report("outage and figures", figures);
    expect(reads.flatMap((r) => r.problems).slice(0, 5)).toEqual([]);
    expect({ lost: audit.lost, doubled: audit.doubled, misranked: audit.misranked }).toEqual({ lost: 0, doubled: 0, misranked: 0 });
    expect({ lost: audit2.lost, doubled: audit2.doubled, misranked: audit2.misranked }).toEqual({ lost: 0, doubled: 0, misranked: 0 });
    expect(audit.events).toBe(160 * 100);
    expect(wrong).toEqual([]);
    expect(wrongRanks).toBe(0);
    expect(brokerState).toEqual({ running: true, restarts: 1 });
    expect(primaryNow).toEqual(["127.0.0.1", "27101"]);
    expect(oldPrimaryRole).toBe("slave");
    expect(reads.every((r) => r.ok > 0)).toBe(true);
  }, 600_000);

  it("runs Redis secured: no command without credentials (NOAUTH), the routers' user reads and cannot write (NOPERM)", async () => {
    const board = "compose-secured";
    await ingest.submitScores({
      updates: [{ board, playerId: "s1", op: Operation.SET, value: 5n, timestampMs: BigInt(Date.now()) }],
    });
    for (const deadline = Date.now() + 30_000; ; await sleep(200)) {
      if (Number((await routers[0]!.getTop({ board, limit: 1 }).catch(() => undefined))?.total ?? 0) === 1) break;
      if (Date.now() > deadline) throw new Error(`board ${board} not applied within 30 s`);
    }
    const clients: Redis[] = [];
    const as = (port: number, user?: string) => {
      const c = redisAs(port, user);
      clients.push(c);
      return c;
    };
    try {
      // every primary, replica and Sentinel refuses a connection without credentials
      for (const port of [27000, 27001, 27002, 27100, 27101, 27102, 27200, 27201, 27202])
        expect(await refusal(as(port).ping()), String(port)).toMatch(/^NOAUTH/);
      // the shards' primaries, as the Sentinels name them now (shard-1's moved in the first test)
      const sentinel = as(27200, "ladder-sentinel-client");
      const primaries = await Promise.all(
        [0, 1, 2].map(async (i) =>
          Number(((await sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", `ladder-shard-${i}`)) as string[])[1]),
        ),
      );
      let keys = 0;
      for (const port of primaries) {
        const router = as(port, "ladder-router");
        keys += await router.dbsize();
        const refused = {
          zadd: await refusal(router.zadd(`lb:board:${board}`, 1, "intruder")),
          set: await refusal(router.set("lb:intruder", "1")),
          del: await refusal(router.del(`lb:board:${board}`)),
          eval: await refusal(router.eval("return 1", 0)),
          flushall: await refusal(router.call("FLUSHALL")),
          configSet: await refusal(router.call("CONFIG", "SET", "maxmemory", "1")),
        };
        for (const [what, answer] of Object.entries(refused)) expect(answer, `${what} on ${port}`).toMatch(/^NOPERM/);
      }
      expect(keys).toBeGreaterThan(0); // it reads
      // and the board is as ingest left it
      const top = await routers[0]!.getTop({ board, limit: 10 });
      expect(top.entries.map((e) => [e.playerId, Number(e.score)])).toEqual([["s1", 5]]);
      report("redis security", { primaries, refusedWrites: 6 * primaries.length });
    } finally {
      for (const c of clients) c.disconnect();
    }
  }, 120_000);

  it("the gateway serves the dashboard and answers as the routers do, through router-1 while router-0 is stopped", async () => {
    const M = LeaderboardService.method;
    const started = Date.now();
    for (;;) {
      // it answers /healthz once it listens (the router is not asked)
      const h = await http(`${GATEWAY}/healthz`).catch(() => undefined);
      if (h?.status === 200) {
        expect(h.body).toEqual({ status: "ok" });
        break;
      }
      if (Date.now() - started > 60_000) throw new Error(`the gateway does not answer:\n${await project.logs("gateway")}`);
      await sleep(500);
    }
    // the dashboard's files came into the image with the gateway
    const page = await http(`${GATEWAY}/`);
    expect([page.status, page.headers["content-type"]]).toEqual([200, "text/html; charset=utf-8"]);
    expect(page.body).toBe(await readFile(new URL("../gateway/public/index.html", import.meta.url), "utf8"));
    // its own token (LADDER_GATEWAY_TOKEN, a monitor one of LADDER_TOKENS): the shards' status
    const shards = ((await getJson(`${GATEWAY}/api/status`)) as { shards: Array<{ shardId: string; readiness: string }> }).shards;
    expect(shards.map((x) => [x.shardId, x.readiness])).toEqual([0, 1, 2].map((i) => [`shard-${i}`, "SHARD_READINESS_SERVING"]));

    const board = "compose-gateway";
    const players = 30;
    await ingest.submitScores({
      updates: Array.from({ length: players }, (_, i) => ({
        board,
        playerId: `g${i}`,
        op: Operation.SET,
        value: BigInt(1 + ((i * 7) % 25)),
        timestampMs: BigInt(Date.now()),
      })),
    });
    for (const deadline = Date.now() + 30_000; ; await sleep(200)) {
      // applied on every shard, seen by both routers
      const totals = await Promise.all(
        routers.map((r) =>
          r.getTop({ board, limit: 1 }).then(
            (t) => Number(t.total),
            () => 0,
          ),
        ),
      );
      if (totals.every((t) => t === players)) break;
      if (Date.now() > deadline) throw new Error(`board ${board}: totals ${totals} of ${players} after 30 s`);
    }
    const top = proto3(M.getTop.output, await routers[0]!.getTop({ board, limit: 10 }));
    expect(proto3(M.getTop.output, await routers[1]!.getTop({ board, limit: 10 }))).toEqual(top);
    expect(await getJson(`${GATEWAY}/api/boards/${board}/top?limit=10`)).toEqual(top);
    const rank = proto3(M.getRank.output, await routers[0]!.getRank({ board, playerId: "g7" }));
    expect(await getJson(`${GATEWAY}/api/boards/${board}/rank?player=g7`)).toEqual(rank);

    // router-0 away: the gateway's target names both routers, and it asks router-1
    await project.stop("router-0");
    let failoverMs: number;
    try {
      const asked = Date.now();
      const viaGateway = await getJson(`${GATEWAY}/api/boards/${board}/top?limit=10`);
      failoverMs = Date.now() - asked;
      expect(viaGateway).toEqual(proto3(M.getTop.output, await routers[1]!.getTop({ board, limit: 10 })));
      expect(await getJson(`${GATEWAY}/api/boards/${board}/rank?player=g7`)).toEqual(rank);
    } finally {
      await project.start("router-0");
    }
    report("gateway", { testMs: Date.now() - started, failoverMs });
  }, 180_000);
});
