import { describe, expect, it } from "vitest";
import {
  columnMember,
  columnsProblem,
  decodeColumnMember,
  encodeDeltas,
  encodeTimePart,
  INT64_MAX,
  INT64_MIN,
  playerOfMember,
  valuesProblem,
  type Column,
} from "./columns.js";
import { compareIds } from "./score-encoding.js";

const COLUMNS: Column[] = [
  { name: "points", lowerIsBetter: false },
  { name: "time", lowerIsBetter: true },
  { name: "kills", lowerIsBetter: false },
];
const spec = { columns: COLUMNS, tie: "earliest" as const, epochMs: 1_000, resolutionMs: 10 };

/** The board's order written out directly: each column by its own direction, then time, then id bytes. */
function oracle(a: { v: bigint[]; units: number; id: string }, b: { v: bigint[]; units: number; id: string }): number {
  for (let i = 0; i < COLUMNS.length; i++) {
    if (a.v[i] === b.v[i]) continue;
    const aBetter = COLUMNS[i]!.lowerIsBetter ? a.v[i]! < b.v[i]! : a.v[i]! > b.v[i]!;
    return aBetter ? -1 : 1;
  }
  if (a.units !== b.units) return a.units < b.units ? -1 : 1;
  return compareIds(a.id, b.id);
}

const memcmp = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

describe("members of a board with columns", () => {
  const values = [INT64_MIN, INT64_MIN + 1n, -(2n ** 53n) - 1n, -1n, 0n, 1n, 2n ** 53n + 1n, INT64_MAX - 1n, INT64_MAX];
  const entries: Array<{ v: bigint[]; units: number; id: string }> = [];
  for (let i = 0; i < 300; i++)
    entries.push({
      v: COLUMNS.map((_, c) => values[(i * 7 + c * 3 + (i >> c)) % values.length]!),
      units: (i * 13) % 5,
      id: ["a", "b", "é", "z", "ab"][i % 5]! + (i % 3),
    });

  it("sort by their bytes exactly as the board's order", () => {
    const members = entries.map((e) => columnMember(COLUMNS, e.v, encodeTimePart("earliest", e.units), e.id));
    const byBytes = entries.map((e, i) => ({ e, m: members[i]! })).sort((x, y) => memcmp(x.m, y.m));
    const byOracle = [...entries].sort(oracle);
    // equal entries (same values, time and id) sort together either way
    expect(byBytes.map((x) => JSON.stringify(x.e, (_, v) => (typeof v === "bigint" ? String(v) : v)))).toEqual(
      byOracle.map((e) => JSON.stringify(e, (_, v) => (typeof v === "bigint" ? String(v) : v))),
    );
  });

  it("decode back to their values, time and player", () => {
    for (const e of entries) {
      const m = columnMember(COLUMNS, e.v, encodeTimePart("earliest", e.units), e.id);
      expect(playerOfMember(m)).toBe(e.id);
      const d = decodeColumnMember(spec, m);
      expect(d).toEqual({ playerId: e.id, values: e.v, reachedAtMs: spec.epochMs + e.units * spec.resolutionMs });
    }
    const latest = columnMember(COLUMNS, [1n, 2n, 3n], encodeTimePart("latest", 7), "p");
    expect(decodeColumnMember({ ...spec, tie: "latest" }, latest).reachedAtMs).toBe(spec.epochMs + 70);
    const byId = columnMember(COLUMNS, [1n, 2n, 3n], encodeTimePart("id", 7), "p");
    expect(decodeColumnMember({ ...spec, tie: "id" }, byId)).toEqual({ playerId: "p", values: [1n, 2n, 3n], reachedAtMs: 0 });
  });

  it("order later times first on a latest-first board", () => {
    expect(memcmp(encodeTimePart("latest", 9), encodeTimePart("latest", 8))).toBeLessThan(0);
    expect(encodeTimePart("id", 9)).toBe("");
  });

  it("leave a one-column board's members as they are", () => {
    expect(playerOfMember("alice")).toBe("alice");
  });
});

describe("deltas", () => {
  it("carry each column's order, sign and magnitude", () => {
    expect(encodeDeltas(COLUMNS, [5n, -1n, INT64_MIN])).toBe(`h+${"5".padStart(16, "0")}l-${"1".padStart(16, "0")}h-8000000000000000`);
  });
});

describe("problems", () => {
  it("name the field and the limit", () => {
    expect(columnsProblem([{ name: "a" }])).toBe("rules.columns: a board with columns has 2 to 4 of them, got 1");
    expect(columnsProblem([{ name: "a" }, { name: "b" }, { name: "c" }, { name: "d" }, { name: "e" }])).toMatch(/2 to 4 of them, got 5/);
    expect(columnsProblem([{ name: "a" }, { name: "A" }])).toMatch(/rules\.columns\[1\]\.name: 1 to 32 characters/);
    expect(columnsProblem([{ name: "a" }, { name: "a" }])).toBe('rules.columns[1].name: "a" names two columns');
    expect(columnsProblem([])).toBeUndefined();
    expect(valuesProblem([1n, 2n], 3)).toBe("columns: the board has 3 columns, got 2 values");
    expect(valuesProblem([1n], 0)).toBe("columns: the board has no columns, got 1 values");
    expect(valuesProblem([INT64_MAX + 1n, 0n], 2)).toMatch(/columns\[0\]: must be a signed 64-bit integer/);
    expect(valuesProblem([INT64_MIN, INT64_MAX], 2)).toBeUndefined();
  });
});
