import { describe, expect, it } from "vitest";
import type { IntervalPoint } from "../model/loadtest-result.js";
import { formatMs, formatProgress } from "./progress-line.js";

const point = (count: number, p99Ms: number, errors = 0, notFound = 0): IntervalPoint => ({
  count,
  errors,
  notFound,
  p50Ms: p99Ms / 2,
  p90Ms: p99Ms,
  p99Ms,
  maxMs: p99Ms * 2,
});

describe("loadtest > progress line", () => {
  it("formats latencies with 3 significant digits", () => {
    expect(formatMs(0.12345)).toBe("0.123ms");
    expect(formatMs(14.26)).toBe("14.3ms");
    expect(formatMs(1234.5)).toBe("1,235ms");
  });

  it("shows rates, p99 per operation, lag, errors and requests in flight", () => {
    const line = formatProgress({
      point: { t: 12, ops: { write: point(601, 14.2, 2), top: point(0, 0), rank: point(361, 5.1, 0, 7) } },
      intervalSec: 1,
      lag: point(10, 62),
      inFlight: 4,
    });
    expect(line).toBe(
      "[  12s]     962 req/s | write 601/s p99 14.2ms | rank 361/s p99 5.1ms | lag p99 62ms (10) | errors write 2 | not found 7 | in flight 4",
    );
  });

  it("scales counts to the interval's length and shows a missing lag as -", () => {
    const line = formatProgress({ point: { t: 2, ops: { rank: point(500, 1) } }, intervalSec: 0.5, lag: undefined, inFlight: 0 });
    expect(line).toContain("1,000 req/s | rank 1,000/s p99 1ms | lag - | errors 0 | in flight 0");
  });
});
