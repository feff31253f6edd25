/**
 * The approx benchmark's tables: what an approximate rank gives up (bound widths and the
 * estimate's error over the sample, how often the bounds held the exact rank), and what it saves (the
 * Node client's latency and per-call CPU, h2load's rates against the health check and against
 * GetRank on the same board in the same round). Rows go board by board, GetRank first.
 */
import type { Accuracy, Pcts, RankSample } from "./accuracy.js";
import type { H2Run } from "../batch/cluster-costs.js";
import type { UnitCost } from "../batch/cost-meter.js";
import type { LatencySummary } from "../../model/loadtest-result.js";
import type { ApproxPlan } from "../plan.js";
import { count, ms, pct, rate, ratio, size, whole } from "../output/format.js";
import { tableOf, type Table } from "../output/table.js";

export type CallKind = "rank" | "approx-score" | "approx-player";

export const CALL_LABELS: Readonly<Record<CallKind, string>> = {
  rank: "GetRank (exact)",
  "approx-score": "GetApproximateRank(score)",
  "approx-player": "GetApproximateRank(player_id)",
};

/** A board's accuracy: over the sample, and at the fixed depths. */
export interface AccuracyRow {
  board: string;
  bounds: number;
  accuracy: Accuracy;
  depth: RankSample[];
}

/** A block of calls of one kind on one board, one at a time (Node client). */
export interface ApproxNodeRow {
  board: string;
  bounds: number;
  call: CallKind;
  calls: number;
  latencyMs: Pick<LatencySummary, "mean" | "p50" | "p99" | "max">;
  cost: UnitCost;
}

/** One h2load request over the rounds (medians), and each round's figures. */
export interface ApproxH2Row {
  /** Absent for the health check. */
  board?: string;
  bounds?: number;
  call: CallKind | "floor";
  rate: number;
  ofFloor: number;
  /** rate ÷ GetRank's on the same board in the same round (median over the rounds). */
  ofRank: number;
  meanMs: number;
  routerUsPerCall: number;
  redisUsPerCall: number;
  rounds: H2Run[];
}

export interface ApproxTablesInput {
  accuracy: AccuracyRow[];
  node: ApproxNodeRow[];
  h2: ApproxH2Row[];
}

/** A relative error as a percentage, 2 significant digits ("0.41%", "12%"). */
export const relPct = (x: number) => (Number.isFinite(x) ? `${Number((x * 100).toPrecision(2))}%` : "—");
const boardLabel = (r: { bounds: number }) => `${r.bounds} bounds`;
const held = (xs: readonly RankSample[]) => xs.filter((x) => x.byPlayer.atLeast <= x.exact && x.exact <= x.byPlayer.atMost).length;

export function accuracyTable(rows: readonly AccuracyRow[], p: Pick<ApproxPlan, "players">): Table {
  const line = (r: AccuracyRow, what: string, x: Pcts, f: (v: number) => string) => [
    boardLabel(r),
    what,
    f(x.p50),
    f(x.p90),
    f(x.p99),
    f(x.max),
  ];
  return {
    title: `What an approximate rank gives up: GetApproximateRank(player_id) of ${count(rows[0]?.accuracy.n ?? 0)} players drawn uniformly from the ${size(p.players)}, against GetRank`,
    columns: ["histogram", "figure", "p50", "p90", "p99", "max"],
    rows: rows.flatMap((r) => [
      line(r, "bound width (ranks the exact one may be)", r.accuracy.width, count),
      line(r, "|estimate − exact| (ranks)", r.accuracy.absError, count),
      line(r, "|estimate − exact| ÷ exact", r.accuracy.relError, relPct),
      [
        boardLabel(r),
        "exact rank within the bounds",
        `${r.accuracy.held} of ${r.accuracy.n} sampled`,
        `${held(r.depth)} of ${r.depth.length} at depth`,
        "",
        "",
      ],
    ]),
  };
}

export function nodeTable(rows: readonly ApproxNodeRow[], p: Pick<ApproxPlan, "nodeCalls">): Table {
  const rankOf = (r: ApproxNodeRow) => rows.find((x) => x.board === r.board && x.call === "rank");
  return tableOf(`One call at a time (Node client, n = ${count(p.nodeCalls)} calls each): latency and per-call cost`, rows, [
    ["histogram", boardLabel],
    ["call", (r) => CALL_LABELS[r.call]],
    ["p50 ms", (r) => ms(r.latencyMs.p50)],
    ["p99 ms", (r) => ms(r.latencyMs.p99)],
    ["p50 ÷ GetRank", (r) => ratio(r.latencyMs.p50, rankOf(r)?.latencyMs.p50)],
    ["router CPU µs/call", (r) => whole(r.cost.routerMs * 1000)],
    ["Redis CPU µs/call", (r) => whole(r.cost.redisMs * 1000)],
    ["Redis scripts/call", (r) => r.cost.redisScripts.toFixed(1)],
    ["client CPU µs/call", (r) => whole(r.cost.clientMs * 1000)],
    ["cores: machine / others", (r) => `${r.cost.machineCores.toFixed(2)} / ${r.cost.othersCores.toFixed(2)}`],
  ]);
}

export function h2Table(rows: readonly ApproxH2Row[], p: Pick<ApproxPlan, "connections" | "streams" | "rounds">): Table {
  const floor = (r: ApproxH2Row) => r.call === "floor";
  return tableOf(
    `Rates with h2load (${p.connections} connections x ${p.streams} streams, median of ${p.rounds} round${p.rounds > 1 ? "s" : ""})`,
    rows,
    [
      ["histogram", (r) => (r.bounds === undefined ? "—" : boardLabel({ bounds: r.bounds }))],
      ["call", (r) => (r.call === "floor" ? "health check (the floor)" : CALL_LABELS[r.call])],
      ["calls/s", (r) => rate(r.rate)],
      ["÷ health check", (r) => pct(r.ofFloor)],
      ["÷ GetRank (same board, same round)", (r) => (floor(r) ? "—" : `${Number(r.ofRank.toPrecision(3))}x`)],
      ["router CPU µs/call", (r) => whole(r.routerUsPerCall)],
      ["Redis CPU µs/call", (r) => (floor(r) ? "—" : whole(r.redisUsPerCall))],
      ["h2load mean ms", (r) => ms(r.meanMs)],
    ],
  );
}

export function approxTables(run: ApproxTablesInput, p: ApproxPlan): Table[] {
  return [accuracyTable(run.accuracy, p), nodeTable(run.node, p), h2Table(run.h2, p)];
}
