import { describe, expect, it } from "vitest";
import { SortedEntries } from "./sorted-entries.js";

// The oracle: every entry in one array, ordered by key, then the ids' UTF-8 bytes (Buffer.compare),
// written here apart from the set's own comparison.
type Held = { key: number; id: string; bytes: Buffer };
const held = (key: number, id: string): Held => ({ key, id, bytes: Buffer.from(id, "utf8") });
const order = (a: Held, b: Held) => (a.key !== b.key ? a.key - b.key : Buffer.compare(a.bytes, b.bytes));

let seed = 2026_12_05;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const randInt = (n: number) => Math.floor(rand() * n);
// ids that cross the cases UTF-16 order gets wrong: ASCII, U+E000..FFFF, and characters above U+FFFF (surrogate pairs)
const alphabet = ["a", "b", "z", "é", "\uE000", "\uFFFD", "😀", "𝄞", "\u07FF", "\u0800"];
const randomId = () => Array.from({ length: 1 + randInt(3) }, () => alphabet[randInt(alphabet.length)]).join("");

describe("SortedEntries", () => {
  it("counts the entries ahead of any position as a sorted array does, through adds and removes", () => {
    const set = new SortedEntries();
    const oracle: Held[] = [];
    const present = new Set<string>();
    const name = (e: { key: number; id: string }) => `${e.key}|${e.id}`;
    // keys from a small range, so that many entries share a key and the ids decide
    for (let step = 0; step < 30_000; step++) {
      const e = held(randInt(40) * 2 ** 30, randomId() + String(randInt(50)));
      const there = present.has(name(e));
      if (rand() < 0.62) {
        expect(set.add(e.key, e.id)).toBe(!there);
        if (!there) {
          oracle.push(e);
          present.add(name(e));
        }
      } else {
        expect(set.remove(e.key, e.id)).toBe(there);
        if (there) {
          oracle.splice(
            oracle.findIndex((o) => o.key === e.key && o.id === e.id),
            1,
          );
          present.delete(name(e));
        }
      }
      if (step % 1_000 === 0 || step === 29_999) {
        oracle.sort(order);
        expect(set.size).toBe(oracle.length);
        expect([...set.entries()]).toEqual(oracle.map(({ key, id }) => ({ key, id })));
        for (let q = 0; q < 50; q++) {
          const p = held(randInt(42) * 2 ** 30, randomId());
          const ahead = oracle.filter((o) => order(o, p) < 0).length;
          expect(set.countAhead(p.key, p.id)).toBe(ahead);
          const from = randInt(oracle.length + 4) - 2;
          const to = from + randInt(40);
          expect(set.slice(from, to)).toEqual(oracle.slice(Math.max(0, from), Math.max(0, to)).map(({ key, id }) => ({ key, id })));
        }
      }
    }
    expect(oracle.length).toBeGreaterThan(2_000); // blocks split (LOAD 512) and empty along the way
  });

  it("splits and empties blocks without losing count", () => {
    const set = new SortedEntries();
    for (let i = 0; i < 5_000; i++) expect(set.add(i, "p")).toBe(true);
    expect(set.add(2_500, "p")).toBe(false);
    for (let i = 0; i < 5_000; i += 2) expect(set.remove(i, "p")).toBe(true);
    expect(set.remove(0, "p")).toBe(false);
    expect(set.size).toBe(2_500);
    expect(set.countAhead(4_001, "p")).toBe(2_000); // 1, 3, …, 3999
    expect(set.countAhead(4_001, "q")).toBe(2_001);
    expect(set.slice(1_023, 1_027).map((e) => e.key)).toEqual([2_047, 2_049, 2_051, 2_053]); // across a block's end
    expect(set.slice(2_498, 2_600).map((e) => e.key)).toEqual([4_997, 4_999]);
    for (let i = 1; i < 5_000; i += 2) set.remove(i, "p");
    expect(set.size).toBe(0);
    expect(set.countAhead(7, "x")).toBe(0);
  });
});
