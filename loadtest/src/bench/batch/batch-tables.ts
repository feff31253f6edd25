/**
 * The batch benchmark's tables: the Node client's units (100 ranks, 5 standings) one way and
 * the other, h2load's rates of the same calls, the pages by depth, and the walk that reached
 * the deep cursors, and the router against its own health check with and without the top
 * cache. Ratios compare the batched call with its one-at-a-time equivalent, a page with the
 * top page of the same size, a read with the health check on the same router.
 */
import type { UnitCost } from "./cost-meter.js";
import { setRate } from "./node-runs.js";
import type { LatencySummary } from "../../model/loadtest-result.js";
import type { BatchPlan } from "../plan.js";
import { count, fixed1, fixed2, ms, pct, rate, ratio, size, whole } from "../output/format.js";
import type { Table } from "../output/table.js";

type Summary = Pick<LatencySummary, "mean" | "p50" | "p99" | "max">;

/** A block of units timed by the Node client. */
export interface NodeRow {
  part: "ranks" | "standing" | "pages";
  way: string;
  /** Ranks (standings, pages) per unit. */
  units: number;
  reps: number;
  latencyMs: Summary;
  cost: UnitCost;
}

/** One h2load request over the rounds (medians), and each round's figures. */
export interface H2Row {
  part: "floor" | "ranks" | "standing" | "pages" | "reads";
  /** The cluster's router, or the second one with the top cache on (LADDER_TOP_CACHE_MS=100). */
  router: "main" | "cached";
  label: string;
  units: number;
  /** h2load's connections x streams. */
  load?: { connections: number; streams: number };
  rate: number;
  ofFloor: number;
  meanMs: number;
  routerUsPerCall: number;
  redisUsPerCall: number;
  rounds: Array<{
    rate: number;
    ofFloor: number;
    meanMs: number;
    routerUsPerCall: number;
    redisUsPerCall: number;
    machineCores: number;
    othersCores: number;
    settledS: number;
  }>;
}

export interface PageRow {
  limit: number;
  kind: "top" | "cursor" | "offset";
  label: string;
  firstRank: number;
  node: NodeRow;
  h2?: H2Row;
}

export interface WalkFigures {
  limit: number;
  pages: number;
  ranks: number;
  seconds: number;
  /** Pages per tenth. */
  tenth: number;
  first: Summary;
  last: Summary;
  all: Summary;
}

export interface BatchTablesInput {
  node: NodeRow[];
  h2: H2Row[];
  pages: PageRow[];
  walk: WalkFigures;
}

/** The Node client's units of one part: the batched call first, the others as multiples of it. */
export function nodeTable(rows: readonly NodeRow[], part: "ranks" | "standing", title: string): Table {
  const mine = rows.filter((r) => r.part === part);
  const base = mine[0];
  return {
    title,
    columns: [
      "way",
      "n",
      "ms per unit p50",
      "p99",
      "÷ batched (p50)",
      "router CPU ms/unit",
      "Redis CPU ms/unit",
      "Redis scripts/unit",
      "client CPU ms/unit",
      "cores: machine / others",
    ],
    rows: mine.map((r) => [
      r.way,
      count(r.reps),
      ms(r.latencyMs.p50),
      ms(r.latencyMs.p99),
      ratio(r.latencyMs.p50, base?.latencyMs.p50),
      fixed2(r.cost.routerMs),
      fixed2(r.cost.redisMs),
      fixed1(r.cost.redisScripts),
      fixed2(r.cost.clientMs),
      `${fixed2(r.cost.machineCores)} / ${fixed2(r.cost.othersCores)}`,
    ]),
  };
}

/**
 * The one-at-a-time equivalent of a batched row at h2load's rates: for ranks, GetRank's rate
 * (each call one rank); for standings, one GetRank on each board, their times added (setRate).
 */
export function singlesOf(
  h2: readonly H2Row[],
  part: "ranks" | "standing",
): { unitsPerSec: number; routerUsPerUnit: number; redisUsPerUnit: number } | undefined {
  const singles = h2.filter((r) => r.part === part && r.units === 1);
  if (singles.length === 0) return undefined;
  if (part === "ranks") {
    const r = singles[0]!;
    return { unitsPerSec: r.rate, routerUsPerUnit: r.routerUsPerCall, redisUsPerUnit: r.redisUsPerCall };
  }
  const n = singles.length;
  return {
    unitsPerSec: setRate(singles.map((r) => r.rate)) * n,
    routerUsPerUnit: singles.reduce((s, r) => s + r.routerUsPerCall, 0) / n,
    redisUsPerUnit: singles.reduce((s, r) => s + r.redisUsPerCall, 0) / n,
  };
}

