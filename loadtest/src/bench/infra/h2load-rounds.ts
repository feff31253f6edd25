/**
 * The cost meter (cost-meter.ts) wired to a running cluster, and rounds of h2load runs asking
 * routers questions, with their costs per call: the rest rates first, each run followed by the wait
 * until the cluster is back at rest, then the medians over the rounds, each question beside its
 * router's health check (the floor) of the same round.
 */
import { writeFile } from "node:fs/promises";
import type { Redis } from "ioredis";
import { join } from "node:path";
import type { BenchContext } from "../context.js";
import { ms, pct, rate, size, whole } from "../output/format.js";
import type { Column } from "../output/table.js";
import { costDelta, idleRates, perUnit, readCosts, type CostProbes } from "./cost-meter.js";
import { machineCpu, othersCpu, redisCommandStats, sumProbes, untilAtRest } from "./cpu-meter.js";
import { GetRankRequestSchema } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { h2load, HEALTH_CHECK, lb, median, type GrpcRequest, type H2loadShape } from "./h2load.js";
import type { IngestCluster } from "./ingest-cluster.js";

/** Busy cores (router + Redis) below which the cluster counts as at rest. */
const REST_CORES = 0.15;
/** Seconds of rest over which the processes' rest rates are read. */
const QUIET_S = 3;
/** The label of a router's health check, the floor of its other questions. */
export const FLOOR = "health check (the floor)";

/** The one question of the rank-index and replicas benches: GetRank of the round's player on `board`. */
export const getRankOf = (board: string) => (playerId: string) => [
  { label: "GetRank", ...lb("GetRank", GetRankRequestSchema, { board, playerId }) },
];

/** A reading of the scripts a Redis ran so far: EVALSHA and EVAL calls, and their read-only forms (every read). */
const scriptCalls = (redis: Redis) => async () =>
  redisCommandStats(await redis.info("commandstats"), ["evalsha", "eval", "evalsha_ro", "eval_ro"]).calls;
/** A reading of the scripts the nodes ran so far, summed. */
export const scriptsRun = (nodes: readonly Redis[]) => sumProbes(nodes.map(scriptCalls));

/** The cost meter's probes of a cluster: its router, its Redis (CPU and scripts), this process, the machine and the rest of it. */
export function costProbes(cluster: IngestCluster): CostProbes {
  return {
    routerS: cluster.cpu.router,
    redisS: cluster.cpu.redis,
    redisScripts: scriptsRun(cluster.redis),
    clientS: cluster.cpu.client,
    machineS: machineCpu,
    othersS: othersCpu,
  };
}

/** Waits until the router and Redis are back at rest (what a run left queued is done), at most 60 s; the seconds waited. */
function settle(probes: CostProbes): Promise<number> {
  return untilAtRest([probes.routerS, probes.redisS], REST_CORES, 250, 60_000);
}

/** One h2load run's figures: its rate and mean, the CPU per call less the rest rates, the machine's load, the seconds until at rest again. */
interface H2Run {
  rate: number;
  meanMs: number;
  routerUsPerCall: number;
  redisUsPerCall: number;
  machineCores: number;
  othersCores: number;
  settledS: number;
}

/** A router the rounds ask: its address, and the cluster's cost probes with this router's CPU as `routerS`. */
export type RouterUnderTest = { address: string; probes: CostProbes };

/** One question of a round: its label and its request (path and gRPC frame, infra/h2load.ts). */
export type Question = GrpcRequest & { label: string };

export interface RouterRounds<R extends string> {
  /** The cluster's probes: the rest rates are read, and the rounds start, once it is at rest. */
  probes: CostProbes;
  routers: Record<R, RouterUnderTest>;
  /** The questions about a player; each router is asked its health check (label FLOOR) before them. */
  questionsOf(playerId: string): Question[];
  /** Round i asks about players[i]. */
  players: readonly string[];
  /** Before each run's key (`<prefix><router>: <label>`), as the progress lines show it. */
  prefix?: string;
}

/**
 * `shape.rounds` rounds of h2load, in each every router asked every question one after another,
 * each run followed by the wait until the cluster is at rest (what the run left queued is done).
 * A run's CPU is the whole run's (1 s of warm-up + the measured seconds) over the calls made in it
 * at the measured rate. Rows, per router and question: the medians of its rounds, its runs beside
 * them, and `ofFloor`, the median of its rate ÷ its router's health check's in the same round.
 */
