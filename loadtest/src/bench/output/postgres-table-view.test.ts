import { describe, expect, it } from "vitest";
import type { Measurement } from "../infra/measure.js";
import { postgresTable } from "./postgres-table-view.js";

const m = (opsPerSec: number, p50: number, concurrency = 8): Measurement => ({
  concurrency, calls: Math.round(opsPerSec * 10), errors: 0, errorsByCode: {}, elapsedMs: 10_000, opsPerSec,
  latencyMs: { mean: p50, p50, p90: p50, p99: p50, p999: p50, max: p50 }, cpuCores: {},
});

describe("bench > postgres table", () => {
  it("sets PostgreSQL next to the one-shard router of the same size, or dashes without it", () => {
    const table = postgresTable(
      [{ players: 1e7, question: "rank", m: m(3.2, 2500) }, { players: 1e6, question: "top", m: m(30_000, 0.8, 32) }],
      [{ players: 1e7, target: "router", shards: 1, question: "rank", m: m(4000, 6, 32) }, { players: 1e7, target: "router", shards: 2, question: "rank", m: m(9, 9, 32) }],
    );
    expect(table.rows[0]).toEqual(["10M", "exact rank", "8", "32", "3.2", "2,500", "2,500", "0", "4,000", "6", "1,250x", "417x"]);
    expect(table.rows[1]!.slice(8)).toEqual(["—", "—", "—", "—"]);
  });
});
