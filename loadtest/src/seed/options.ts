/**
 * The seeder's command line. Cluster settings (Kafka brokers, topic, slots, key prefix, board
 * specs) come from the services' configuration (loadConfig), the shards from the cluster's
 * placement (LADDER_SHARDS before it has one); the rest are flags. Every problem is reported together.
 */
import type { Config } from "@ladder/platform/config";
import { boardProblem } from "@ladder/model/validate";
import { readFlags } from "../cli-values.js";
import { clientToken } from "../client-token.js";
import { MAX_PLAYERS } from "../workload/player-ids.js";
import { DEFAULT_SCORE_SHAPE, todayUtcMs } from "../workload/score-distribution.js";

export type SeedPath = "kafka" | "redis";

export const USAGE = `usage: npm run seed -- --players N [options]
  --players N          how many players (p:000000000000 ...), e.g. 10M
  --first N            index of the first player (default 0)
  --board name         board (default loadtest)
  --via kafka|redis    kafka: ScoreEvent records into the score topic; the shard nodes apply them (default)
                       redis: ZADD straight into the shards' sorted sets, skipping the log
  --seed N             random seed: the same seed gives the same scores (default 1)
  --batch N            kafka: records per produce request (default 20000); redis: members per ZADD (default 1000)
  --parallel N         kafka: produce requests in flight (default 2); redis: ZADDs in flight per shard (default 8)
  --no-wait            kafka: do not wait for the shard nodes to apply the records
  --max-behind N       kafka: records sent and not yet applied at most, so that no shard passes
                       LADDER_MAX_LAG and reads are served during the load (default half of
                       LADDER_MAX_LAG per shard of the cluster: 150000 on 3 shards; 0: as fast as
                       the log takes them)
  --score-median N     median points (default ${DEFAULT_SCORE_SHAPE.medianPoints})
  --score-sigma X      spread of ln(points) (default ${DEFAULT_SCORE_SHAPE.sigma})
  --window D           reached-at times spread over this window (default 30d)
  --until ISO-date     the window ends here (default: today 00:00 UTC)
  --token T            token of the closing GetCount through the router (default LADDER_TOKEN, else the
                       first write grant of the credentials file)
  --credentials FILE   credentials file (default LADDER_CREDENTIALS_FILE, else .ladder/credentials.json)
  --out dir            where the JSON summary goes (default loadtest/results)
  --name label         its file name (default seed-<via>-<time>)`;

export type SeedOptions = ReturnType<typeof parseSeedOptions>;

/** `shardCount`: the cluster's shards (its placement's), which the default of --max-behind is per. */
export function parseSeedOptions(argv: readonly string[], config: Config, now = new Date(), shardCount = config.shards.length) {
  const { flag, on, problems, get, count, number, duration, done } = readFlags(argv, USAGE, ["no-wait"]);
  if (flag.players === undefined) problems.push("--players is required");
  const via = (flag.via ?? "kafka") as SeedPath;
  if (via !== "kafka" && via !== "redis") problems.push(`--via: "${flag.via}" is not kafka or redis`);
  const board = flag.board ?? "loadtest";
  const issue = boardProblem(board);
  if (issue) problems.push(`--board: ${issue}`);
  const untilMs = flag.until === undefined ? todayUtcMs(now) : Date.parse(flag.until);
  if (!Number.isFinite(untilMs)) problems.push(`--until: "${flag.until}" is not a date`);
  const options = {
    players: flag.players === undefined ? 0 : count("players", "", 1, MAX_PLAYERS),
    first: count("first", "0", 0, MAX_PLAYERS - 1),
    board,
    via,
    seed: count("seed", "1", 0, Number.MAX_SAFE_INTEGER),
    /** Kafka: records sent and not yet applied at most (0: unpaced); see kafka-seeder.ts. */
    maxBehind: count("max-behind", String(Math.floor((config.maxLag * shardCount) / 2)), 0, 1e12),
    /** Kafka: records per produce request; Redis: members per ZADD. */
    batch: 0,
    /** Kafka: produce requests in flight; Redis: ZADDs in flight per shard. */
    parallel: count("parallel", via === "redis" ? "8" : "2", 1, 1024),
    /** Kafka: wait until the shard nodes have applied everything. */
    wait: !on("no-wait"),
    shape: {
      medianPoints: number("score-median", String(DEFAULT_SCORE_SHAPE.medianPoints), 1, 2 ** 53),
      sigma: number("score-sigma", String(DEFAULT_SCORE_SHAPE.sigma), 0, 20),
      windowMs: duration("window", "30d"),
    },
    /** Reached-at times end here (Unix ms); fixed so a seed is reproducible. */
    untilMs,
    outDir: flag.out ?? "loadtest/results",
    /** File name of the JSON summary, without .json. */
    name: flag.name ?? `seed-${via}-${now.toISOString().replace(/[:.]/g, "-")}`,
    /** The token of the closing GetCount through the router (seed-verdict.ts); never saved. */
    token: get("credentials", "", () => clientToken({ token: flag.token, credentials: flag.credentials }, config)),
  };
  // a paced request never waits on itself: at most half the backlog allowed
  const fitting = via === "kafka" && options.maxBehind > 0 ? Math.max(1, Math.floor(options.maxBehind / 2)) : Number.POSITIVE_INFINITY;
  options.batch = count("batch", String(Math.min(via === "redis" ? 1000 : 20_000, fitting)), 1, 1_000_000);
  if (options.batch > fitting)
    problems.push(
      `--batch: ${options.batch} is more than half of --max-behind (${options.maxBehind}): give --batch ${fitting} or less, or --max-behind 0`,
    );
  if (options.players && options.first !== undefined && options.first + options.players > MAX_PLAYERS)
    problems.push(`--first + --players must stay within ${MAX_PLAYERS} ids`);
  const spec = config.boards.forBoard(board);
  if (Number.isFinite(untilMs) && (untilMs <= spec.epochMs || untilMs > spec.horizonMs))
    problems.push(`--until: ${new Date(untilMs).toISOString()} is outside board "${board}"'s time range`);
  done();
  return options;
}
