import { describe, expect, it } from "vitest";
import type { LoadtestResult, OperationResult } from "../model/loadtest-result.js";
import { verdict, verdictText } from "./verdict.js";

function op(calls: number, errorsByCode: Record<string, number> = {}): OperationResult {
  const notFound = errorsByCode.NOT_FOUND ?? 0;
  const errors = Object.values(errorsByCode).reduce((a, b) => a + b, 0) - notFound;
  return {
    calls,
    errors,
    notFound,
    errorsByCode,
    callsPerSec: 0,
    latencyMs: { mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 },
    percentiles: [],
  };
}

function result(operations: LoadtestResult["operations"], audit?: LoadtestResult["audit"]) {
  const calls = Object.values(operations).reduce((n, s) => n + (s?.calls ?? 0), 0);
  return { operations, totals: { calls, callsPerSec: 0, updatesPerSec: 0, errors: 0 }, ...(audit ? { audit } : {}) };
}

describe("loadtest > verdict", () => {
  it("passes a run whose calls were answered", () => {
    const v = verdict(result({ write: op(100), rank: op(60, { NOT_FOUND: 10 }), top: op(20) }));
    expect(v).toEqual({ ok: true, reasons: [], exitCode: 0 });
    expect(verdictText(v)).toBe("verdict: ok");
  });

  it("fails a run whose writes were all refused, naming the count and the code", () => {
    const v = verdict(result({ write: op(2930, { UNAUTHENTICATED: 2930 }), rank: op(2000, { NOT_FOUND: 2000 }) }));
    expect(v.exitCode).toBe(1);
    expect(v.reasons).toContain("2,930 of 2,930 writes UNAUTHENTICATED");
    expect(v.reasons.some((x) => x.startsWith("2,000 of 2,000 reads NOT_FOUND"))).toBe(true);
    expect(verdictText(v)).toMatch(/^verdict: FAILED\n {2}- 2,930 of 2,930 writes UNAUTHENTICATED/);
  });

  it("fails when errors are half of an operation's calls, listing each code", () => {
    const v = verdict(result({ write: op(10, { DEADLINE_EXCEEDED: 3, UNAVAILABLE: 2 }) }));
    expect(v.reasons).toEqual(["5 of 10 writes failed (3 DEADLINE_EXCEEDED, 2 UNAVAILABLE)"]);
  });

  it("passes a run with errors below half of the calls (load shed is a measurement)", () => {
    expect(verdict(result({ write: op(10, { DEADLINE_EXCEEDED: 4 }) })).ok).toBe(true);
  });

  it("fails when every read found nothing, and not when some did", () => {
    expect(verdict(result({ rank: op(50, { NOT_FOUND: 50 }), top: op(5, { NOT_FOUND: 5 }) })).ok).toBe(false);
    expect(verdict(result({ rank: op(50, { NOT_FOUND: 49 }) })).ok).toBe(true);
  });

  it("fails a run that sent nothing", () => {
    expect(verdict(result({})).reasons).toEqual(["no call was sent in the measured window"]);
  });

  it("fails when the loss audit found a lost increment", () => {
    const audit = { players: 10, updates: 100, lost: 1, doubled: 0 } as NonNullable<LoadtestResult["audit"]>;
    expect(verdict(result({ write: op(10) }, audit)).reasons).toEqual(["loss audit: 1 players lost increments, 0 doubled"]);
  });
});
