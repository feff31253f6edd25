import { describe, expect, it } from "vitest";
import { DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { encodeSortKey, type KeyedMember } from "@ladder/model/score-encoding";
import { mergeTop, splitAround } from "./top-merge.js";

const m = (playerId: string, key: number): KeyedMember => ({ playerId, key });
const spec = makeBoardSpec(DEFAULT_BOARD).spec!;
const t0 = Date.UTC(2026, 10, 30, 12, 0, 0);

interface Standing {
  playerId: string;
  points: number;
  atMs: number;
}
/**
 * The board's order written from its definition, not from compareMembers: points descending, then the
 * time reached ascending (to the board's one-minute resolution), then player id by UTF-8 bytes.
 */
function definedOrder(a: Standing, b: Standing): number {
  if (a.points !== b.points) return a.points > b.points ? -1 : 1;
  if (a.atMs !== b.atMs) return a.atMs < b.atMs ? -1 : 1;
  return Buffer.compare(Buffer.from(a.playerId, "utf8"), Buffer.from(b.playerId, "utf8"));
}
const keyed = (s: Standing): KeyedMember => m(s.playerId, encodeSortKey(spec, s.points, s.atMs));

/** A board in the defined order, as the members a shard stores. */
function randomBoard(n: number, seed: number): KeyedMember[] {
  let s = seed;
  const rand = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  // few distinct (points, minute) pairs: many exact ties that only the player id can break, with ids
  // whose UTF-8 byte order differs from JavaScript's string order ("\uE000" vs "\u{10000}")
  const prefixes = ["p", "é", "\uE000", "\u{10000}"];
  const standings = Array.from(
    { length: n },
    (_, i): Standing => ({
      playerId: `${prefixes[Math.floor(rand() * prefixes.length)]}${Math.floor(rand() * 1e6)}-${i}`,
      points: 100 + Math.floor(rand() * 5),
      atMs: t0 + 60_000 * Math.floor(rand() * 4),
    }),
  );
  return standings.sort(definedOrder).map(keyed);
}

describe("router > merge top n", () => {
  it("equals the first n of the sorted union", () => {
    for (const seed of [1, 2, 3]) {
      const all = randomBoard(500, seed);
      const shards: KeyedMember[][] = [[], [], []];
      all.forEach((e, i) => shards[(i * 7 + seed) % 3]!.push(e));
      for (const n of [1, 10, 137, 500, 600]) expect(mergeTop(shards, n)).toEqual(all.slice(0, n));
    }
  });

  it("keeps ties in player-id byte order", () => {
    expect(mergeTop([[m("b", 1)], [m("a", 1)], [m("c", 0)]], 3).map((e) => e.playerId)).toEqual(["c", "a", "b"]);
    // UTF-8 bytes EE 80 80 before F0 90 80 80, though JavaScript's "<" says the opposite
    expect(mergeTop([[m("\u{10000}", 1)], [m("\uE000", 1)]], 2).map((e) => e.playerId)).toEqual(["\uE000", "\u{10000}"]);
  });

  it("handles empty shards", () => {
    expect(mergeTop([[], [], []], 5)).toEqual([]);
    expect(mergeTop([[m("a", 1)], []], 5)).toEqual([m("a", 1)]);
  });
});

describe("router > split around", () => {
  it("keeps the closest entries on each side and drops the pivot", () => {
    const pivot = m("p", 5);
    const windows = [
      [m("a", 3), m("b", 4), m("p", 5), m("q", 6)],
      [m("c", 5), m("z", 5), m("d", 9)],
    ];
    const { above, below } = splitAround(windows, pivot, 2);
    expect(above).toEqual([m("b", 4), m("c", 5)]);
    expect(below).toEqual([m("z", 5), m("q", 6)]);
  });

  it("lists the pivot's player once: its copy in any window is dropped, whatever its key", () => {
    // the owner's window holds the player at the pivot's key; a copy at another key must not come back
    const pivot = m("p", 5);
    const { above, below } = splitAround(
      [
        [m("a", 3), m("p", 5), m("q", 6)],
        [m("p", 2), m("c", 7)],
      ],
      pivot,
      2,
    );
    expect([...above, ...below].map((e) => e.playerId)).toEqual(["a", "q", "c"]);
  });

  it("refuses a player answered by two shards", () => {
    expect(() => splitAround([[m("a", 3), m("p", 5)], [m("a", 4)]], m("p", 5), 2)).toThrow(/answered by two shards/);
    expect(() => mergeTop([[m("a", 1), m("b", 2)], [m("a", 3)]], 3)).toThrow(/answered by two shards/);
  });

  it("equals the neighbours in the defined order of the whole board", () => {
    for (const seed of [4, 5]) {
      const all = randomBoard(300, seed);
      const shards: KeyedMember[][] = [[], [], []];
      all.forEach((e, i) => shards[(i * 5 + seed) % 3]!.push(e));
      for (const at of [0, 1, 17, 150, 298, 299]) {
        for (const radius of [1, 3, 10]) {
          const { above, below } = splitAround(shards, all[at]!, radius);
          expect(above).toEqual(all.slice(Math.max(0, at - radius), at));
          expect(below).toEqual(all.slice(at + 1, at + 1 + radius));
        }
      }
    }
  });
});
