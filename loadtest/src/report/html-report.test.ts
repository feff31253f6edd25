import { describe, expect, it } from "vitest";
import { loadConfig } from "@ladder/common/config";
import { LatencyRecorder } from "../run/latency-recorder.js";
import { parseLoadtestOptions } from "../run/options.js";
import { buildResult } from "../run/results.js";
import { OPERATIONS } from "../workload/op-mix.js";
import { renderHtml, spectrumX } from "./html-report.js";

function result(withWrites: boolean) {
  const options = parseLoadtestOptions(["--mix", withWrites ? "write=1,top=1" : "top=1", "--name", "<run>"], loadConfig({}));
  const ops = new LatencyRecorder(OPERATIONS);
  const lag = new LatencyRecorder(["lag"] as const);
  for (let t = 1; t <= 3; t++) {
    for (let i = 0; i < 20; i++) {
      if (withWrites) ops.record("write", 5 + i);
      ops.record("top", 1 + i / 10, i === 0 ? "DEADLINE_EXCEEDED" : undefined);
    }
    if (withWrites) lag.record("lag", 50 + t);
    ops.tick(t);
    lag.tick(t);
  }
  const probes = { started: withWrites ? 3 : 0, seen: withWrites ? 3 : 0, timedOut: 0, superseded: 0, writeFailed: 0, polls: 12, pollErrors: 0 };
  return buildResult({ options, startedAt: new Date(), elapsedMs: 3000, pacing: { kind: "open", sent: 120, unsent: 0, peakInFlight: 2 }, ops, lag, probes, client: { peakRssMb: 1, cpuUserSec: 1, cpuSystemSec: 1 } });
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
