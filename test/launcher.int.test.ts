// The local cluster launcher (`npm start`) supervises what it starts: the real launcher runs as a child
// process (its own Kafka broker, 3 redis-servers, 3 shard nodes, router, ingest and the gateway, on free
// ports and its own data dir), scores are written, and a shard node, a redis-server, the router and the
// gateway are killed with SIGKILL one after another. Each must be restarted while every other process keeps its pid;
// the shard must go from refusing reads to serving, as GetClusterStatus and `cli status` show; every
// acknowledged write must then be read back exactly (each page of the board and each player's rank
// equal to an oracle of what was written). SIGINT to the launcher must stop every process it started.
// The launcher and its services run their compiled JavaScript on Node 24, with nothing else running
// inside them (no TypeScript loader and its esbuild service).
// What a newcomer meets is checked too: a healthy start prints no warning or error (and its services
// log no error line), each process's output lands in its own file under <data dir>/logs/, a second start is refused at once in one line,
// `reset` removes the cluster's state, the data dir is its owner's alone (0700, files 0600). The
// background start (`--background`, `status`, `stop`) is walked by test/readme-tour.int.test.ts, as the
// README's Quick start shows it.
import { execFileSync } from "node:child_process";
import { lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@ladder/platform/config";
import { kafkaLoginFromFile } from "@ladder/platform/credentials-file";
import { describeKafka } from "@ladder/log/kafka-ready";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { REPO } from "@ladder/deploy/built-entry";
import { portIsFree } from "@ladder/deploy/free-port";
import { ping } from "@ladder/deploy/redis-server";
import { AdminService, ShardReadiness, type GetClusterStatusResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { TEST_TOKENS } from "./cluster-harness.js";
import { getJson } from "./http-client.js";
import {
  ALREADY_RUNNING,
  alivePids,
  QUICKLY_MS,
  runCli,
  runLauncherCommand,
  startLauncher,
  until,
  type LauncherRun,
} from "./launcher-process.js";
import { Oracle, plainEntry, type OracleUpdate } from "./oracle.js";

const BOARD = "launcher";
const PLAYERS = Array.from({ length: 300 }, (_, i) => `lp-${String(i).padStart(3, "0")}`);
const grants = [
  { name: "test-game-server", token: TEST_TOKENS.write, roles: ["write"] },
  { name: "test-admin", token: TEST_TOKENS.admin, roles: ["admin"] },
  { name: "test-monitor", token: TEST_TOKENS.monitor, roles: ["monitor"] },
];
const oracle = new Oracle((board) => loadConfig({}).boards.forBoard(board));
const t0 = Date.now() - 3_600_000;
let written = 0;

let dir: string;
let launcher: LauncherRun;
let clients: { ingest: ClientOf<typeof IngestService>; router: ClientOf<typeof LeaderboardService>; admin: ClientOf<typeof AdminService> };
/** Every pid the launcher's state named, to check at the end that none outlived it. */
const seenPids = new Set<number>();

const status = (): Promise<GetClusterStatusResponse> => clients.admin.getClusterStatus({}, { timeoutMs: 10_000 });
const remember = () => {
  for (const p of launcher.state()?.processes ?? []) if (p.pid !== null) seenPids.add(p.pid);
};
/** name -> pid of every supervised process. */
const pids = () => Object.fromEntries(launcher.state()!.processes.map((p) => [p.name, p.pid]));

/** Writes one batch (acknowledged: applied to the oracle in acknowledgement order). */
async function write(updates: OracleUpdate[]): Promise<void> {
  const res = await clients.ingest.submitScores({
    updates: updates.map((u) => ({ ...u, value: BigInt(u.value), timestampMs: BigInt(u.timestampMs) })),
  });
  expect(res.accepted).toBe(updates.length);
  for (const u of updates) oracle.apply(u);
  written += updates.length;
}

/** Every shard serving, nothing left to apply, and the log holding every acknowledged write. */
async function settled(): Promise<GetClusterStatusResponse> {
  return until(
    "every shard serving and caught up",
    60_000,
    async () => {
      const s = await status().catch(() => undefined);
      const ok =
        s?.shards.every((x) => x.readiness === ShardReadiness.SERVING && x.lagRecords === 0n) &&
        s.kafka!.endOffsets.reduce((n, o) => n + o.offset, 0n) === BigInt(written);
      return ok ? s : undefined;
    },
    200,
  );
}

/** Every page of the board and every player's rank equal the oracle. */
async function expectExact(): Promise<void> {
  const want = oracle.sorted(BOARD);
  const got = [];
  for (let offset = 0n; ; offset += 100n) {
    const page = await clients.router.getTop({ board: BOARD, limit: 100, offset });
    expect(page.total).toBe(BigInt(want.length));
    got.push(...page.entries.map(plainEntry));
    if (page.entries.length < 100) break;
  }
  expect(got).toEqual(want);
  const ranks = await Promise.all(want.map((e) => clients.router.getRank({ board: BOARD, playerId: e.playerId })));
  expect(ranks.map((r) => plainEntry(r.entry!))).toEqual(want);
}

/** Kills `name` with SIGKILL; returns when, and the pids of the others before. */
function kill(name: string): { at: number; others: Record<string, number | null> } {
  remember();
  const before = pids();
  const pid = before[name]!;
  process.kill(pid, "SIGKILL");
  delete before[name];
  return { at: Date.now(), others: before };
}

/** Waits until `name` is up again after its restart number `restarts`, and checks nobody else moved. */
async function restarted(name: string, restarts: number, others: Record<string, number | null>): Promise<void> {
  await until(`${name} restarted`, 60_000, () =>
    launcher.process(name).state === "up" && launcher.process(name).restarts === restarts ? true : undefined,
  );
  remember();
  const now = pids();
  for (const [other, pid] of Object.entries(others)) expect(now[other], `${other} kept running`).toBe(pid);
  expect(launcher.state()!.processes.filter((p) => p.state !== "up")).toEqual([]);
  const died = launcher
    .output()
    .split("\n")
    .filter((l) => l.includes(`"process":"${name}"`) && l.includes("process died; restarting it"));
  expect(died.length).toBe(restarts);
  expect(JSON.parse(died.at(-1)!)).toMatchObject({ signal: "SIGKILL", code: null, restarts: restarts - 1 });
}

/** A process's command line and Node version (of the binary it runs), and its children's pids. */
function processInfo(pid: number): { argv: string[]; nodeVersion: string; children: number[] } {
  const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  const nodeVersion = execFileSync(readlinkSync(`/proc/${pid}/exe`), ["--version"], { encoding: "utf8" }).trim();
  const children = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return (
          readFileSync(`/proc/${d}/stat`, "utf8")
            .replace(/^.*\) /s, "")
            .split(" ")[1] === String(pid)
        ); // field 4: ppid
      } catch {
        return false; // exited meanwhile
      }
    })
    .map(Number);
  return { argv, nodeVersion, children };
}

