/**
 * The PostgreSQL benchmark's table: each question and size with its figures, next to the
 * router's over one shard at the same concurrency (from the read benchmark of the same
 * run; dashes when there is none) and the ratios.
 */
import type { Measurement } from "../infra/measure.js";
import { cores, count, ms, rate, ratio, size } from "../output/format.js";
import type { ReadRow } from "../reads/reads-table.js";
import { tableOf, type Table } from "../output/table.js";

export interface PgRow {
  players: number;
  question: "top" | "rank";
  m: Measurement;
}

export function postgresTable(rows: readonly PgRow[], routerRows: readonly ReadRow[]): Table {
  const routerOf = (r: PgRow) =>
    routerRows.find(
      (x) =>
        x.target === "router" &&
        x.shards === 1 &&
        x.players === r.players &&
        x.question === r.question &&
        x.m.concurrency === r.m.concurrency,
    )?.m;
  const ci = (m: Measurement) => (m.p50CiMs ? ` (${ms(m.p50CiMs[0])}–${ms(m.p50CiMs[1])})` : "");
  return tableOf(
    "PostgreSQL baseline vs the router (1 shard), same concurrency",
    rows.map((r) => ({ ...r, router: routerOf(r) })),
    [
      ["rows", (r) => size(r.players)],
      ["question", (r) => (r.question === "top" ? "top 10" : "exact rank")],
      ["in flight", (r) => String(r.m.concurrency)],
      ["n", (r) => count(r.m.calls)],
      ["PostgreSQL ops/s", (r) => rate(r.m.opsPerSec)],
      ["p50 ms (95% CI)", (r) => ms(r.m.latencyMs.p50) + ci(r.m)],
      ["p99 ms", (r) => ms(r.m.latencyMs.p99)],
      ["errors", (r) => count(r.m.errors)],
      ["router ops/s", (r) => (r.router ? rate(r.router.opsPerSec) : "—")],
      ["router p50 ms", (r) => (r.router ? ms(r.router.latencyMs.p50) : "—")],
      ["router/PG ops/s", (r) => ratio(r.router?.opsPerSec, r.m.opsPerSec)],
      ["PG/router p50", (r) => ratio(r.m.latencyMs.p50, r.router?.latencyMs.p50)],
      ["cores: PostgreSQL / client / others", (r) => cores(r.m.cpuCores, ["postgres", "client", "others"])],
    ],
  );
}
