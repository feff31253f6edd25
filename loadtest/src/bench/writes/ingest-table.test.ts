import { describe, expect, it } from "vitest";
import type { Measurement } from "../infra/measure.js";
import { ingestTable, type IngestFigures } from "./ingest-table.js";

const m = (concurrency: number, cpuCores: Record<string, number> = {}): Measurement => ({
  concurrency,
  calls: 100,
  errors: 0,
  errorsByCode: {},
  elapsedMs: 10_000,
  opsPerSec: 10,
  latencyMs: { mean: 10, p50: 10, p90: 20, p99: 30, p999: 40, max: 50 },
  windowOpsPerSec: 10,
  closedBy: "duration",
  warmupMs: 3000,
  cpuCores,
});

describe("bench > ingest table", () => {
  it("sets the end-to-end rate against what ingest acknowledged, raw Kafka and raw Redis", () => {
    const f: IngestFigures = {
      plan: {},
      endToEnd: {
        call: m(8, { shardNodes: 0.5, redis: 0.25 }),
        batch: 1000,
        ackedPerSec: 21_000,
        visiblePerSec: 20_000,
        appliedInWindow: 200_000,
        drainMs: 150,
        produced: 300_000,
        overallPerSec: 19_000,
        clusterCpu: { updates: 300_000, seconds: 20, processes: [], kinds: [], totalUsPerUpdate: 0 },
      },
      rawKafka: [{ call: m(1), batch: 5000, perSec: 80_000, topic: "t" }],
      rawRedis: { call: m(8), batch: 1000, perSec: 160_000 },
    };
    const t = ingestTable(f);
    expect(t.rows.map((r) => [r[1], r[2], r[6]])).toEqual([
      ["visible in Redis", "20,000", "1x"],
      ["acknowledged by ingest", "21,000", "0.952x"],
      ["acknowledged by Kafka", "80,000", "0.25x"],
      ["answered by Redis", "160,000", "0.125x"],
    ]);
    expect(t.rows[0]![7]).toBe("shard nodes 0.50, Redis 0.25");
    expect(t.rows[2]![0]).toContain("5,000 per request, 1 in flight");
  });
});
