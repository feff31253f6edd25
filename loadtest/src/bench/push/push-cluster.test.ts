import { describe, expect, it } from "vitest";
import { loopDelayMs, metricValue } from "./push-cluster.js";

describe("bench > push > cluster readings", () => {
  it("reads a metric's value from Prometheus text, labelled or not", () => {
    const text = [
      "# HELP nodejs_heap_size_used_bytes Process heap size used from Node.js in bytes.",
      "# TYPE nodejs_heap_size_used_bytes gauge",
      "nodejs_heap_size_used_bytes 35651584",
      'nodejs_eventloop_lag_p99_seconds{service="router"} 0.1234',
      "nodejs_heap_size_used_bytes_total 7",
    ].join("\n");
    expect(metricValue(text, "nodejs_heap_size_used_bytes")).toBe(35651584);
    expect(metricValue(text, "nodejs_eventloop_lag_p99_seconds")).toBe(0.1234);
    expect(metricValue(text, "nodejs_eventloop_lag_max_seconds")).toBeNaN();
  });

  it("takes the sampling timer's own interval off an event-loop delay, never below 0", () => {
    expect(loopDelayMs(103.6, 100)).toBe(3.6);
    expect(loopDelayMs(99.3, 100)).toBe(0);
    expect(loopDelayMs(1552.94, 100)).toBe(1452.9);
  });
});