export async function routerRounds<R extends string>(ctx: BenchContext, shape: H2loadShape & { rounds: number }, o: RouterRounds<R>) {
  await settle(o.probes);
  const quiet = await readCosts(o.probes);
  await new Promise((r) => setTimeout(r, QUIET_S * 1000));
  const idle = idleRates(costDelta(quiet, await readCosts(o.probes)));
  const key = (router: string, label: string) => `${o.prefix ?? ""}${router}: ${label}`;
  const questionsOf = (playerId: string) => [{ label: FLOOR, ...HEALTH_CHECK }, ...o.questionsOf(playerId)];
  const runs = new Map<string, H2Run[]>();
  for (let round = 0; round < shape.rounds; round++)
    for (const [router, { address, probes }] of Object.entries<RouterUnderTest>(o.routers))
      for (const q of questionsOf(o.players[round]!)) {
        const k = key(router, q.label);
        const file = join(ctx.dataDir, `h2load-${`${round}-${k}`.replace(/\W+/g, "-")}.bin`);
        await writeFile(file, q.body);
        const a = await readCosts(probes);
        const h = await h2load(address, q.path, file, shape);
        const block = costDelta(a, await readCosts(probes));
        const settledS = await settle(probes);
        const cost = perUnit(block, h.rate * (shape.seconds + 1), idle);
        const r: H2Run = {
          rate: h.rate,
          meanMs: h.meanMs,
          routerUsPerCall: cost.routerMs * 1000,
          redisUsPerCall: cost.redisMs * 1000,
          machineCores: cost.machineCores,
          othersCores: cost.othersCores,
          settledS,
        };
        runs.set(k, [...(runs.get(k) ?? []), r]);
        ctx.say(
          `  round ${round + 1}/${shape.rounds}: ${k} ${Math.round(r.rate)}/s, router ${r.routerUsPerCall.toFixed(0)} µs/call, others ${r.othersCores} cores${r.settledS > 0.5 ? `, ${r.settledS} s to settle` : ""}`,
        );
      }
  const runsOf = (router: R, label: string) => runs.get(key(router, label))!;
  const labels = questionsOf("").map((q) => q.label);
  const rows = (Object.keys(o.routers) as R[]).flatMap((router) =>
    labels.map((label) => {
      const own = runsOf(router, label);
      const m = (f: (r: H2Run) => number) => median(own.map(f));
      return {
        router,
        label,
        rate: m((r) => r.rate),
        meanMs: m((r) => r.meanMs),
        routerUsPerCall: m((r) => r.routerUsPerCall),
        redisUsPerCall: m((r) => r.redisUsPerCall),
        rounds: [...own],
        ofFloor: medianRatio(own, runsOf(router, FLOOR)),
      };
    }),
  );
  return { idle, rows, runsOf };
}

/** A row of routerRounds, with what a bench adds to it. */
type RoundRow = { label: string; rate: number; ofFloor: number; routerUsPerCall: number; redisUsPerCall: number; meanMs: number };

/** The columns of a question's figures over the rounds, after a bench's own columns; `redis` heads its Redis CPU column. */
export function roundColumns<T extends RoundRow>(redis: string): Array<Column<T>> {
  return [
    ["question", (r) => r.label],
    ["calls/s", (r) => rate(r.rate)],
    ["÷ health check", (r) => pct(r.ofFloor)],
    ["router CPU µs/call", (r) => whole(r.routerUsPerCall)],
    [redis, (r) => whole(r.redisUsPerCall)],
    ["h2load mean ms", (r) => ms(r.meanMs)],
  ];
}

/** The median over the rounds of a key's rate ÷ another key's in the same round (`of`: the health check, the 1-process router). */
export function medianRatio(runs: readonly H2Run[], of: readonly H2Run[]): number {
  return median(runs.map((r, i) => r.rate / of[i]!.rate));
}

/** "h2load 4 connections x 16 streams, 1M players" and the rounds the medians are of, after `what`, `extra` between them. */
export function roundsTitle(what: string, p: H2loadShape & { rounds: number; players: number }, extra = ""): string {
  const rounds = `median of ${p.rounds} round${p.rounds > 1 ? "s" : ""}`;
  return `${what}, h2load ${p.connections} connections x ${p.streams} streams, ${size(p.players)} players${extra} (${rounds})`;
}
