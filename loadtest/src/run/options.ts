/**
 * The loadtest's command line. Cluster addresses default to the services' own
 * configuration (LADDER_ROUTER_LISTEN, LADDER_INGEST_LISTEN through loadConfig); everything
 * else is a flag with a default. Every problem is reported together.
 */
import type { Config } from "@ladder/platform/config";
import { boardProblem } from "@ladder/model/validate";
import { parseLoopbackAddress, readFlags } from "../cli-values.js";
import { clientToken } from "../client-token.js";
import { DEFAULT_MIX, parseMix } from "../workload/op-mix.js";
import { MAX_PLAYERS } from "../workload/player-ids.js";

export type WriteOp = "set" | "inc" | "best";

/** How requests are paced: a fixed timetable (open loop) or a fixed number in flight. */
export type Pacing = { kind: "open"; ratePerSec: number; maxInFlight: number } | { kind: "closed"; concurrency: number };

export interface LagOptions {
  /** Start a freshness probe at most this often, ms (0 = no probes). */
  everyMs: number;
  /** Poll GetRank this often while a probe waits, ms. */
  pollMs: number;
  /** Give a probe up after this long, ms. */
  timeoutMs: number;
  /** Probes waiting at once, at most. */
  maxProbes: number;
}

export const USAGE = `usage: npm run loadtest -- [options]
  --router host:port      router (default LADDER_ROUTER_LISTEN, 127.0.0.1:50051)
  --ingest host:port      ingest (default LADDER_INGEST_LISTEN, 127.0.0.1:50052)
  --board name            board to load (default loadtest)
  --players N             id space p:000000000000.. (default 1M, up to 1e9 and more)
  --mix spec              operation weights (default ${DEFAULT_MIX})
  --batch N               updates per SubmitScores (default 100)
  --write-op set|inc|best how writes combine (default set)
  --rate R                open loop: R requests/s on a fixed timetable (default 200)
  --max-in-flight N       open loop: requests outstanding at most (default 1000)
  --concurrency C         closed loop instead: C requests always in flight
  --duration D            30s, 2m, ... measured (default 30s)
  --warmup D              load sent first and left out of the totals (default 0s)
  --zipf s                activity skew, Zipf exponent (default 1.0; 0 = uniform)
  --seed N                random seed (default 1)
  --token T               send "authorization: Bearer T" on every call (default LADDER_TOKEN, else
                          the first write grant of the credentials file)
  --credentials FILE      credentials file (default LADDER_CREDENTIALS_FILE, else .ladder/credentials.json,
                          which npm start writes)
  --timeout D             per-call deadline (default 5s)
  --top-limit N           GetTop page size (default 10)
  --around-radius N       GetAround radius (default 5)
  --connections N         gRPC connections per service (default 2)
  --lag-every D           start a freshness probe this often (default 100ms; 0 = off)
  --lag-poll D            a probe polls GetRank this often (default 10ms)
  --lag-timeout D         a probe gives up after (default 10s)
  --lag-max-probes N      probes at once (default 20)
  --audit-every K         loss audit (needs --write-op inc and a fresh board): sum the acknowledged increments
                          of every player whose index is a multiple of K, and check each one's score at the end
  --out dir               where results go (default loadtest/results)
  --name label            file name prefix of the results (default loadtest-<time>)`;

export type LoadtestOptions = ReturnType<typeof parseLoadtestOptions>;

/** Parses argv (without node and script); throws an Error listing every problem. */
export function parseLoadtestOptions(argv: readonly string[], config: Config, now = new Date()) {
  const { flag, problems, get, count, number, duration, done } = readFlags(argv, USAGE);
  const board = flag.board ?? "loadtest";
  const boardIssue = boardProblem(board);
  if (boardIssue) problems.push(`--board: ${boardIssue}`);
  const writeOp = flag["write-op"] ?? "set";
  if (!["set", "inc", "best"].includes(writeOp)) problems.push(`--write-op: "${writeOp}" is not set, inc or best`);
  if (flag.rate !== undefined && flag.concurrency !== undefined)
    problems.push("--rate (open loop) and --concurrency (closed loop) exclude each other");
  const pacing: Pacing =
    flag.concurrency !== undefined
      ? { kind: "closed", concurrency: count("concurrency", "", 1, 100_000) }
      : { kind: "open", ratePerSec: number("rate", "200", 0.001, 10_000_000), maxInFlight: count("max-in-flight", "1000", 1, 1_000_000) };
  const found = get("credentials", "", () => clientToken({ token: flag.token, credentials: flag.credentials }, config));
  const lagEvery = /^0(ms|s)?$/.test(flag["lag-every"] ?? "") ? 0 : duration("lag-every", "100ms");
  const options = {
    router: get("router", config.routerListen, (t) => parseLoopbackAddress("router", t)),
    ingest: get("ingest", config.ingestListen, (t) => parseLoopbackAddress("ingest", t)),
    board,
    players: count("players", "1000000", 1, MAX_PLAYERS),
    mix: get("mix", DEFAULT_MIX, parseMix),
    mixText: flag.mix ?? DEFAULT_MIX,
    batch: count("batch", "100", 1, config.maxBatch),
    writeOp: writeOp as WriteOp,
    pacing,
    durationMs: duration("duration", "30s"),
    /** Sent before the measured duration, shown in the time series but not in the totals. */
    warmupMs: /^0(ms|s)?$/.test(flag.warmup ?? "0") ? 0 : duration("warmup", "0"),
    zipf: number("zipf", "1.0", 0, 100),
    seed: count("seed", "1", 0, Number.MAX_SAFE_INTEGER),
    outDir: flag.out ?? "loadtest/results",
    name: flag.name ?? `loadtest-${now.toISOString().replace(/[:.]/g, "-")}`,
    token: found?.token,
    /** Where the token came from (client-token.ts): recorded instead of the token. */
    tokenSource: found?.source ?? "none",
    timeoutMs: duration("timeout", "5s"),
    topLimit: count("top-limit", "10", 1, 1000),
    aroundRadius: count("around-radius", "5", 0, 100),
    connections: count("connections", "2", 1, 64),
    /** Loss audit of every player whose index is a multiple of this (0: none; write-audit.ts). */
    auditEvery: count("audit-every", "0", 0, MAX_PLAYERS),
    lag: {
      everyMs: lagEvery,
      pollMs: duration("lag-poll", "10ms"),
      timeoutMs: duration("lag-timeout", "10s"),
      maxProbes: count("lag-max-probes", "20", 1, 10_000),
    },
  };
  if (options.auditEvery > 0 && options.writeOp !== "inc")
    problems.push("--audit-every: needs --write-op inc (increments add up in any order)");
  if (options.token !== undefined && !/^[\x21-\x7e]+$/.test(options.token))
    problems.push("--token: must be printable ASCII without spaces");
  done();
  return options;
}
