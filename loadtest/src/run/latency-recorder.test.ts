import { describe, expect, it } from "vitest";
import { LatencyRecorder } from "./latency-recorder.js";
import { opSummary } from "./summary.js";

/** A call sent at 0 (counted unless the test says otherwise). */
const call = (latencyMs: number, errorCode?: string) => ({ sentMs: 0, latencyMs, ...(errorCode === undefined ? {} : { errorCode }) });

describe("loadtest > latency recorder", () => {
  it("keeps percentiles of the whole run within HdrHistogram's 3 digits", () => {
    const r = new LatencyRecorder(["rank"] as const);
    for (let i = 1; i <= 10_000; i++) r.record("rank", call(i / 10)); // 0.1 ms .. 1000 ms
    const s = opSummary(r.total("rank"), 10_000);
    expect(s.calls).toBe(10_000);
    expect(s.callsPerSec).toBe(1000);
    expect(s.latencyMs.p50).toBeCloseTo(500, -0.5);
    expect(Math.abs(s.latencyMs.p99 - 990) / 990).toBeLessThan(0.001);
    expect(Math.abs(s.latencyMs.p999 - 999) / 999).toBeLessThan(0.001);
    expect(Math.abs(s.latencyMs.max - 1000) / 1000).toBeLessThan(0.001);
    expect(s.latencyMs.mean).toBeCloseTo(500.05, 0);
  });

  it("closes intervals into a time series and starts each one empty", () => {
    const r = new LatencyRecorder(["write", "top"] as const);
    r.record("write", call(10));
    r.record("write", call(20, "UNAVAILABLE"));
    r.record("top", call(1));
    const first = r.tick(1);
    expect(first.t).toBe(1);
    expect(first.ops.write).toMatchObject({ count: 2, errors: 1, notFound: 0 });
    expect(first.ops.write.maxMs).toBeCloseTo(20, 1);
    expect(first.ops.top.count).toBe(1);
    const second = r.tick(2);
    expect(second.ops.write).toEqual({ count: 0, errors: 0, notFound: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0, maxMs: 0 });
    expect(r.series).toHaveLength(2);
    expect(r.total("write").count).toBe(2); // the run's totals are kept
  });

  it("counts failures by code and tells NOT_FOUND apart from errors", () => {
    const r = new LatencyRecorder(["around"] as const);
    r.record("around", call(1, "NOT_FOUND"));
    r.record("around", call(1, "NOT_FOUND"));
    r.record("around", call(1, "DEADLINE_EXCEEDED"));
    r.record("around", call(1));
    expect(r.tick(1).ops.around).toMatchObject({ count: 4, errors: 1, notFound: 2 });
    const s = opSummary(r.total("around"), 1000);
    expect(s).toMatchObject({ calls: 4, errors: 1, notFound: 2, errorsByCode: { NOT_FOUND: 2, DEADLINE_EXCEEDED: 1 } });
  });

  it("summarizes an operation that never ran as zeros", () => {
    const r = new LatencyRecorder(["top"] as const);
    expect(opSummary(r.total("top"), 1000)).toEqual({
      calls: 0,
      errors: 0,
      notFound: 0,
      errorsByCode: {},
      callsPerSec: 0,
      latencyMs: { mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 },
    });
  });

  it("counts a call by its send time: a warm-up call answered after the warm-up stays out of the totals", () => {
    const r = new LatencyRecorder(["rank"] as const, (sentMs) => sentMs >= 1000); // the window opens at 1000
    r.record("rank", { sentMs: 900, latencyMs: 500, errorCode: "UNAVAILABLE" }); // sent in the warm-up, answered at 1400
    r.record("rank", { sentMs: 1000, latencyMs: 2 });
    r.record("rank", { sentMs: 1398, latencyMs: 2 });
    expect(r.tick(1.4).ops.rank).toMatchObject({ count: 3, errors: 1 }); // the time series shows every answer
    expect(opSummary(r.total("rank"), 1000)).toMatchObject({ calls: 2, errors: 0, errorsByCode: {} });
    expect(r.total("rank").histogram.maxValue).toBeLessThan(3000); // µs: the 500 ms warm-up call is not in the latencies
  });

  it("records sub-microsecond and very long latencies without throwing", () => {
    const r = new LatencyRecorder(["write"] as const);
    r.record("write", call(0));
    r.record("write", call(3_600_000)); // an hour: past the initial range, the histogram grows
    expect(opSummary(r.total("write"), 1).latencyMs.max).toBeGreaterThan(3_500_000);
  });
});
