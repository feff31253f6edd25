import { describe, expect, it } from "vitest";
import { compareMembers, type KeyedMember } from "@ladder/common/score-encoding";
import { mergeTop, splitAround } from "./top-merge.js";

const m = (playerId: string, key: number): KeyedMember => ({ playerId, key });

function randomBoard(n: number, seed: number): KeyedMember[] {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  // few distinct keys: many exact ties that only the player id can break
  return Array.from({ length: n }, (_, i) => m(`p${Math.floor(rand() * 1e6)}-${i}`, Math.floor(rand() * 20)));
}

describe("router > merge top n", () => {
  it("equals the first n of the sorted union", () => {
    for (const seed of [1, 2, 3]) {
      const all = randomBoard(500, seed).sort(compareMembers);
      const shards: KeyedMember[][] = [[], [], []];
      all.forEach((e, i) => shards[(i * 7 + seed) % 3]!.push(e));
      for (const n of [1, 10, 137, 500, 600]) expect(mergeTop(shards, n)).toEqual(all.slice(0, n));
    }
  });

  it("keeps ties in player-id byte order", () => {
    expect(mergeTop([[m("b", 1)], [m("a", 1)], [m("c", 0)]], 3).map((e) => e.playerId)).toEqual(["c", "a", "b"]);
  });

  it("handles empty shards", () => {
    expect(mergeTop([[], [], []], 5)).toEqual([]);
    expect(mergeTop([[m("a", 1)], []], 5)).toEqual([m("a", 1)]);
  });
});

describe("router > split around", () => {
  it("keeps the closest entries on each side and drops the pivot", () => {
    const pivot = m("p", 5);
    const windows = [[m("a", 3), m("b", 4), m("p", 5), m("q", 6)], [m("c", 5), m("z", 5), m("d", 9)]];
    const { above, below } = splitAround(windows, pivot, 2);
    expect(above).toEqual([m("b", 4), m("c", 5)]);
    expect(below).toEqual([m("z", 5), m("q", 6)]);
  });
});
