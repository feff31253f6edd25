import { describe, expect, it } from "vitest";
import { BENCH_NAMES } from "../options.js";
import { filePrefix, formatMinutes, markdownSummary, type BenchReport } from "./report.js";

const report: BenchReport = {
  tool: "ladder-bench",
  format: 1,
  quick: true,
  startedAt: "2026-11-30T07:00:00.000Z",
  finishedAt: "2026-11-30T07:02:05.000Z",
  wallSeconds: 125,
  selected: ["grpc", "rebuild"],
  machine: {
    cpus: 2,
    cpuModel: "Test CPU",
    memoryGiB: 24,
    node: "v20",
    platform: "linux x64",
    redisServer: "redis-server 7.0",
    kafka: "4.1.1",
  },
  loadavgStart: [1.5, 1, 1],
  loadavgEnd: [2.5, 1, 1],
  benchmarks: [
    {
      name: "grpc",
      title: "Memory",
      status: "ok",
      startedAt: "",
      seconds: 3,
      loadavgStart: [1, 1, 1],
      loadavgEnd: [2, 1, 1],
      figures: {},
      method: "grpc/grpc.md",
      tables: [{ title: "t", columns: ["a"], rows: [["1"]] }],
    },
    {
      name: "rebuild",
      title: "Rebuild",
      method: "writes/rebuild.md",
      status: "failed",
      error: "Error: no broker\n  at x",
      startedAt: "",
      seconds: 9,
      loadavgStart: [1, 1, 1],
      loadavgEnd: [1, 1, 1],
    },
  ],
};

describe("bench > report", () => {
  it("writes a Markdown summary with the run's context, tables, method links and failures", () => {
    const md = markdownSummary(report, "bench-quick-x.json");
    expect(md).toContain("`npm run bench -- --quick grpc rebuild`, 2026-11-30");
    expect(md).toContain("not for quoting");
    expect(md).toContain("2 min 5 s");
    expect(md).toContain("**t**\n\n| a |\n|---:|\n| 1 |");
    expect(md).toContain("How it is measured: [loadtest/src/bench/grpc/grpc.md](../src/bench/grpc/grpc.md).");
    expect(md).toContain("**Failed** after 9 s: `Error: no broker`");
    expect(md).toContain("`bench-quick-x.json` beside this file");
  });

  it("names the files of a partial run after its benchmarks, so it never replaces the whole suite's summary", () => {
    expect(filePrefix(report)).toBe("bench-quick-grpc-rebuild");
    expect(filePrefix({ ...report, quick: false, selected: ["grpc"] })).toBe("bench-grpc");
    expect(filePrefix({ ...report, quick: false, selected: [...BENCH_NAMES] })).toBe("bench");
    expect(filePrefix({ ...report, selected: [...BENCH_NAMES] })).toBe("bench-quick");
  });

  it("writes durations in minutes and seconds", () => {
    expect(formatMinutes(59.6)).toBe("60 s");
    expect(formatMinutes(754)).toBe("12 min 34 s");
  });
});
