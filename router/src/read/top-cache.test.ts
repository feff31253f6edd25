import { describe, expect, it } from "vitest";
import { TopCache, type TopRead } from "./top-cache.js";

/** A cache over a scripted reader and a hand-moved clock; each read resolves when the test says. */
function setup(o: { maxAgeMs?: number; maxBoards?: number } = {}) {
  let clock = 1000;
  const reads: Array<{ board: string; at: number; resolve: (r: TopRead) => void; reject: (e: Error) => void }> = [];
  const outcomes: string[] = [];
  const cache = new TopCache({
    maxAgeMs: o.maxAgeMs ?? 100,
    depth: 10,
    maxBoards: o.maxBoards,
    read: (board) => new Promise<TopRead>((resolve, reject) => reads.push({ board, at: clock, resolve, reject })),
    wait: (p) => p,
    count: (outcome) => outcomes.push(outcome),
    now: () => clock,
  });
  const read = (n: number): TopRead => ({
    members: Array.from({ length: 10 }, (_, i) => ({ playerId: `p${i}`, key: n * 100 + i })),
    total: n,
  });
  const page = (board: string, offset = 0, limit = 3) =>
    cache.page(board, offset, limit, Infinity, (r) => ({
      keys: r.members.slice(offset, offset + limit).map((m) => m.key),
      total: r.total,
    }));
  const tick = () => new Promise((r) => setImmediate(r));
  return { cache, reads, outcomes, page, read, tick, advance: (ms: number) => (clock += ms) };
}

describe("TopCache", () => {
  it("serves a page from one read while the read is younger than the bound, then reads again", async () => {
    const t = setup({ maxAgeMs: 100 });
    const first = t.page("b");
    t.reads[0]!.resolve(t.read(1));
    expect(await first).toEqual({ keys: [100, 101, 102], total: 1 });
    t.advance(100); // exactly the bound: still fresh
    const again = await t.page("b");
    expect(again).toBe(await first); // the same page object, built once
    expect(await t.page("b", 2, 2)).toEqual({ keys: [102, 103], total: 1 });
    expect(t.reads).toHaveLength(1);
    t.advance(1); // past the bound
    const later = t.page("b");
    expect(t.reads).toHaveLength(2);
    t.reads[1]!.resolve(t.read(2));
    expect(await later).toEqual({ keys: [200, 201, 202], total: 2 });
    expect(t.outcomes).toEqual(["refreshed", "hit", "hit", "refreshed"]);
  });

  it("shares one read among the requests that arrive while it runs, unless it began before their bound", async () => {
    const t = setup({ maxAgeMs: 100 });
    const a = t.page("b");
    t.advance(60);
    const b = t.page("b"); // the read began 60 ms before b arrived: within b's bound, b joins it
    t.advance(60);
    const c = t.page("b"); // it began 120 ms before c arrived: c must not take it, it starts its own
    expect(t.reads).toHaveLength(2);
    t.reads[0]!.resolve(t.read(1));
    t.reads[1]!.resolve(t.read(2));
    expect((await a).total).toBe(1);
    expect((await b).total).toBe(1);
    expect((await c).total).toBe(2);
    expect(t.outcomes).toEqual(["refreshed", "joined", "refreshed"]);
  });

  it("keeps the newer of two reads that end out of order", async () => {
    const t = setup({ maxAgeMs: 100 });
    const a = t.page("b");
    t.advance(150);
    const b = t.page("b");
    t.reads[1]!.resolve(t.read(2)); // the newer read ends first
    await b;
    t.reads[0]!.resolve(t.read(1));
    await a;
    expect((await t.page("b")).total).toBe(2);
    expect(t.reads).toHaveLength(2);
  });

  it("fails the requests waiting for a read that fails, keeps nothing from it, and never serves an entry past its bound instead", async () => {
    const t = setup({ maxAgeMs: 100 });
    const first = t.page("b");
    t.reads[0]!.resolve(t.read(1));
    await first;
    t.advance(101);
    const a = t.page("b");
    const b = t.page("b");
    t.reads[1]!.reject(new Error("shard-1: not serving reads"));
    await expect(a).rejects.toThrow("not serving reads");
    await expect(b).rejects.toThrow("not serving reads");
    const c = t.page("b");
    expect(t.reads).toHaveLength(3); // no stale answer: a new read
    t.reads[2]!.resolve(t.read(3));
    expect((await c).total).toBe(3);
  });

  it("keeps at most maxBoards boards, dropping the one asked least recently", async () => {
    const t = setup({ maxAgeMs: 1000, maxBoards: 2 });
    for (const board of ["x", "y"]) {
      const p = t.page(board);
      t.reads.at(-1)!.resolve(t.read(1));
      await p;
    }
    await t.page("x"); // x is now the most recent
    const z = t.page("z");
    t.reads.at(-1)!.resolve(t.read(1));
    await z;
    expect(t.cache.size).toBe(2);
    const before = t.reads.length;
    await t.page("x");
    expect(t.reads.length).toBe(before); // x kept
    void t.page("y");
    expect(t.reads.length).toBe(before + 1); // y dropped: read again
  });
});
