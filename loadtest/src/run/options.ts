/**
 * The loadtest's command line. Cluster addresses default to the services' own
 * configuration (LADDER_ROUTER_LISTEN, LADDER_INGEST_LISTEN through loadConfig); everything
 * else is a flag with a default. Every problem is reported together.
 */
import { parseArgs } from "node:util";
import type { Config } from "@ladder/platform/config";
import { boardProblem } from "@ladder/model/validate";
import { parseCount, parseDuration, parseLoopbackAddress, parseNumber } from "../cli-values.js";
import { clientToken, type ClientToken } from "../client-token.js";
import { DEFAULT_MIX, parseMix, type OpMix } from "../workload/op-mix.js";
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

export interface LoadtestOptions {
  router: string;
  ingest: string;
  board: string;
  players: number;
  mix: OpMix;
  mixText: string;
  batch: number;
  writeOp: WriteOp;
  pacing: Pacing;
  durationMs: number;
  /** Sent before the measured duration, shown in the time series but not in the totals. */
  warmupMs: number;
  zipf: number;
  seed: number;
  outDir: string;
  name: string;
  token: string | undefined;
  /** Where the token came from (client-token.ts): recorded instead of the token. */
  tokenSource: ClientToken["source"];
  timeoutMs: number;
  topLimit: number;
  aroundRadius: number;
  connections: number;
  lag: LagOptions;
  /** Loss audit of every player whose index is a multiple of this (0: none; write-audit.ts). */
  auditEvery: number;
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

const FLAGS = [
  "router",
  "ingest",
  "board",
  "players",
  "mix",
  "batch",
  "write-op",
  "rate",
  "max-in-flight",
  "concurrency",
  "duration",
  "warmup",
  "zipf",
  "seed",
  "token",
  "credentials",
  "timeout",
  "top-limit",
  "around-radius",
  "connections",
  "lag-every",
  "lag-poll",
  "lag-timeout",
  "lag-max-probes",
  "out",
  "name",
  "audit-every",
] as const;
type Flag = (typeof FLAGS)[number];

/** Parses argv (without node and script); throws an Error listing every problem. */
export function parseLoadtestOptions(argv: readonly string[], config: Config, now = new Date()): LoadtestOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: Object.fromEntries(FLAGS.map((f) => [f, { type: "string" as const }])),
  });
  const problems: string[] = [];
  const flag = values as Partial<Record<Flag, string>>;
  const get = <T>(name: Flag, fallback: string, parse: (text: string) => T): T => {
    try {
      return parse(flag[name] ?? fallback);
    } catch (err) {
      problems.push((err as Error).message);
      return undefined as T;
    }
  };
  const board = flag.board ?? "loadtest";
  const boardIssue = boardProblem(board);
  if (boardIssue) problems.push(`--board: ${boardIssue}`);
  const writeOp = flag["write-op"] ?? "set";
  if (!["set", "inc", "best"].includes(writeOp)) problems.push(`--write-op: "${writeOp}" is not set, inc or best`);
  if (flag.rate !== undefined && flag.concurrency !== undefined)
    problems.push("--rate (open loop) and --concurrency (closed loop) exclude each other");
  const pacing: Pacing =
    flag.concurrency !== undefined
      ? { kind: "closed", concurrency: get("concurrency", "", (t) => parseCount("concurrency", t, 1, 100_000)) }
      : {
          kind: "open",
          ratePerSec: get("rate", "200", (t) => parseNumber("rate", t, 0.001, 10_000_000)),
          maxInFlight: get("max-in-flight", "1000", (t) => parseCount("max-in-flight", t, 1, 1_000_000)),
        };
  const found = get("credentials", "", () => clientToken({ token: flag.token, credentials: flag.credentials }, config));
  const lagEvery = /^0(ms|s)?$/.test(flag["lag-every"] ?? "") ? 0 : get("lag-every", "100ms", (t) => parseDuration("lag-every", t));
  const options: LoadtestOptions = {
    router: get("router", config.routerListen, (t) => parseLoopbackAddress("router", t)),
    ingest: get("ingest", config.ingestListen, (t) => parseLoopbackAddress("ingest", t)),
    board,
    players: get("players", "1000000", (t) => parseCount("players", t, 1, MAX_PLAYERS)),
    mix: get("mix", DEFAULT_MIX, parseMix),
    mixText: flag.mix ?? DEFAULT_MIX,
    batch: get("batch", "100", (t) => parseCount("batch", t, 1, config.maxBatch)),
    writeOp: writeOp as WriteOp,
    pacing,
    durationMs: get("duration", "30s", (t) => parseDuration("duration", t)),
    warmupMs: /^0(ms|s)?$/.test(flag.warmup ?? "0") ? 0 : get("warmup", "0", (t) => parseDuration("warmup", t)),
    zipf: get("zipf", "1.0", (t) => parseNumber("zipf", t, 0, 100)),
    seed: get("seed", "1", (t) => parseCount("seed", t, 0, Number.MAX_SAFE_INTEGER)),
    outDir: flag.out ?? "loadtest/results",
    name: flag.name ?? `loadtest-${now.toISOString().replace(/[:.]/g, "-")}`,
    token: found?.token,
    tokenSource: found?.source ?? "none",
    timeoutMs: get("timeout", "5s", (t) => parseDuration("timeout", t)),
    topLimit: get("top-limit", "10", (t) => parseCount("top-limit", t, 1, 1000)),
    aroundRadius: get("around-radius", "5", (t) => parseCount("around-radius", t, 0, 100)),
    connections: get("connections", "2", (t) => parseCount("connections", t, 1, 64)),
    auditEvery: get("audit-every", "0", (t) => parseCount("audit-every", t, 0, MAX_PLAYERS)),
    lag: {
      everyMs: lagEvery,
      pollMs: get("lag-poll", "10ms", (t) => parseDuration("lag-poll", t)),
      timeoutMs: get("lag-timeout", "10s", (t) => parseDuration("lag-timeout", t)),
      maxProbes: get("lag-max-probes", "20", (t) => parseCount("lag-max-probes", t, 1, 10_000)),
    },
  };
  if (options.auditEvery > 0 && options.writeOp !== "inc")
    problems.push("--audit-every: needs --write-op inc (increments add up in any order)");
  if (options.token !== undefined && !/^[\x21-\x7e]+$/.test(options.token))
    problems.push("--token: must be printable ASCII without spaces");
  if (problems.length) throw new Error(`invalid options:\n  - ${problems.join("\n  - ")}\n${USAGE}`);
  return options;
}
