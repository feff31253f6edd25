/**
 * The PostgreSQL benchmark's table: each question and size with its figures, next to the
 * router's over one shard at the same concurrency (from the read benchmark of the same
 * run; dashes when there is none) and the ratios.
 */
import type { Measurement } from "../infra/measure.js";
import { cores, count, ms, rate, ratio, size } from "../output/format.js";
import type { ReadRow } from "../reads/reads-table.js";
import type { Table } from "../output/table.js";

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
  return {
    title: "PostgreSQL baseline vs the router (1 shard), same concurrency",
    columns: [
      "rows",
      "question",
      "in flight",
      "n",
      "PostgreSQL ops/s",
      "p50 ms (95% CI)",
      "p99 ms",
      "errors",
      "router ops/s",
      "router p50 ms",
      "router/PG ops/s",
      "PG/router p50",
      "cores: PostgreSQL / client / others",
    ],
    rows: rows.map((r) => {
      const router = routerOf(r);
      const ci = r.m.p50CiMs ? ` (${ms(r.m.p50CiMs[0])}–${ms(r.m.p50CiMs[1])})` : "";
      return [
        size(r.players),
        r.question === "top" ? "top 10" : "exact rank",
        String(r.m.concurrency),
        count(r.m.calls),
        rate(r.m.opsPerSec),
        ms(r.m.latencyMs.p50) + ci,
        ms(r.m.latencyMs.p99),
        count(r.m.errors),
        router ? rate(router.opsPerSec) : "—",
        router ? ms(router.latencyMs.p50) : "—",
        ratio(router?.opsPerSec, r.m.opsPerSec),
        ratio(r.m.latencyMs.p50, router?.latencyMs.p50),
        cores(r.m.cpuCores, ["postgres", "client", "others"]),
      ];
    }),
  };
}
