import { describe, expect, it } from "vitest";
import { RESULT_FORMAT, type IntervalPoint, type LoadtestResult, type OperationResult, type PercentilePoint } from "../model/loadtest-result.js";
import { renderHtml, spectrumX } from "./html-report.js";

const point = (count: number, p99Ms: number, errors = 0): IntervalPoint => ({ count, errors, notFound: 0, p50Ms: p99Ms / 2, p90Ms: p99Ms * 0.9, p99Ms, maxMs: p99Ms * 2 });
const spectrum = (ms: number): PercentilePoint[] => [0, 50, 90, 99, 99.9, 100].map((percentile, i) => ({ percentile, ms: ms * (i + 1) }));
const latency = (ms: number) => ({ mean: ms, p50: ms, p90: 2 * ms, p99: 3 * ms, p999: 4 * ms, max: 5 * ms });
const operation = (calls: number, ms: number, errorsByCode: Record<string, number> = {}): OperationResult => {
  const errors = Object.values(errorsByCode).reduce((s, n) => s + n, 0);
  return { calls, errors, notFound: 0, errorsByCode, callsPerSec: calls / 3, latencyMs: latency(ms), percentiles: spectrum(ms) };
};

/** A saved result document, as the load tool writes it: three 1-second intervals. */
function result(withWrites: boolean): LoadtestResult {
  const idle = point(0, 0);
  return {
    tool: "ladder-loadtest", format: RESULT_FORMAT, name: "<run>", startedAt: "2026-11-30T00:00:00.000Z", warmupSec: 0, elapsedMs: 3000,
    options: { mix: withWrites ? "write=1,top=1" : "top=1", pacing: { kind: "open", ratePerSec: 40 }, lag: { pollMs: 10 }, token: "none" },
    environment: { node: "v20.0.0", platform: "linux/x64", cpus: 2, cpuModel: "test cpu" },
    pacing: { kind: "open", sent: 120, unsent: 0, peakInFlight: 2 },
    operations: { ...(withWrites ? { write: operation(60, 12) } : {}), top: operation(60, 1.5, { DEADLINE_EXCEEDED: 3 }) },
    totals: { calls: withWrites ? 120 : 60, callsPerSec: withWrites ? 40 : 20, updatesPerSec: withWrites ? 2000 : 0, errors: 3 },
    lag: {
      probes: { started: withWrites ? 3 : 0, seen: withWrites ? 3 : 0, timedOut: 0, superseded: 0, writeFailed: 0, polls: 12, pollErrors: 0 },
      latencyMs: withWrites ? latency(51) : latency(0), percentiles: withWrites ? spectrum(51) : [],
    },
    series: [1, 2, 3].map((t) => ({ t, ops: { write: withWrites ? point(20, 24) : idle, top: point(20, 3, 1), rank: idle, around: idle }, lag: withWrites ? point(1, 50 + t) : idle })),
    histograms: {},
    client: { peakRssMb: 1, cpuUserSec: 1, cpuSystemSec: 1 },
  };
}

describe("loadtest > html report", () => {
  it("is one self-contained page with tables and charts", () => {
    const html = renderHtml(result(true));
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).not.toMatch(/<script|<link|https?:\/\/(?!www\.w3\.org\/2000\/svg)/); // nothing fetched, nothing run
    expect(html.match(/<svg/g)!.length).toBe(5); // throughput, 2 latency, lag, spectrum
    expect(html).toContain("&lt;run&gt;");
    expect(html).toContain("DEADLINE_EXCEEDED");
    expect(html).toContain("3 probes: 3 seen");
    expect(html).toContain("open loop at 40 req/s");
    expect(html).toContain("polled every 10 ms");
  });

  it("says when no freshness probes ran", () => {
    expect(renderHtml(result(false))).toContain("no probes ran");
  });

  it("places percentiles on the spectrum's log axis", () => {
    expect(spectrumX(0)).toBe(0);
    expect(spectrumX(90)).toBeCloseTo(1, 9);
    expect(spectrumX(99.9)).toBeCloseTo(3, 9);
    expect(spectrumX(100)).toBe(6);
  });
});
