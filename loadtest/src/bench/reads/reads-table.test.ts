import { describe, expect, it } from "vitest";
import type { Measurement } from "../infra/measure.js";
import { readsTables, type ReadRow } from "./reads-table.js";

const m = (opsPerSec: number, p50: number): Measurement => ({
  concurrency: 32,
  calls: opsPerSec * 10,
  errors: 0,
  errorsByCode: {},
  elapsedMs: 10_000,
  opsPerSec,
  latencyMs: { mean: p50, p50, p90: p50, p99: p50 * 2, p999: p50 * 3, max: p50 * 4 },
  windowOpsPerSec: opsPerSec,
  closedBy: "duration",
  warmupMs: 2000,
  cpuCores: { router: 0.7, redis: 0.2, client: 0.5, machine: 1.9, others: 0.1 },
});

describe("bench > reads table", () => {
  it("puts the floor first in each size and question, and the router's ratios to it", () => {
    const rows: ReadRow[] = [
      { players: 1e6, target: "router", shards: 2, question: "rank", m: m(5000, 5) },
      { players: 1e6, target: "floor", shards: 1, question: "rank", m: m(100_000, 0.25) },
      { players: 1e6, target: "router", shards: 1, question: "top", m: m(6000, 4) },
      { players: 1e6, target: "floor", shards: 1, question: "top", m: m(60_000, 0.5) },
    ];
    const [table] = readsTables(rows);
    expect(table!.rows.map((r) => [r[1], r[2], r[3], r[7], r[8]])).toEqual([
      ["exact rank", "floor: 1 Redis", "100,000", "1x", "1x"],
      ["exact rank", "router, 2 shards", "5,000", "0.05x", "20x"],
      ["top 10", "floor: 1 Redis", "60,000", "1x", "1x"],
      ["top 10", "router, 1 shard", "6,000", "0.1x", "8x"],
    ]);
    expect(table!.rows[1]![9]).toBe("0.70 / 0.20 / 0.50 / 1.90 / 0.10");
  });
});
