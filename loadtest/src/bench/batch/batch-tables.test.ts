import { describe, expect, it } from "vitest";
import { benchPlan } from "../plan.js";
import { batchTables, floorTable, h2Table, singlesOf, type H2Row, type NodeRow } from "./batch-tables.js";

const cost = { wallMs: 10, routerMs: 5, redisMs: 1, redisScripts: 6, clientMs: 2, machineCores: 1.5, othersCores: 0.1 };
const node = (part: NodeRow["part"], way: string, p50: number): NodeRow => ({
  part,
  way,
  units: 100,
  reps: 30,
  latencyMs: { mean: p50, p50, p99: 2 * p50, max: 3 * p50 },
  cost,
});
const h2 = (
  part: H2Row["part"],
  label: string,
  units: number,
  rate: number,
  routerUsPerCall = 100,
  router: H2Row["router"] = "main",
): H2Row => ({ part, router, label, units, rate, ofFloor: rate / 8000, meanMs: 5, routerUsPerCall, redisUsPerCall: 20, rounds: [] });

describe("bench > output > batch tables", () => {
  const rates = [
    h2("floor", "health", 1, 8000),
    h2("ranks", "GetRanks (100 players)", 100, 200, 3000),
    h2("ranks", "GetRank", 1, 2000, 300),
    h2("standing", "GetStanding (5 boards)", 5, 500, 1000),
    ...[1000, 2000, 4000, 4000, 4000].map((r, i) => h2("standing", `GetRank ${i}`, 1, r, 200)),
  ];

  it("compares a batched call's units per second with its singles'", () => {
    expect(singlesOf(rates, "ranks")).toEqual({ unitsPerSec: 2000, routerUsPerUnit: 300, redisUsPerUnit: 20 });
    // one GetRank per board: 1/1000 + 1/2000 + 3/4000 s = 2.25 ms a set of 5
    const s = singlesOf(rates, "standing")!;
    expect(s.unitsPerSec).toBeCloseTo(5 / 0.00225);
    expect(s.routerUsPerUnit).toBe(200);
    expect(singlesOf([], "ranks")).toBeUndefined();
  });

  it("writes the h2load table with ranks per second and the ratio to one call at a time", () => {
    const t = h2Table(rates, { connections: 4, streams: 16, rounds: 3 });
    const row = (label: string) => t.rows.find((r) => r[0] === label)!;
    expect(row("GetRanks (100 players)").slice(1, 8)).toEqual(["200", "20,000", "3%", "3,000", "30", "0", "10x"]);
    expect(row("GetStanding (5 boards)")[7]).toBe("1.13x"); // 2,500 standings/s vs 2,222
    expect(row("GetRank x 5, one per board (from the rows above)").slice(1, 3)).toEqual(["444", "2,222"]);
  });

  it("sets each router's reads against its own health check, the cluster's router first", () => {
    const cached = [h2("floor", "health check (the floor)", 1, 5000, 250, "cached"), h2("reads", "GetTop (10)", 1, 4500, 480, "cached")];
    const main = [h2("floor", "health check (the floor)", 1, 8000), h2("reads", "GetTop (10)", 1, 2000)];
    const t = floorTable([...cached, ...main, ...rates.slice(1)], { connections: 4, streams: 16, rounds: 3, players: 1_000_000 });
    expect(t.rows.map((r) => r.slice(0, 4))).toEqual([
      ["router", "health check (the floor)", "8,000", "100%"],
      ["router", "GetRank", "2,000", "25%"],
      ["router", "GetTop (10)", "2,000", "25%"],
      ["router, top cache 100 ms", "health check (the floor)", "5,000", "63%"],
      ["router, top cache 100 ms", "GetTop (10)", "4,500", "56%"],
    ]);
    expect(h2Table([...cached, ...rates], { connections: 4, streams: 16, rounds: 3 }).rows).toEqual(
      h2Table(rates, { connections: 4, streams: 16, rounds: 3 }).rows,
    );
  });

  it("makes the six tables, the batched call the base of each Node table", () => {
    const plan = benchPlan(false).batch;
    const tables = batchTables(
      {
        node: [
          node("ranks", "GetRanks", 10),
          node("ranks", "GetRank x 100", 300),
          node("standing", "GetStanding", 4),
          node("standing", "GetRank x 5", 10),
        ],
        h2: rates,
        pages: [
          { limit: 10, kind: "top", label: "top (offset 0)", firstRank: 1, node: node("pages", "top", 2), h2: h2("pages", "top", 1, 2000) },
          {
            limit: 10,
            kind: "cursor",
            label: "cursor at depth 999k",
            firstRank: 999_001,
            node: node("pages", "deep", 2.2),
            h2: h2("pages", "deep", 1, 1900),
          },
        ],
      },
      plan,
    );
    expect(tables.map((t) => t.title.split(":")[0])).toEqual([
      "100 ranks on the 1M-player board",
      "One player's standing on 5 boards (1M all-time; 100k daily today, yesterday, sum7, best7)",
      "Rates with h2load (4 connections x 16 streams, median of 3 rounds)",
      "Router vs its own health check, h2load 4 connections x 16 streams, 1M players, 3 shards (median of 3 rounds)",
      "Pages by depth",
    ]);
    expect(tables[0]!.rows.map((r) => r[4])).toEqual(["1x", "30x"]);
    expect(tables[4]!.rows[1]!.slice(2, 6)).toEqual(["999,001", "2.2", "4.4", "1.1x"]);
    expect(tables[4]!.rows[1]![9]).toBe("0.95x");
  });
});
