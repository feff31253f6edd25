import { describe, expect, it } from "vitest";
import * as hdr from "hdr-histogram-js";
import { loadConfig } from "@ladder/platform/config";
import { OPERATIONS } from "../workload/op-mix.js";
import { LatencyRecorder } from "./latency-recorder.js";
import { parseLoadtestOptions } from "./options.js";
import { buildResult, publicOptions } from "./results.js";

const options = parseLoadtestOptions(
  ["--mix", "write=1,rank=1", "--batch", "10", "--token", "s3cret"],
  loadConfig({ LADDER_CREDENTIALS_FILE: "/nonexistent/credentials.json" }),
);

function run() {
  const ops = new LatencyRecorder(OPERATIONS);
  const lag = new LatencyRecorder(["lag"] as const);
  for (let i = 1; i <= 100; i++) ops.record("write", { sentMs: 0, latencyMs: i });
  ops.record("write", { sentMs: 0, latencyMs: 5, errorCode: "UNAVAILABLE" });
  for (let i = 1; i <= 50; i++) ops.record("rank", { sentMs: 0, latencyMs: 2, ...(i % 10 ? {} : { errorCode: "NOT_FOUND" }) });
  lag.record("lag", { sentMs: 0, latencyMs: 40 });
  lag.record("lag", { sentMs: 0, latencyMs: 60 });
  ops.tick(1);
  lag.tick(1);
  const probes = { started: 2, seen: 2, timedOut: 0, superseded: 0, writeFailed: 0, polls: 9, pollErrors: 0 };
  return buildResult({
    options,
    startedAt: new Date("2026-11-30T00:00:00Z"),
    elapsedMs: 2000,
    pacing: { kind: "open", sent: 151, unsent: 0, peakInFlight: 3 },
    ops,
    lag,
    probes,
    client: { peakRssMb: 100, cpuUserSec: 1, cpuSystemSec: 0.5 },
  });
}

describe("loadtest > results", () => {
  it("aggregates the operations of the mix into totals", () => {
    const r = run();
    expect(Object.keys(r.operations)).toEqual(["write", "rank"]);
    expect(r.operations.write).toMatchObject({ calls: 101, errors: 1, errorsByCode: { UNAVAILABLE: 1 } });
    expect(r.operations.rank).toMatchObject({ calls: 50, errors: 0, notFound: 5 });
    expect(r.totals).toEqual({ calls: 151, callsPerSec: 75.5, updatesPerSec: 500, errors: 1 });
  });

  it("keeps the latency spectrum, the lag and the time series", () => {
    const r = run();
    const spectrum = r.operations.write!.percentiles;
    expect(spectrum[0]).toEqual({ percentile: 0, ms: 1 });
    expect(spectrum.at(-1)!.percentile).toBe(100);
    expect(spectrum.at(-1)!.ms).toBeCloseTo(100, 0);
    expect(r.lag.latencyMs.max).toBeCloseTo(60, 0);
    expect(r.series).toHaveLength(1);
    expect(r.series[0]!.lag.count).toBe(2);
    expect(r.series[0]!.ops.write.count).toBe(101);
  });

  it("saves histograms HdrHistogram can read back", () => {
    const h = hdr.decodeFromCompressedBase64(run().histograms.write!);
    expect(h.totalCount).toBe(101);
  });

  it("never writes the token out", () => {
    expect(JSON.stringify(run())).not.toContain("s3cret");
    expect(publicOptions(options).token).toBe("(from --token)");
  });
});
