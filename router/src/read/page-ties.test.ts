// PageTies' own rules (page-ties.ts) on hand-made shard parts; the pages themselves are checked against
// an oracle in queries.test.ts. One board of points indexes (sort key = index × units + time).
import { describe, expect, it } from "vitest";
import { DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { Code } from "@ladder/model/errors";
import type { KeyedMember } from "@ladder/model/score-encoding";
import { coveredUpTo, PageTies, type ShardPart } from "./page-ties.js";
import { columnMember, encodeColumns } from "@ladder/model/columns";
import { MAX_DENSE_VALUES } from "./ranks.js";

const spec = makeBoardSpec(DEFAULT_BOARD).spec!;
const U = spec.timeUnits;
const at = (index: number, time = 0, playerId = `p${index}-${time}`): KeyedMember => ({ playerId, key: index * U + time });

// shard A: indexes 1, 3, 3, 5 (4 members before its window); window [5, 7, 7]; shard B: window [6, 8], nothing before it with a worse index
const a: ShardPart = {
  shardId: "a",
  start: 4,
  members: [at(5, 1), at(7), at(7, 2)],
  coveredUpTo: at(7, 2),
  ties: { anchor: 5, below: 3, distinct: [1, 3, 5] },
};
const b: ShardPart = {
  shardId: "b",
  start: 0,
  members: [at(6), at(8)],
  coveredUpTo: undefined,
  ties: { anchor: 6, below: 0, distinct: [6] },
};

describe("router > read > page ties", () => {
  it("counts the better points of every shard from its anchor, its members before the window and the window", () => {
    const competition = new PageTies(spec, "competition", [a, b]);
    // index 6: A's 4 members before the window and its 5; B: below its anchor, 0
    expect(competition.of(at(6))).toBe(1 + 5 + 0);
    // index 7: A's 5 members ahead of it; B's 6
    expect(competition.of(at(7, 2))).toBe(1 + 5 + 1);
    const dense = new PageTies(spec, "dense", [a, b]);
    // distinct better than 7: 1, 3, 5, 6
    expect(dense.of(at(7))).toBe(5);
    expect(dense.of(at(6))).toBe(4);
  });

  it("counts none of a shard whose window starts at its first member and holds only worse points", () => {
    const c: ShardPart = { shardId: "c", start: 0, members: [at(9)], coveredUpTo: undefined, ties: { anchor: 9, below: 0, distinct: [9] } };
    expect(new PageTies(spec, "competition", [a, b, c]).of(at(6))).toBe(1 + 5 + 0 + 0);
    expect(new PageTies(spec, "dense", [a, b, c]).of(at(7))).toBe(5);
    expect(() => new PageTies(spec, "competition", [a, b, { ...c, start: 2 }]).of(at(6))).toThrow(
      expect.objectContaining({ code: Code.INTERNAL }),
    );
  });

  it("refuses (INTERNAL) a value a shard's read does not cover, never guessing", () => {
    const ties = new PageTies(spec, "competition", [a, b]);
    // index 8: A's window ends at index 7, and A may hold more members with index < 8 after it
    expect(() => ties.of(at(8))).toThrow(expect.objectContaining({ code: Code.INTERNAL }));
    // index 4: better than A's anchor; the members before A's window are not known apart
    expect(() => ties.of(at(4))).toThrow(expect.objectContaining({ code: Code.INTERNAL }));
  });

  it("refuses dense ranks (FAILED_PRECONDITION) when one shard holds more distinct points up to its anchor than it may count", () => {
    const many = { ...a, ties: { ...a.ties, distinct: Array.from({ length: MAX_DENSE_VALUES + 1 }, (_, i) => i) } };
    expect(() => new PageTies(spec, "dense", [many, b])).toThrow(expect.objectContaining({ code: Code.FAILED_PRECONDITION }));
    expect(new PageTies(spec, "competition", [many, b]).of(at(6))).toBe(6);
  });

  it("covers a window's shard up to its last entry, or wholly when the window reaches the shard's end", () => {
    expect(coveredUpTo({ start: 2, card: 10, members: [at(1), at(2)] })).toEqual(at(2));
    expect(coveredUpTo({ start: 8, card: 10, members: [at(1), at(2)] })).toBeUndefined();
    expect(coveredUpTo({ start: 0, card: 0, members: [] })).toBeUndefined();
  });

  it("ties the entries of a board with columns by their column parts", () => {
    const columns = [
      { name: "points", lowerIsBetter: false },
      { name: "time", lowerIsBetter: true },
    ];
    const cspec = makeBoardSpec({ ...DEFAULT_BOARD, columns }).spec!;
    const part = (p: bigint, t: bigint) => encodeColumns(columns, [p, t]);
    const m = (p: bigint, t: bigint, id: string): KeyedMember => ({ playerId: id, key: 0, member: columnMember(columns, [p, t], "", id) });
    // shard A: 2 members before its window (parts (9,1) and (9,1)); window (8,5) x2, (8,6); shard B: window (8,5), (7,0)
    const ca: ShardPart = {
      shardId: "a",
      start: 2,
      members: [m(8n, 5n, "a1"), m(8n, 5n, "a2"), m(8n, 6n, "a3")],
      coveredUpTo: m(8n, 6n, "a3"),
      ties: { anchor: part(8n, 5n), below: 2, distinct: [part(9n, 1n), part(8n, 5n)] },
    };
    const cb: ShardPart = {
      shardId: "b",
      start: 0,
      members: [m(8n, 5n, "b1"), m(7n, 0n, "b2")],
      coveredUpTo: undefined,
      ties: { anchor: part(8n, 5n), below: 0, distinct: [part(8n, 5n)] },
    };
    const competition = new PageTies(cspec, "competition", [ca, cb]);
    expect(competition.of(m(8n, 5n, "b1"))).toBe(3);
    expect(competition.of(m(8n, 6n, "a3"))).toBe(1 + 2 + 2 + 1);
    expect(new PageTies(cspec, "dense", [ca, cb]).of(m(8n, 6n, "a3"))).toBe(3);
    // (7,0): A's window ends at (8,6), and A may hold more members better than (7,0) after it
    expect(() => competition.of(m(7n, 0n, "b2"))).toThrow(expect.objectContaining({ code: Code.INTERNAL }));
  });
});
