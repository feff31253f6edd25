import { describe, expect, it } from "vitest";
import type { Change } from "./change-feed.js";
import { Standings, Watcher, type StandingRead } from "./standings.js";

// A brute-force oracle: two shards, each with its own ordered changes; the board at positions
// (a0, a1) is every shard's entries after its first a_s changes. Ranks are counted by the board's
// order written out here (key ascending, then player id bytes), not by the code under test.
const KEY = "board:b";
const PLAYERS = Array.from({ length: 24 }, (_, i) => `p${String(i).padStart(2, "0")}`);
const shardOf = (p: string) => `s${Number(p.slice(1)) % 2}`;
const id = (n: number) => `1700000000000-${n}`;

function random(seed: number) {
  let a = seed;
  return (n: number) => {
    a = (Math.imul(a, 1103515245) + 12345) >>> 0;
    return (a >>> 8) % n;
  };
}

/** Every shard's changes, in order, from random moves (keys with many ties; adds and removals). */
function makeChanges(rand: (n: number) => number, count: number): Map<string, Change[]> {
  const key = new Map<string, number | undefined>();
  const out = new Map<string, Change[]>([
    ["s0", []],
    ["s1", []],
  ]);
  for (let i = 0; i < count; i++) {
    const p = PLAYERS[rand(PLAYERS.length)]!;
    const old = key.get(p);
    const next = rand(8) === 0 ? undefined : rand(12) * 10;
    if (old === next) continue;
    key.set(p, next);
    const list = out.get(shardOf(p))!;
    list.push({ shard: shardOf(p), id: id(list.length + 1), key: KEY, player: p, old, new: next });
  }
  return out;
}

/** The board at positions (changes applied per shard), as player -> key. */
function boardAt(changes: Map<string, Change[]>, at: Map<string, number>): Map<string, number> {
  const board = new Map<string, number>();
  for (const [shard, list] of changes)
    for (const c of list.slice(0, at.get(shard) ?? 0)) {
      if (c.new === undefined) board.delete(c.player);
      else board.set(c.player, c.new);
    }
  return board;
}

function oracle(board: Map<string, number>, player: string): { key: number | undefined; rank: number; total: number } {
  const key = board.get(player);
  if (key === undefined) return { key, rank: 0, total: board.size };
  const ahead = [...board].filter(([p, k]) => k < key || (k === key && Buffer.compare(Buffer.from(p), Buffer.from(player)) < 0)).length;
  return { key, rank: ahead + 1, total: board.size };
}

function readAt(changes: Map<string, Change[]>, at: Map<string, number>, player: string): StandingRead {
  const o = oracle(boardAt(changes, at), player);
  return { ...o, at: new Map([...at].map(([s, n]) => [s, id(n)])) };
}

describe("watch > standings", () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`keeps every aligned watcher's rank and total equal to the board at the group's positions (seed ${seed})`, () => {
      const rand = random(seed);
      const changes = makeChanges(rand, 400);
      const group = new Standings(
        KEY,
        new Map([
          ["s0", id(0)],
          ["s1", id(0)],
        ]),
      );
      const done = new Map([
        ["s0", 0],
        ["s1", 0],
      ]); // changes handed on per shard
      const watchers = PLAYERS.filter((_, i) => i % 3 === 0).map((p) => new Watcher(p, 5));
      const seq = (x: string) => Number(x.split("-")[1]);
      const history = (shard: string, after: string) => changes.get(shard)!.filter((c) => seq(c.id) > seq(after));
      const waiting: Watcher[] = [...watchers];
      const join = (w: Watcher) => {
        // a read stands at positions between the group's and the shards' newest: either side of the group
        const at = new Map(
          [...done].map(([s, n]): [string, number] => [s, Math.max(0, Math.min(changes.get(s)!.length, n + rand(7) - 3))]),
        );
        group.track(w);
        if (!group.join(w, readAt(changes, at, w.player), history)) waiting.push(w);
      };
      const check = () => {
        const board = boardAt(changes, done);
        for (const w of watchers.filter((x) => x.state === "aligned")) {
          expect({ player: w.player, key: w.key, rank: w.rank, total: group.totalOf(w) }).toEqual({
            player: w.player,
            ...oracle(board, w.player),
          });
        }
      };
      let steps = 0;
      while ([...done].some(([s, n]) => n < changes.get(s)!.length)) {
        while (waiting.length) join(waiting.pop()!);
        const s = rand(2) === 0 ? "s0" : "s1";
        const list = changes.get(s)!;
        const n = done.get(s)!;
        if (n >= list.length) continue;
        const batch = list.slice(n, n + 1 + rand(3));
        done.set(s, n + batch.length);
        const { reread } = group.apply(batch);
        group.advance(s, batch.at(-1)!.id);
        waiting.push(...reread);
        check();
        steps++;
      }
      while (waiting.length) join(waiting.pop()!);
      group.advance("s0", id(changes.get("s0")!.length));
      group.advance("s1", id(changes.get("s1")!.length));
      check();
      expect(watchers.every((w) => w.state === "aligned")).toBe(true);
      expect(steps).toBeGreaterThan(50);
    });
  }

  it("tells a watcher who overtook it and whom it passed, and when it enters or leaves the top K", () => {
    const group = new Standings(KEY, new Map([["s0", id(0)]]));
    const w = new Watcher("w", 2);
    group.track(w);
    // w at key 50 behind a (10) and b (20): rank 3 of 3
    expect(group.join(w, { key: 50, rank: 3, total: 3, at: new Map([["s0", id(0)]]) }, () => [])).toBe(true);
    group.apply([{ shard: "s0", id: id(1), key: KEY, player: "b", old: 20, new: 90 }]);
    expect({ rank: w.rank, events: w.events.map((e) => [e.kind, e.other ?? "", e.rank]) }).toEqual({
      rank: 2,
      events: [
        ["passed", "b", 2],
        ["entered_top", "", 2],
      ],
    });
    w.events = [];
    group.apply([{ shard: "s0", id: id(2), key: KEY, player: "c", old: undefined, new: 5 }]);
    expect({ rank: w.rank, total: group.totalOf(w), events: w.events.map((e) => [e.kind, e.other ?? "", e.rank]) }).toEqual({
      rank: 3,
      total: 4,
      events: [
        ["overtaken", "c", 3],
        ["left_top", "", 3],
      ],
    });
    // its own change: taken out to be read again
    const { reread } = group.apply([{ shard: "s0", id: id(3), key: KEY, player: "w", old: 50, new: 1 }]);
    expect(reread).toEqual([w]);
  });

  it("sends every watcher back to be read on a reset, the ones being read included", () => {
    const group = new Standings(KEY, new Map([["s0", id(0)]]));
    const [joined, reading] = [new Watcher("a", 1), new Watcher("b", 1)];
    for (const w of [joined, reading]) group.track(w);
    expect(group.join(joined, { key: 10, rank: 1, total: 2, at: new Map([["s0", id(0)]]) }, () => [])).toBe(true);
    expect([joined.state, reading.state]).toEqual(["aligned", "reading"]);
    // b's read was begun before the reset: it may stand in the old stream, so it is asked again too
    expect(new Set(group.resetAll("s0", id(7)))).toEqual(new Set([joined, reading]));
    expect([joined.state, reading.state, group.size, group.positions.get("s0")]).toEqual(["reading", "reading", 0, id(7)]);
  });
});
