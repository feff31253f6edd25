import { describe, expect, it } from "vitest";
import type { Measurement } from "../infra/measure.js";
import { postgresTable } from "./postgres-table-view.js";

const m = (
  opsPerSec: number,
  p50: number,
  concurrency = 32,
  p50CiMs?: [number, number],
  cpuCores: Record<string, number> = {},
): Measurement => ({
  concurrency,
  calls: Math.round(opsPerSec * 10),
  errors: 0,
  errorsByCode: {},
  elapsedMs: 10_000,
  opsPerSec,
  latencyMs: { mean: p50, p50, p90: p50, p99: p50, p999: p50, max: p50 },
  ...(p50CiMs ? { p50CiMs } : {}),
  windowOpsPerSec: opsPerSec,
  closedBy: "duration",
  warmupMs: 2000,
  cpuCores,
});

describe("bench > postgres table", () => {
  it("sets PostgreSQL next to the one-shard router of the same size and concurrency, or dashes without it", () => {
    const table = postgresTable(
      [
        { players: 1e7, question: "rank", m: m(3.2, 2500, 32, [2400, 2650], { postgres: 1.81, client: 0.02, machine: 1.9, others: 0.05 }) },
        { players: 1e6, question: "top", m: m(30_000, 0.8) },
        { players: 1e7, question: "top", m: m(30_000, 0.8, 8) },
      ],
      [
        { players: 1e7, target: "router", shards: 1, question: "rank", m: m(4000, 6) },
        { players: 1e7, target: "router", shards: 2, question: "rank", m: m(9, 9) },
        { players: 1e7, target: "router", shards: 1, question: "top", m: m(5000, 5) },
      ],
    );
    expect(table.rows[0]).toEqual([
      "10M",
      "exact rank",
      "32",
      "32",
      "3.2",
      "2,500 (2,400–2,650)",
      "2,500",
      "0",
      "4,000",
      "6",
      "1,250x",
      "417x",
      "1.81 / 0.02 / 0.05",
    ]);
    expect(table.rows[1]!.slice(8, 12)).toEqual(["—", "—", "—", "—"]); // no router row of that size
    expect(table.rows[2]!.slice(8, 12)).toEqual(["—", "—", "—", "—"]); // the router ran at 32 in flight, not 8
  });
});