export function h2Table(all: readonly H2Row[], p: Pick<BatchPlan, "connections" | "streams" | "rounds">): Table {
  const h2 = all.filter((r) => r.router === "main" && r.part !== "reads");
  const rows: string[][] = [];
  const floor = h2.find((r) => r.part === "floor");
  if (floor)
    rows.push([floor.label, rate(floor.rate), "—", pct(floor.ofFloor), whole(floor.routerUsPerCall), "—", "—", "—", ms(floor.meanMs)]);
  for (const part of ["ranks", "standing"] as const) {
    const singles = singlesOf(h2, part);
    for (const r of h2.filter((x) => x.part === part)) {
      const batched = r.units > 1;
      rows.push([
        r.label,
        rate(r.rate),
        rate(r.rate * r.units),
        pct(r.ofFloor),
        whole(r.routerUsPerCall),
        whole(r.routerUsPerCall / r.units),
        whole(r.redisUsPerCall / r.units),
        batched && singles ? ratio(r.rate * r.units, singles.unitsPerSec) : "—",
        ms(r.meanMs),
      ]);
    }
    if (part === "standing" && singles && h2.filter((x) => x.part === part && x.units === 1).length > 1) {
      const n = h2.filter((x) => x.part === part && x.units === 1).length;
      rows.push([
        `GetRank x ${n}, one per board (from the rows above)`,
        rate(singles.unitsPerSec / n),
        rate(singles.unitsPerSec),
        "—",
        whole(singles.routerUsPerUnit * n),
        whole(singles.routerUsPerUnit),
        whole(singles.redisUsPerUnit),
        "1x",
        "—",
      ]);
    }
  }
  return {
    title: `Rates with h2load (${p.connections} connections x ${p.streams} streams, median of ${p.rounds} round${p.rounds > 1 ? "s" : ""})`,
    columns: [
      "call",
      "calls/s",
      "ranks (standings)/s",
      "÷ health check",
      "router CPU µs/call",
      "router CPU µs/rank",
      "Redis CPU µs/rank",
      "ranks/s ÷ one at a time",
      "h2load mean ms",
    ],
    rows,
  };
}

/** The health check, GetRank, GetTop (10) and GetAround (±5) on each router: the router against its own gRPC floor. */
export function floorTable(h2: readonly H2Row[], p: Pick<BatchPlan, "connections" | "streams" | "rounds" | "players">): Table {
  const asked = ["health check (the floor)", "GetRank", "GetTop (10)", "GetAround (±5)"];
  const rows = (["main", "cached"] as const).flatMap((router) =>
    asked.flatMap((label) => h2.filter((r) => r.router === router && r.label === label)),
  );
  return {
    title: `Router vs its own health check, h2load ${p.connections} connections x ${p.streams} streams, ${size(p.players)} players, 3 shards (median of ${p.rounds} round${p.rounds > 1 ? "s" : ""})`,
    columns: ["router", "question", "calls/s", "÷ health check", "router CPU µs/call", "h2load mean ms"],
    rows: rows.map((r) => [
      r.router === "main" ? "router" : "router, top cache 100 ms",
      r.label,
      rate(r.rate),
      pct(r.ofFloor),
      whole(r.routerUsPerCall),
      ms(r.meanMs),
    ]),
  };
}

/** " (1x4)" after a rate measured at other connections x streams than the plan's. */
function loadMark(r: H2Row, p: Pick<BatchPlan, "connections" | "streams">): string {
  return r.load && (r.load.connections !== p.connections || r.load.streams !== p.streams)
    ? ` (${r.load.connections}x${r.load.streams})`
    : "";
}

export function pagesTable(pages: readonly PageRow[], p: Pick<BatchPlan, "pageCalls" | "connections" | "streams">): Table {
  const topOf = (limit: number) => pages.find((x) => x.limit === limit && x.kind === "top");
  return {
    title: `Pages by depth: Node client one call at a time (n = ${p.pageCalls} each), h2load rates (${p.connections}x${p.streams} unless marked)`,
    columns: [
      "limit",
      "page",
      "first rank",
      "p50 ms",
      "p99 ms",
      "p50 ÷ top",
      "router CPU µs/page",
      "Redis CPU µs/page",
      "h2load pages/s",
      "÷ top page",
      "router CPU µs/page (h2load)",
    ],
    rows: pages.map((r) => {
      const top = topOf(r.limit);
      return [
        String(r.limit),
        r.label,
        count(r.firstRank),
        ms(r.node.latencyMs.p50),
        ms(r.node.latencyMs.p99),
        ratio(r.node.latencyMs.p50, top?.node.latencyMs.p50),
        whole(r.node.cost.routerMs * 1000),
        whole(r.node.cost.redisMs * 1000),
        r.h2 ? `${rate(r.h2.rate)}${loadMark(r.h2, p)}` : "—",
        ratio(r.h2?.rate, top?.h2?.rate),
        r.h2 ? whole(r.h2.routerUsPerCall) : "—",
      ];
    }),
  };
}

export function walkTable(w: WalkFigures): Table {
  const row = (what: string, s: Summary) => [what, ms(s.p50), ms(s.p99), ms(s.max)];
  return {
    title: `The walk to the deep cursors: ${count(w.pages)} pages of ${w.limit} through next_cursor, ranks 1..${count(w.ranks)} in ${w.seconds.toFixed(1)} s, one call at a time`,
    columns: ["pages", "p50 ms", "p99 ms", "max ms"],
    rows: [
      row(`first ${count(w.tenth)} (from the top)`, w.first),
      row(`last ${count(w.tenth)} (the bottom)`, w.last),
      row(`all ${count(w.pages)}`, w.all),
    ],
  };
}

export function batchTables(run: BatchTablesInput, p: BatchPlan): Table[] {
  return [
    nodeTable(
      run.node,
      "ranks",
      `${p.asked} ranks on the ${size(p.players)}-player board: one GetRanks vs ${p.asked} GetRank (Node client, one unit after another)`,
    ),
    nodeTable(
      run.node,
      "standing",
      `One player's standing on 5 boards (${size(p.players)} all-time; ${size(p.dailyPlayers)} daily today, yesterday, sum7, best7): one GetStanding vs 5 GetRank (Node client, one unit after another)`,
    ),
    h2Table(run.h2, p),
    floorTable(run.h2, p),
    pagesTable(run.pages, p),
    walkTable(run.walk),
  ];
}
