import { describe, expect, it } from "vitest";
import type { RankSample } from "./accuracy.js";
import { benchPlan } from "../plan.js";
import { approxTables, h2Table, nodeTable, relPct, type AccuracyRow, type ApproxH2Row, type ApproxNodeRow } from "./approx-tables.js";

const cost = { wallMs: 1, routerMs: 0.2, redisMs: 0.05, redisScripts: 3, clientMs: 0.3, machineCores: 1.2, othersCores: 0.01 };
const node = (bounds: number, call: ApproxNodeRow["call"], p50: number, routerMs = 0.2): ApproxNodeRow => ({
  board: `approx-h${bounds}`,
  bounds,
  call,
  calls: 1000,
  latencyMs: { mean: p50, p50, p99: 2 * p50, max: 3 * p50 },
  cost: { ...cost, routerMs },
});
const h2 = (bounds: number | undefined, call: ApproxH2Row["call"], rate: number, ofRank: number): ApproxH2Row => ({
  ...(bounds === undefined ? {} : { board: `approx-h${bounds}`, bounds }),
  call,
  rate,
  ofFloor: rate / 10_000,
  ofRank,
  meanMs: 6.4,
  routerUsPerCall: 150,
  redisUsPerCall: 30,
  rounds: [],
});
const depthSample = (exact: number, atLeast: number, atMost: number, estimate: number): RankSample => {
  const a = { estimate, atLeast, atMost };
  return { playerId: `p:${exact}`, exact, points: 500, byPlayer: a, byScore: { ...a, atMost: atMost + 1 } };
};
const acc = (bounds: number, width: number): AccuracyRow => ({
  board: `approx-h${bounds}`,
  bounds,
  accuracy: {
    n: 300,
    held: 300,
    width: { p50: width, p90: width, p99: width, max: width },
    absError: { p50: 10, p90: 20, p99: 30, max: 40 },
    relError: { p50: 0.0042, p90: 0.031, p99: 0.5, max: 1.25 },
  },
  depth: [depthSample(1, 1, width, width / 2), depthSample(500, 450, 450 + width - 1, 520)],
});

describe("bench > output > approx tables", () => {
  it("writes relative errors as percentages of 2 significant digits", () => {
    expect([0.0042, 0.031, 0.5, 1.25, 0].map(relPct)).toEqual(["0.42%", "3.1%", "50%", "130%", "0%"]);
    expect(relPct(NaN)).toBe("—");
  });

  it("compares each approximate call's latency with GetRank on the same board", () => {
    const t = nodeTable(
      [
        node(16, "rank", 2),
        node(16, "approx-score", 1, 0.08),
        node(16, "approx-player", 1.5),
        node(255, "rank", 2.2),
        node(255, "approx-score", 1.1),
      ],
      { nodeCalls: 1000 },
    );
    expect(t.rows.map((r) => r[4])).toEqual(["1x", "0.5x", "0.75x", "1x", "0.5x"]);
    expect(t.rows[1]!.slice(0, 6)).toEqual(["16 bounds", "GetApproximateRank(score)", "1", "2", "0.5x", "80"]);
  });

  it("shows h2load's rates against the floor and GetRank, with no ratio to GetRank for the floor", () => {
    const t = h2Table([h2(undefined, "floor", 10_000, NaN), h2(16, "rank", 4000, 1), h2(16, "approx-score", 6000, 1.5)], {
      connections: 4,
      streams: 16,
      rounds: 3,
    });
    expect(t.title).toBe("Rates with h2load (4 connections x 16 streams, median of 3 rounds)");
    expect(t.rows[0]!.slice(0, 5)).toEqual(["—", "health check (the floor)", "10,000", "100%", "—"]);
    expect(t.rows[2]!.slice(0, 6)).toEqual(["16 bounds", "GetApproximateRank(score)", "6,000", "60%", "1.5x", "150"]);
  });

  it("makes the accuracy, Node and h2load tables", () => {
    const plan = benchPlan(false).approx;
    const tables = approxTables(
      { accuracy: [acc(16, 58_824), acc(255, 3_907)], node: [node(16, "rank", 2)], h2: [h2(undefined, "floor", 10_000, NaN)] },
      plan,
    );
    expect(tables.map((t) => t.title.split(":")[0])).toEqual([
      "What an approximate rank gives up",
      "One call at a time (Node client, n = 1,000 calls each)",
      "Rates with h2load (4 connections x 16 streams, median of 3 rounds)",
    ]);
    expect(tables[0]!.rows).toHaveLength(8);
    expect(tables[0]!.rows[0]!.slice(0, 3)).toEqual(["16 bounds", "bound width (ranks the exact one may be)", "58,824"]);
    expect(tables[0]!.rows[2]!.slice(1)).toEqual(["|estimate − exact| ÷ exact", "0.42%", "3.1%", "50%", "130%"]);
    expect(tables[0]!.rows[3]!.slice(1, 4)).toEqual(["exact rank within the bounds", "300 of 300 sampled", "2 of 2 at depth"]);
  });
});
