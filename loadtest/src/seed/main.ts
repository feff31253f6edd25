/**
 * `npm run seed -- --players N [--via kafka|redis] ...` (options: seed/options.ts, or --help).
 * Loads a board with N synthetic players fast, shows progress, prints and saves the
 * figures (<out>/<name>.json), then asks the router to count the board (seed-verdict.ts):
 * exits 1 when the players are not all there. Wiring only.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadConfig } from "@ladder/platform/config";
import { LogClient } from "@ladder/log/log-client";
import { seedKafkaSecurity } from "../kafka-login.js";
import { redisPasswordFromFile } from "@ladder/platform/credentials-file";
import { NO_LOGIN, type RedisLogin } from "@ladder/platform/redis-login";
import { openRedis } from "@ladder/store";
import { parseSentinelUrl } from "@ladder/platform/redis-address";
import { rootLogger, standardError } from "@ladder/platform/logger";
import { buildPlacement } from "@ladder/model/placement";
import type { ClusterPlacement } from "@ladder/model/placement-record";
import { readPlacement } from "@ladder/log/placement-follower";
import { exitOnHelp, isLoopbackHost, parseOrExit } from "../cli-values.js";
import { parseSeedOptions, USAGE } from "./options.js";
import { configuredBoard, resolveSeedBoard } from "./seed-board.js";
import { memoryOf, runKafkaSeed, runRedisSeed, type SeedContext, type SeedResult } from "./seed-run.js";
import { bytesPerMember } from "./shard-memory.js";
import { seedSummary } from "./seed-summary.js";
import { routerCount, seedProblems } from "./seed-verdict.js";

exitOnHelp(USAGE);
const config = loadConfig(process.env);
/** The local cluster's Redis user for rebuilds and reshards (deploy/local/src/redis-credentials.ts). */
const LOCAL_REDIS_ADMIN = "ladder-router-admin";
const log = rootLogger({ level: config.logLevel, name: "seed", destination: standardError() }); // stdout is the report
// bad options are refused before anything connects; their defaults are settled once the cluster's shards are known
const early = parseOrExit((argv) => parseSeedOptions(argv, config));
refuseRemote(
  config.shards.map((s) => s.redisUrl),
  config.kafkaBrokers,
);
const kafka = await LogClient.open(config.kafkaBrokers, "ladder-seed", log.child({ component: "kafka" }), seedKafkaSecurity(config));
// The shards the cluster's placement names (its placement topic, which the router reads): a cluster
// of more or other shards than LADDER_SHARDS names (LADDER_LOCAL_SHARDS=4 npm start) is loaded and
// followed whole. LADDER_SHARDS while the topic holds no placement (no process of the cluster started).
let cluster: ClusterPlacement | undefined;
try {
  cluster = await readPlacement(config, kafka, log.child({ component: "placement" }));
} catch (err) {
  console.error(`the cluster's placement: ${(err as Error).message}`);
  await kafka.close();
  process.exit(2);
}
const addresses = cluster?.shards ?? config.shards;
refuseRemote(
  addresses.map((s) => s.redisUrl),
  [],
);
const placement =
  cluster?.placement ??
  buildPlacement(
    config.shards.map((s) => s.id),
    config.numSlots,
  );
const options =
  addresses.length === config.shards.length ? early : parseOrExit((argv) => parseSeedOptions(argv, config, undefined, addresses.length));

const say = (line: string) => console.log(line);
// it writes the boards (--via redis) and reads their offsets: the admin login, else the local cluster's admin user
const login = config.redisAdminLogin.username !== undefined ? config.redisAdminLogin : localAdminLogin();
const shards = addresses.map((s) => ({
  id: s.id,
  redis: openRedis(s.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 3 }, login), // a sentinel:// shard: its primary
}));
await Promise.all(shards.map((s) => s.redis.connect()));
const disconnect = async () => {
  await kafka.close();
  await Promise.all(shards.map((s) => s.redis.quit()));
};
let target;
try {
  // a defined board is seeded by its definition (read from the cluster's definitions topic); the Redis path knows only configured specs
  target = options.via === "kafka" ? await resolveSeedBoard(config, kafka, log, options.board) : configuredBoard(config, options.board);
} catch (err) {
  console.error((err as Error).message);
  await disconnect();
  process.exit(2);
}
say(
  `shards: ${shards.map((s) => s.id).join(", ")} (${cluster ? `the cluster's placement, epoch ${cluster.epoch}` : "LADDER_SHARDS: the cluster's placement topic holds none yet"})`,
);
const ctx: SeedContext = { options, config, placement, shards, target, say };