const shardOf = (s: GetClusterStatusResponse, shardId: string) => s.shards.find((x) => x.shardId === shardId)!;

/** Polls GetClusterStatus until the shard's reads are refused; returns the refusal. */
function refused(shardId: string): Promise<string> {
  return until(
    `${shardId} refused`,
    30_000,
    async () => {
      const s = shardOf(await status(), shardId);
      return s.readiness === ShardReadiness.UNAVAILABLE ? s.refusal : undefined;
    },
    50,
  );
}

/** Polls GetClusterStatus until the shard serves reads; returns when, and the distinct refusals seen meanwhile. */
async function serving(shardId: string): Promise<{ at: number; refusals: string[] }> {
  const refusals = new Set<string>();
  const at = await until(
    `${shardId} serving`,
    90_000,
    async () => {
      const s = shardOf(await status(), shardId);
      if (s.readiness !== ShardReadiness.SERVING) refusals.add(s.refusal.replace(/\d+ records/, "N records"));
      return s.readiness === ShardReadiness.SERVING ? Date.now() : undefined;
    },
    50,
  );
  return { at, refusals: [...refusals] };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ladder-launcher-"));
  const ns = freshNamespace("launcher");
  launcher = await startLauncher(join(dir, "data"), {
    LADDER_SCORE_TOPIC: ns.topic,
    LADDER_KEY_PREFIX: ns.keyPrefix,
    LADDER_SLOTS: "12",
    LADDER_HEARTBEAT_TTL_MS: "1000",
    LADDER_TOKENS: JSON.stringify(grants),
  });
  const state = await until(
    "the launcher up",
    150_000,
    () => {
      if (launcher.child.exitCode !== null) throw new Error(`the launcher exited:\n${launcher.output()}`);
      return launcher.state();
    },
    250,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; its output:\n${launcherLines(40)}`);
  });
  remember();
  clients = {
    ingest: createClient(IngestService, state.ingest, undefined, {}, TEST_TOKENS.write),
    router: createClient(LeaderboardService, state.router),
    admin: createClient(AdminService, state.router, undefined, {}, TEST_TOKENS.admin),
  };
  await write(
    PLAYERS.map((playerId, i) => ({
      board: BOARD,
      playerId,
      op: Operation.SET,
      value: (i * 7919) % 150,
      timestampMs: t0 + (i % 5) * 60_000,
    })),
  );
  await settled();
}, 200_000);

/** The launcher's own lines (not its services' debug lines), the last `n`. */
const launcherLines = (n: number) =>
  launcher
    .output()
    .split("\n")
    .filter((l) => !l.includes('"level":20'))
    .slice(-n)
    .join("\n");

afterEach((ctx) => {
  if (ctx.task.result?.state === "fail") console.log(`the launcher's last lines:\n${launcherLines(30)}`);
});

