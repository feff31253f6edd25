/**
 * The batch benchmark's tables: the Node client's units (100 ranks, 5 standings) one way and
 * the other, h2load's rates of the same calls, the pages by depth, and the router against its own health check with and without the top
 * cache. Ratios compare the batched call with its one-at-a-time equivalent, a page with the
 * top page of the same size, a read with the health check on the same router.
 */
import type { H2Run } from "./cluster-costs.js";
import type { UnitCost } from "./cost-meter.js";
import { setRate } from "./node-runs.js";
import type { LatencySummary } from "../../model/loadtest-result.js";
import type { BatchPlan } from "../plan.js";
import { count, fixed1, fixed2, ms, pct, rate, ratio, size, whole } from "../output/format.js";
import { tableOf, type Table } from "../output/table.js";

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
  rounds: H2Run[];
}

export interface PageRow {
  limit: number;
  kind: "top" | "cursor" | "offset";
  label: string;
  firstRank: number;
  node: NodeRow;
  h2?: H2Row;
}

export interface BatchTablesInput {
  node: NodeRow[];
  h2: H2Row[];
  pages: PageRow[];
}

/** The Node client's units of one part: the batched call first, the others as multiples of it. */
export function nodeTable(rows: readonly NodeRow[], part: "ranks" | "standing", title: string): Table {
  const mine = rows.filter((r) => r.part === part);
  return tableOf(title, mine, [
    ["way", (r) => r.way],
    ["n", (r) => count(r.reps)],
    ["ms per unit p50", (r) => ms(r.latencyMs.p50)],
    ["p99", (r) => ms(r.latencyMs.p99)],
    ["÷ batched (p50)", (r) => ratio(r.latencyMs.p50, mine[0]?.latencyMs.p50)],
    ["router CPU ms/unit", (r) => fixed2(r.cost.routerMs)],
    ["Redis CPU ms/unit", (r) => fixed2(r.cost.redisMs)],
    ["Redis scripts/unit", (r) => fixed1(r.cost.redisScripts)],
    ["client CPU ms/unit", (r) => fixed2(r.cost.clientMs)],
    ["cores: machine / others", (r) => `${fixed2(r.cost.machineCores)} / ${fixed2(r.cost.othersCores)}`],
  ]);
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
  const lines: Array<{
    call: string;
    rate: number;
    units: number;
    ofFloor: number;
    routerCall: number;
    redisUnit: number;
    vsOne: string;
    meanMs: number;
  }> = [];
  for (const r of h2.filter((x) => x.part === "floor"))
    lines.push({
      call: r.label,
      rate: r.rate,
      units: NaN,
      ofFloor: r.ofFloor,
      routerCall: r.routerUsPerCall,
      redisUnit: NaN,
      vsOne: "—",
      meanMs: r.meanMs,
    });
  for (const part of ["ranks", "standing"] as const) {
    const singles = singlesOf(h2, part);
    const ones = h2.filter((x) => x.part === part && x.units === 1).length;
    for (const r of h2.filter((x) => x.part === part)) {
      const vsOne = r.units > 1 && singles ? ratio(r.rate * r.units, singles.unitsPerSec) : "—";
      lines.push({
        call: r.label,
        rate: r.rate,
        units: r.units,
        ofFloor: r.ofFloor,
        routerCall: r.routerUsPerCall,
        redisUnit: r.redisUsPerCall / r.units,
        vsOne,
        meanMs: r.meanMs,
      });
    }
    if (part === "standing" && singles && ones > 1)
      lines.push({
        call: `GetRank x ${ones}, one per board (from the rows above)`,
        rate: singles.unitsPerSec / ones,
        units: ones,
        ofFloor: NaN,
        routerCall: singles.routerUsPerUnit * ones,
        redisUnit: singles.redisUsPerUnit,
        vsOne: "1x",
        meanMs: NaN,
      });
  }
  return tableOf(
    `Rates with h2load (${p.connections} connections x ${p.streams} streams, median of ${p.rounds} round${p.rounds > 1 ? "s" : ""})`,
    lines,
    [
      ["call", (l) => l.call],
      ["calls/s", (l) => rate(l.rate)],
      ["ranks (standings)/s", (l) => rate(l.rate * l.units)],
      ["÷ health check", (l) => pct(l.ofFloor)],
      ["router CPU µs/call", (l) => whole(l.routerCall)],
      ["router CPU µs/rank", (l) => whole(l.routerCall / l.units)],
      ["Redis CPU µs/rank", (l) => whole(l.redisUnit)],
      ["ranks/s ÷ one at a time", (l) => l.vsOne],
      ["h2load mean ms", (l) => ms(l.meanMs)],
    ],
  );
}

/** The health check, GetRank, GetTop (10) and GetAround (±5) on each router: the router against its own gRPC floor. */
export function floorTable(h2: readonly H2Row[], p: Pick<BatchPlan, "connections" | "streams" | "rounds" | "players">): Table {
  const asked = ["health check (the floor)", "GetRank", "GetTop (10)", "GetAround (±5)"];
  const rows = (["main", "cached"] as const).flatMap((router) =>
    asked.flatMap((label) => h2.filter((r) => r.router === router && r.label === label)),
  );
  return tableOf(
    `Router vs its own health check, h2load ${p.connections} connections x ${p.streams} streams, ${size(p.players)} players, 3 shards (median of ${p.rounds} round${p.rounds > 1 ? "s" : ""})`,
    rows,
    [
      ["router", (r) => (r.router === "main" ? "router" : "router, top cache 100 ms")],
      ["question", (r) => r.label],
      ["calls/s", (r) => rate(r.rate)],
      ["÷ health check", (r) => pct(r.ofFloor)],
      ["router CPU µs/call", (r) => whole(r.routerUsPerCall)],
      ["h2load mean ms", (r) => ms(r.meanMs)],
    ],
  );
}

/** " (1x4)" after a rate measured at other connections x streams than the plan's. */
function loadMark(r: H2Row, p: Pick<BatchPlan, "connections" | "streams">): string {
  return r.load && (r.load.connections !== p.connections || r.load.streams !== p.streams)
    ? ` (${r.load.connections}x${r.load.streams})`
    : "";
}

export function pagesTable(pages: readonly PageRow[], p: Pick<BatchPlan, "pageCalls" | "connections" | "streams">): Table {
  const topOf = (r: PageRow) => pages.find((x) => x.limit === r.limit && x.kind === "top");
  return tableOf(
    `Pages by depth: Node client one call at a time (n = ${p.pageCalls} each), h2load rates (${p.connections}x${p.streams} unless marked)`,
    pages,
    [
      ["limit", (r) => String(r.limit)],
      ["page", (r) => r.label],
      ["first rank", (r) => count(r.firstRank)],
      ["p50 ms", (r) => ms(r.node.latencyMs.p50)],
      ["p99 ms", (r) => ms(r.node.latencyMs.p99)],
      ["p50 ÷ top", (r) => ratio(r.node.latencyMs.p50, topOf(r)?.node.latencyMs.p50)],
      ["router CPU µs/page", (r) => whole(r.node.cost.routerMs * 1000)],
      ["Redis CPU µs/page", (r) => whole(r.node.cost.redisMs * 1000)],
      ["h2load pages/s", (r) => (r.h2 ? `${rate(r.h2.rate)}${loadMark(r.h2, p)}` : "—")],
      ["÷ top page", (r) => ratio(r.h2?.rate, topOf(r)?.h2?.rate)],
      ["router CPU µs/page (h2load)", (r) => (r.h2 ? whole(r.h2.routerUsPerCall) : "—")],
    ],
  );
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
  ];
}
