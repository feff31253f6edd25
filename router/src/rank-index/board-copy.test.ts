import { describe, expect, it } from "vitest";
import { BoardCopy, type EntryChange } from "./board-copy.js";

// A model shard: each player's sort key, its change stream, and a scan by pages from a position as
// read_after gives them (the entries strictly after (key, id), ids by UTF-8 bytes; written here apart
// from the copy's order). Mutations interleave with the pages and with the feed's deliveries at random.

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
const after = (a: { key: number; playerId: string }, b: { key: number; playerId: string }) =>
  a.key !== b.key ? a.key > b.key : byBytes(a.playerId, b.playerId) > 0;

let seed = 41;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const randInt = (n: number) => Math.floor(rand() * n);

class ModelShard {
  readonly keys = new Map<string, number>();
  readonly stream: EntryChange[] = [];

  mutate(): void {
    const player = `p${randInt(300)}`;
    const old = this.keys.get(player);
    const r = rand();
    // few distinct keys: players tie on keys and page boundaries fall among them
    const next = r < 0.15 ? undefined : randInt(25);
    if (next === old) return;
    if (next === undefined) this.keys.delete(player);
    else this.keys.set(player, next);
    this.stream.push({ player, old, new: next });
  }

  page(from: { key: number; playerId: string }, count: number): Array<{ key: number; playerId: string }> {
    return [...this.keys]
      .map(([playerId, key]) => ({ key, playerId }))
      .filter((e) => after(e, from))
      .sort((a, b) => (a.key !== b.key ? a.key - b.key : byBytes(a.playerId, b.playerId)))
      .slice(0, count);
  }
}

describe("BoardCopy", () => {
  it("holds the shard's board after a scan that raced with changes, and follows it after", () => {
    for (let run = 0; run < 300; run++) {
      const shard = new ModelShard();
      for (let i = 0; i < 200; i++) shard.mutate();
      const copy = new BoardCopy();
      let delivered = shard.stream.length; // the feed's position when the copy began
      const deliver = (upTo: number) => {
        for (; delivered < upTo; delivered++) copy.change(shard.stream[delivered]!);
      };
      const pageSize = 1 + randInt(20);
      let from = { key: -1, playerId: "" };
      for (;;) {
        for (let m = randInt(6); m > 0; m--) shard.mutate();
        if (rand() < 0.5) deliver(delivered + randInt(shard.stream.length - delivered + 1));
        const page = shard.page(from, pageSize);
        copy.scanned(page);
        if (page.length < pageSize) break;
        from = page.at(-1)!;
      }
      // the copy goes live once the feed has handed on every change up to the stream's position after the last page
      const end = shard.stream.length;
      for (let m = randInt(5); m > 0; m--) shard.mutate();
      deliver(end + randInt(shard.stream.length - end + 1));
      copy.finish();
      expect(copy.live).toBe(true);
      for (let m = randInt(40); m > 0; m--) {
        shard.mutate();
        if (rand() < 0.3) deliver(shard.stream.length);
      }
      deliver(shard.stream.length);
      expect(copy.diverged).toBe(false);
      const held = [...copy.entries.entries()].map((e) => `${e.id}=${e.key}`).sort();
      expect(held, `run ${run}`).toEqual([...shard.keys].map(([p, k]) => `${p}=${k}`).sort());
      // each player's key by id, and none for a player the shard does not hold
      for (let i = 0; i < 300; i++) expect(copy.keyOf(`p${i}`), `run ${run} p${i}`).toBe(shard.keys.get(`p${i}`));
      expect(copy.size).toBe(shard.keys.size);
      // a window at any position (its player another shard's) is the shard's, as read-window.lua reads it
      const sorted = shard.page({ key: -1, playerId: "" }, Infinity);
      for (let q = 0; q < 5; q++) {
        const at = { key: randInt(26), playerId: `q${randInt(300)}` };
        const radius = randInt(4);
        const ahead = sorted.filter((e) => after(at, e)).length;
        const start = radius > 0 ? Math.max(0, ahead - radius) : ahead;
        const members = radius > 0 ? sorted.slice(start, ahead + radius + 1) : [];
        expect(copy.window(at.key, at.playerId, radius), `run ${run}`).toEqual({ ahead, card: sorted.length, start, members });
        // what ranks the ties of a part starting at its first entry (points of 5 keys each): its points and the entries with better ones
        const first = members[0];
        const anchor = first ? Math.floor(first.key / 5) : -1;
        const below = first ? sorted.filter((e) => Math.floor(e.key / 5) < anchor).length : 0;
        expect(copy.ties({ units: 5 }, first), `run ${run}`).toEqual({ anchor, below, distinct: [] });
      }
    }
  });

  it("keeps the flag that its shard's board keeps metadata until built again", () => {
    const copy = new BoardCopy();
    expect(copy.metadata).toBe(false);
    copy.keepsMetadata();
    copy.scanned([{ key: 5, playerId: "a" }]);
    copy.finish();
    expect(copy.metadata).toBe(true);
    expect(new BoardCopy().metadata).toBe(false);
  });

  it("says it diverged when a live change does not fit what it holds", () => {
    const copy = new BoardCopy();
    copy.scanned([{ key: 5, playerId: "a" }]);
    copy.finish();
    copy.change({ player: "a", old: 5, new: 7 });
    expect(copy.diverged).toBe(false);
    copy.change({ player: "b", old: 3, new: 4 }); // b was never there
    expect(copy.diverged).toBe(true);
  });
});