afterAll(async () => {
  for (const c of Object.values(clients ?? {})) c.close();
  if (launcher && launcher.child.exitCode === null) {
    launcher.child.kill("SIGINT");
    await Promise.race([launcher.exited, new Promise((r) => setTimeout(r, 60_000))]);
  }
  for (const pid of alivePids(seenPids)) process.kill(pid, "SIGKILL"); // none left behind, even after a failure
  await rm(dir, { recursive: true, force: true });
}, 90_000);

/** The file of process `name` under the launcher's logs dir. */
const logOf = (dataDir: string, name: string) => readFileSync(join(dataDir, "logs", `${name}.log`), "utf8");

describe("local launcher supervision", () => {
  it("starts quietly: no warning or error line before it runs, no child's JSON quoted in its own; each process's output in its own file", () => {
    const out = launcher.output();
    const beforeRunning = out.slice(0, out.indexOf("ladder is running:")).split("\n").filter(Boolean);
    expect(beforeRunning.length).toBeGreaterThan(5);
    const loud = beforeRunning.filter((l) => !l.startsWith("{") || JSON.parse(l).level >= 40);
    expect(loud, "lines at warn or above, or not JSON, before the cluster ran").toEqual([]);
    expect(out).not.toMatch(/"line":"\{/);
    const files = readdirSync(join(launcher.dataDir, "logs")).sort();
    const want = [
      "launcher",
      "gateway",
      "ingest",
      "router",
      "shard-0",
      "shard-1",
      "shard-2",
      ...launcher.redisPorts.map((p) => `redis-${p}`),
    ];
    expect(files).toEqual(expect.arrayContaining(want.map((n) => `${n}.log`)));
    expect(logOf(launcher.dataDir, "router")).toMatch(/^\{.*"msg":"router listening"/m); // the service's own pino lines, as printed
    for (const i of [0, 1, 2]) expect(logOf(launcher.dataDir, `shard-${i}`)).toMatch(/"msg":"shard node ready"/);
    expect(logOf(launcher.dataDir, `redis-${launcher.redisPorts[0]}`)).toMatch(/Ready to accept connections/);
    expect(logOf(launcher.dataDir, "launcher")).toMatch(/"msg":"kafka ready"/);
    // a normal start logs no error: kafkajs's routine lines (connection retries, rebalances) are debug
    const errors = ["gateway", "ingest", "router", "shard-0", "shard-1", "shard-2"].flatMap((name) =>
      logOf(launcher.dataDir, name)
        .split("\n")
        .filter((l) => l.startsWith("{") && JSON.parse(l).level >= 50)
        .map((l) => `${name}: ${l}`),
    );
    expect(errors, "error lines in the services' logs of a normal start").toEqual([]);
  });

  it("refuses a second start on the same data dir at once, in one line, and exits 1; status names the running one", async () => {
    const second = await runLauncherCommand("main", [], launcher.env);
    expect({ code: second.code, out: second.out }).toEqual({ code: 1, out: ALREADY_RUNNING(launcher.child.pid!, launcher.dataDir) });
    expect(second.ms).toBeLessThan(QUICKLY_MS);
    const status = await runLauncherCommand("control", ["status"], launcher.env);
    expect(status.code, status.out).toBe(0);
    expect(status.out).toMatch(new RegExp(`^ladder is running \\(pid ${launcher.child.pid}, `));
    expect(status.out).toMatch(/^ +shard-0 +up +pid \d+ /m);
  });

  it("runs every Redis with the cluster's ACL users: no command without credentials, each service its own user", async () => {
    for (const port of launcher.redisPorts)
      expect(
        await ping(port).then(
          () => "PONG",
          (e: Error) => e.message,
        ),
      ).toMatch(/-NOAUTH/);
    const file = JSON.parse(readFileSync(join(launcher.dataDir, "credentials.json"), "utf8")) as { redis: Record<string, string> };
    const reader = { username: "ladder-router", password: file.redis["ladder-router"]! };
    await ping(launcher.redisPorts[0]!, 1000, reader);
    // no password on any command line
    const commandLines = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
    for (const password of Object.values(file.redis)) expect(commandLines.includes(password)).toBe(false);
    // each service's Redis and Kafka passwords in files of their own
    expect(readdirSync(join(launcher.dataDir, "secrets")).sort()).toEqual(
      [
        ...["ladder-ingest", "ladder-router", "ladder-router-admin", "ladder-shard-node"],
        ...["kafka-ingest", "kafka-router", "kafka-router-control", "kafka-shard"],
      ]
        .map((u) => `${u}.password`)
        .sort(),
    );
  });

  it("reports the running cluster: every shard serving with its lag, heartbeat, size and Redis node; Kafka and the topic", async () => {
    const s = await settled();
    expect(s.shards.map((x) => x.shardId)).toEqual(["shard-0", "shard-1", "shard-2"]);
    s.shards.forEach((x, i) => {
      expect(x).toMatchObject({ readiness: ShardReadiness.SERVING, refusal: "", lagRecords: 0n, heartbeatTtlMs: 1000n, partitions: 4 });
      expect(Number(x.heartbeatAgeMs)).toBeLessThanOrEqual(1000);
      expect(x.keys).toBeGreaterThan(0n);
      expect(x.usedMemoryBytes).toBeGreaterThan(0n);
      expect(x.nodes).toMatchObject([
        { address: `127.0.0.1:${launcher.redisPorts[i]}`, role: "master", reachable: true, servesReads: true },
      ]);
    });
    expect(s.kafka).toMatchObject({ reachable: true, error: "", brokers: [`127.0.0.1:${launcher.kafkaPort}`] });
    expect(s.kafka!.endOffsets.map((o) => o.partition)).toEqual([...Array(12).keys()]);
    expect(launcher.state()!.processes.map((p) => `${p.name}:${p.state}`)).toEqual(
      ["kafka", "redis-0", "redis-1", "redis-2", "shard-0", "shard-1", "shard-2", "router", "ingest", "gateway"].map((n) => `${n}:up`),
    );
    await expectExact();
  });

  it("secures its broker: no metadata without a login; each service gets only its own; the logins in credentials.json, 0600", async () => {
    const brokers = [`127.0.0.1:${launcher.kafkaPort}`];
    await expect(describeKafka(brokers)).rejects.toThrow(); // what `kcat -b 127.0.0.1:<port> -L` asks
    const file = join(launcher.dataDir, "credentials.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const ingest = kafkaLoginFromFile(file, "ingest")!;
    const security = { sasl: { mechanism: "scram-sha-512" as const, ...ingest }, tls: { caFile: ingest.caFile } };
    await expect(describeKafka(brokers, undefined, { ...security, sasl: { ...security.sasl, password: "wrong" } })).rejects.toThrow();
    expect((await describeKafka(brokers, undefined, security)).brokers).toEqual(brokers);
    const envOf = (pid: number) =>
      Object.fromEntries(
        readFileSync(`/proc/${pid}/environ`, "utf8")
          .split("\0")
          .filter((kv) => kv.startsWith("LADDER_KAFKA_") && kv.includes("USERNAME"))
          .map((kv) => kv.split(/=(.*)/s).slice(0, 2)),
      );
    const logins = Object.fromEntries(
      launcher
        .state()!
        .processes.filter((p) => ["router", "ingest", "shard-0", "gateway"].includes(p.name))
        .map((p) => [p.name, envOf(p.pid!)]),
    );
    expect(logins).toEqual({
      "shard-0": { LADDER_KAFKA_SASL_USERNAME: "shard" },
      router: { LADDER_KAFKA_SASL_USERNAME: "router", LADDER_KAFKA_CONTROL_SASL_USERNAME: "router-control" },
      ingest: { LADDER_KAFKA_SASL_USERNAME: "ingest" },
      gateway: {},
    });
    // the passwords in files of the data dir (0600: the test below), never in a process's environment
    for (const p of launcher.state()!.processes.filter((p) => p.pid)) {
      const names = readFileSync(`/proc/${p.pid}/environ`, "utf8")
        .split("\0")
        .map((kv) => kv.split("=")[0]);
      expect(
        names.filter((n) => /^LADDER_KAFKA_.*SASL_PASSWORD$/.test(n!)),
        p.name,
      ).toEqual([]);
    }
    expect(readFileSync(join(launcher.dataDir, "secrets", "kafka-shard.password"), "utf8")).toBe(
      kafkaLoginFromFile(file, "shard")!.password,
    );
  });

  it("keeps its data dir its owner's alone: the dir and every dir in it 0700 (Kafka's log, Redis's), every file 0600", () => {
    const modes: string[] = [];
    const walk = (path: string) => {
      const st = lstatSync(path);
      if (st.isSymbolicLink()) return;
      modes.push(`${path.slice(launcher.dataDir.length) || "/"} ${(st.mode & 0o777).toString(8)}`);
      if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    };
    walk(launcher.dataDir);
    const names = modes.map((m) => m.split(" ")[0]);
    expect(names).toEqual(
      expect.arrayContaining(["/", "/kafka", "/redis-0", "/logs", "/logs/router.log", "/launcher-state.json", "/stream-secret"]),
    );
    const expected = modes.map((m) => {
      const [path] = m.split(" ");
      return `${path} ${statSync(join(launcher.dataDir, path!)).isDirectory() ? "700" : "600"}`;
    });
    expect(modes).toEqual(expected);
  });

  it("gives each process only the credentials it uses, though the launcher got LADDER_TOKENS in its environment", () => {
    const environOf = (name: string) =>
      Object.fromEntries(
        readFileSync(`/proc/${pids()[name]}/environ`, "utf8")
          .split("\0")
          .filter(Boolean)
          .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
      );
    const credentials = (name: string) => {
      const env = environOf(name);
      return {
        tokens: env.LADDER_TOKENS === undefined ? undefined : (JSON.parse(env.LADDER_TOKENS) as { name: string }[]).map((g) => g.name),
        gateway: env.LADDER_GATEWAY_TOKEN !== undefined,
        streamSecret: env.LADDER_STREAM_SECRET !== undefined,
      };
    };
    expect(credentials("router")).toEqual({
      tokens: ["test-game-server", "test-admin", "test-monitor"],
      gateway: false,
      streamSecret: true,
    });
    expect(credentials("ingest")).toEqual({ tokens: ["test-game-server"], gateway: false, streamSecret: false });
    expect(credentials("gateway")).toEqual({ tokens: undefined, gateway: true, streamSecret: false });
    expect(environOf("gateway").LADDER_GATEWAY_TOKEN).toBe(TEST_TOKENS.monitor);
    for (const shard of ["shard-0", "shard-1", "shard-2"])
      expect(credentials(shard)).toEqual({ tokens: undefined, gateway: false, streamSecret: false });
  });

  it("runs the launcher and each service as Node 24 on its build (the services' bundles, dist/main.bundle.js), with no loader and no child process", () => {
    const entries: Record<string, string> = {
      "shard-0": "shard-node",
      "shard-1": "shard-node",
      "shard-2": "shard-node",
      router: "router",
      ingest: "ingest",
      gateway: "gateway",
    };
    const running = [
      { name: "launcher", pid: launcher.child.pid! },
      ...launcher
        .state()!
        .processes.filter((p) => p.name in entries)
        .map((p) => ({ name: p.name, pid: p.pid! })),
    ];
    expect(running.map((p) => p.name)).toEqual(["launcher", ...Object.keys(entries)]);
    for (const { name, pid } of running) {
      const info = processInfo(pid);
      const entry = name === "launcher" ? "deploy/local/dist/main.js" : `${entries[name]}/dist/main.bundle.js`;
      expect(info.argv.slice(1), name).toEqual([join(REPO, entry)]);
      expect(info.nodeVersion, name).toMatch(/^v24\./);
      if (name !== "launcher") expect(info.children, `${name}'s children`).toEqual([]);
    }
  });

  it("restarts a shard node killed with SIGKILL; its shard refuses reads, then serves every write, those made while it was down too", async () => {
    const { at, others } = kill("shard-1");
    await write(
      PLAYERS.filter((_, i) => i % 3 === 0).map((playerId, i) => ({
        board: BOARD,
        playerId,
        op: Operation.INCREMENT,
        value: 1 + (i % 4),
        timestampMs: t0 + 600_000,
      })),
    );
    const refusal = await refused("shard-1");
    expect(refusal).toMatch(/^shard-1: (shard node is not running|not serving reads)/);
    const cli = await runCli(["status", "--router", launcher.state()!.router], { ...launcher.env, LADDER_TOKEN: TEST_TOKENS.admin });
    expect(cli.code, cli.out).toBe(0);
    expect(cli.out).toMatch(/^shard-1 +refusing: /m);
    expect(cli.out).toMatch(/^shard-0 +serving /m);
    expect(cli.out).toMatch(/^shard-1 +(restarting|up +\d+ +1 +.*killed by SIGKILL)/m); // the launcher's view: restarting, or just restarted
    const back = await serving("shard-1");
    console.log(
      `shard node kill -> restarted and serving: ${((back.at - at) / 1000).toFixed(1)} s; refusals seen: ${JSON.stringify([refusal, ...back.refusals])}`,
    );
    await restarted("shard-1", 1, others);
    await settled();
    await expectExact();
    const after = await runCli(["status", "--router", launcher.state()!.router], { ...launcher.env, LADDER_TOKEN: TEST_TOKENS.admin });
    expect(after.code, after.out).toBe(0);
    expect(after.out).toMatch(/^shard-1 +serving /m);
    expect(after.out).toMatch(/^shard-1 +up +\d+ +1 +.*killed by SIGKILL/m);
  });

  it("restarts a redis-server killed with SIGKILL empty; its shard node refills it, refusing reads until it holds everything", async () => {
    const { at, others } = kill("redis-2");
    const refusal = await refused("shard-2");
    expect(refusal).toMatch(/^shard-2: /);
    const back = await serving("shard-2");
    await restarted("redis-2", 1, others);
    // the node found its Redis emptied and refilled it (its warning, passed on by the launcher)
    expect(launcher.output()).toMatch(/"service":"shard-2".*Redis holds less than was applied \(data lost\)/);
    expect(logOf(launcher.dataDir, "shard-2")).toMatch(/Redis holds less than was applied \(data lost\)/);
    console.log(
      `redis-server kill -> restarted, refilled and serving: ${((back.at - at) / 1000).toFixed(1)} s; refusals seen: ${JSON.stringify([refusal, ...back.refusals])}`,
    );
    await write(
      PLAYERS.filter((_, i) => i % 5 === 1).map((playerId) => ({
        board: BOARD,
        playerId,
        op: Operation.BEST,
        value: 140,
        timestampMs: t0 + 1_200_000,
      })),
    );
    await settled();
    await expectExact();
  });

  it("restarts the router, then again after a doubled pause when it dies again soon; GetClusterStatus answers again", async () => {
    const first = kill("router");
    await until("the launcher saw the router die", 10_000, () => (launcher.process("router").state === "restarting" ? true : undefined));
    await expect(status()).rejects.toMatchObject({ code: 14 }); // UNAVAILABLE: nothing listens until its restart, a pause later
    await restarted("router", 1, first.others);
    const second = kill("router");
    await restarted("router", 2, second.others);
    const pauses = launcher
      .output()
      .split("\n")
      .filter((l) => l.includes(`"process":"router"`) && l.includes("process died"))
      .map((l) => JSON.parse(l).restartInMs);
    expect(pauses).toEqual([1000, 2000]);
    const s = await settled();
    expect(s.shards.every((x) => x.readiness === ShardReadiness.SERVING)).toBe(true);
    await expectExact();
  });

  it("restarts the gateway killed with SIGKILL on its address: it answers the router's top again, and the shards' status", async () => {
    const url = `http://${launcher.process("gateway").address}/api/`;
    const topOf = async () =>
      ((await getJson(`${url}boards/${BOARD}/top?limit=5`)) as { entries: { playerId: string; rank: string }[] }).entries;
    const want = (await clients.router.getTop({ board: BOARD, limit: 5 })).entries.map((e) => ({
      playerId: e.playerId,
      rank: String(e.rank),
    }));
    expect((await topOf()).map(({ playerId, rank }) => ({ playerId, rank }))).toEqual(want);
    const { others } = kill("gateway");
    await restarted("gateway", 1, others);
    expect((await topOf()).map(({ playerId, rank }) => ({ playerId, rank }))).toEqual(want);
    const shards = ((await getJson(`${url}status`)) as { shards: { shardId: string; readiness: string }[] }).shards;
    expect(shards.map((x) => `${x.shardId}:${x.readiness}`)).toEqual(
      ["shard-0", "shard-1", "shard-2"].map((id) => `${id}:SHARD_READINESS_SERVING`),
    ); // with the monitor token of LADDER_TOKENS
  });

  it("stops every process it started on SIGINT, restarting none, and removes its state file", async () => {
    remember();
    const last = launcher.state()!;
    const before = launcher.output().length;
    launcher.child.kill("SIGINT");
    expect(await launcher.exited).toBe(0);
    expect(launcher.state()).toBeUndefined();
    expect(alivePids(seenPids)).toEqual([]);
    const gateway = last.processes.find((p) => p.name === "gateway")!.address;
    const ports = [
      launcher.kafkaPort,
      ...launcher.redisPorts,
      Number(last.router.split(":")[1]),
      Number(last.ingest.split(":")[1]),
      Number(gateway.split(":")[1]),
    ];
    expect(await Promise.all(ports.map(portIsFree))).toEqual(ports.map(() => true));
    const shutdown = launcher.output().slice(before);
    expect(shutdown).toMatch(/"msg":"stopping the cluster"/);
    expect(shutdown).not.toMatch(/"msg":"(process died|process restarted)/); // the processes it stopped were not restarted
  });

  it("reset, once it stopped, removes Kafka's log, each Redis's files and the logs, says what it removed, and leaves anything else", async () => {
    const entries = readdirSync(launcher.dataDir);
    expect(entries).toEqual(expect.arrayContaining(["kafka", "redis-0", "logs"]));
    const reset = await runLauncherCommand("control", ["reset"], launcher.env);
    expect(reset.code, reset.out).toBe(0);
    expect(reset.out).toMatch(new RegExp(`^removed from ${launcher.dataDir}:\n`));
    for (const name of ["kafka", "redis-0", "redis-1", "redis-2", "logs"]) expect(reset.out).toMatch(new RegExp(`^  ${name} `, "m"));
    expect(readdirSync(launcher.dataDir)).toEqual([]);
    expect((await runLauncherCommand("control", ["reset"], launcher.env)).out).toBe(`nothing to remove in ${launcher.dataDir}\n`);
  });
});