say(
  options.via === "kafka"
    ? `seeding${target.rules ? " the defined board" : ""} ${options.players.toLocaleString("en-US")} players on "${options.board}" via Kafka: ScoreEvent records straight into ${config.scoreTopic} (${config.numSlots} partitions).\n` +
        "This bypasses ingest's gRPC (records are validated here with ingest's rules) but keeps the log as the truth: the shard nodes apply the records, and a shard rebuilt from the log has these players."
    : `seeding ${options.players.toLocaleString("en-US")} players on "${options.board}" via Redis: ZADD straight into ${shards.length} shards' sorted sets.\n` +
        "WARNING: this skips Kafka. Use it for read benchmarks only: these players are not in the log, so a shard rebuilt or replayed from the log loses them, and the board can't be rebuilt.",
);
say(
  `scores: log-normal, median ${options.shape.medianPoints}, sigma ${options.shape.sigma}; reached between ${new Date(options.untilMs - options.shape.windowMs).toISOString()} and ${new Date(options.untilMs).toISOString()}; seed ${options.seed}`,
);

const startedAt = new Date();
let peakRss = process.memoryUsage().rss;
const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 500);
try {
  const memoryBefore = await memoryOf(ctx);
  const run = options.via === "kafka" ? await runKafkaSeed(ctx, kafka) : await runRedisSeed(ctx);
  const memoryAfter = await memoryOf(ctx);
  const result: SeedResult = {
    tool: "ladder-seed",
    startedAt: startedAt.toISOString(),
    options: { ...options, token: { token: undefined, source: options.token.source } },
    ...run,
    memoryBefore,
    memoryAfter,
    redisBytesPerMember: bytesPerMember(memoryBefore, memoryAfter),
    seederPeakRssMb: Math.round(Math.max(peakRss, process.memoryUsage().rss) / 2 ** 20),
  };
  say(seedSummary(result));
  const outDir = resolve(options.outDir);
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `${options.name}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2) + "\n");
  say(`saved ${file}`);
  const waited = options.via === "redis" || options.wait;
  const count = waited ? await routerCount(config.routerListen, options.token.token, options.board) : undefined;
  if (count && "total" in count)
    say(`router ${config.routerListen}: board "${options.board}" holds ${count.total.toLocaleString("en-US")} players`);
  const problems = seedProblems({
    players: options.players,
    board: options.board,
    router: config.routerListen,
    waited,
    complete: run.complete,
    count,
    shards: shards.map((sh) => sh.id),
    placementEpoch: cluster?.epoch,
  });
  say(problems.length ? ["seed FAILED:", ...problems.map((p) => `  - ${p}`)].join("\n") : "seed: ok");
  if (problems.length) process.exitCode = 1;
} finally {
  clearInterval(rssTimer);
  await disconnect();
}

/** Exits when a shard's Redis or a broker is not on this machine: the seeder loads only a local cluster. */
function refuseRemote(redisUrls: readonly string[], brokers: readonly string[]): void {
  const remote = [
    ...redisUrls.flatMap((url) => parseSentinelUrl(url)?.sentinels.map((x) => x.host) ?? [new URL(url).hostname]),
    ...brokers.map((b) => b.replace(/:\d+$/, "")),
  ].filter((h) => !isLoopbackHost(h));
  if (!remote.length) return;
  console.error(`the seeder only loads a cluster on this machine; not loopback: ${remote.join(", ")}`);
  process.exit(2);
}

/** The local cluster's admin user (its password in the credentials file's "redis" section), or no login. */
function localAdminLogin(): RedisLogin {
  const password = redisPasswordFromFile(config.clientCredentialsFile, LOCAL_REDIS_ADMIN);
  return password === undefined ? config.redisLogin : { ...NO_LOGIN, username: LOCAL_REDIS_ADMIN, password };
}
