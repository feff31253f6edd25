import { describe, expect, it } from "vitest";
import type { ApplyFigures } from "./apply-cost.js";
import { boardsReadTable, boardsWriteTable, type BoardsReadRow } from "./boards-tables.js";
import type { Measurement } from "../infra/measure.js";

const applied = (recordsPerSec: number, redisCpuUsPerRecord: number): ApplyFigures => ({
  records: 50_000,
  calls: 100,
  seconds: 5,
  recordsPerSec,
  redisCpuUsPerRecord,
  scriptUsPerRecord: redisCpuUsPerRecord * 0.8,
  benchCpuUsPerRecord: 40,
  warmup: { records: 10_000, seconds: 1.5 },
});
const loop = (opsPerSec: number): Measurement => ({
  concurrency: 16,
  calls: 1000,
  errors: 0,
  errorsByCode: {},
  elapsedMs: 3000,
  opsPerSec,
  windowOpsPerSec: opsPerSec,
  latencyMs: { mean: 0.5, p50: 0.4, p90: 0.8, p99: 1.2, p999: 2, max: 3 },
  closedBy: "duration",
  warmupMs: 1000,
  cpuCores: {},
});

describe("bench > boards tables", () => {
  it("sets each window read beside the period's, by size and question", () => {
    const row = (target: BoardsReadRow["target"], question: "top" | "rank", ops: number, players = 1e6): BoardsReadRow => ({
      players,
      target,
      entries: players,
      read: { question, loop: loop(ops) },
    });
    const t = boardsReadTable(
      [row("sum7", "rank", 30_000), row("period", "top", 10_000), row("period", "rank", 20_000), row("best7", "top", 5_000, 1e7)],
      16,
    );
    expect(t.rows.map((r) => [r[0], r[1], r[2], r[4], r[8]])).toEqual([
      ["1M", "top 10", "the period (day 7)", "10,000", "—"],
      ["1M", "rank", "the period (day 7)", "20,000", "—"],
      ["1M", "rank", "SUM window sum7 ending day 7", "30,000", "1.5x"],
      ["10M", "top 10", "BEST window best7 ending day 7", "5,000", "—"],
    ]);
    expect(t.columns[4]).toBe("16 in flight: ops/s");
  });

  it("compares every write with the single board's of its round and says why one was not measured", () => {
    const t = boardsWriteTable([
      { players: 1e6, write: "single", also: 0, figures: applied(20_000, 20) },
      { players: 1e6, write: "also", also: 8, figures: applied(2_000, 180) },
      { players: 1e6, write: "windowed", also: 0, figures: applied(2_500, 300) },
      { players: 1e7, write: "windowed", also: 0, skipped: "too big" },
    ]);
    expect(t.rows.map((r) => [r[1], r[2], r[3], r[4], r[5], r[6]])).toEqual([
      ["single board (daily, no windows)", "1", "20,000", "1x", "20", "1x"],
      ["single board + 8 also_boards", "9", "2,000", "0.1x", "180", "9x"],
      ["daily board with sum7 + best7", "1", "2,500", "0.125x", "300", "15x"],
      ["daily board with sum7 + best7", "1", "—", "—", "—", "—"],
    ]);
    expect(t.rows[3]![9]).toBe("not measured: too big");
  });
});
