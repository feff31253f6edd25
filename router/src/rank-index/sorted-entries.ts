/**
 * One shard's entries of one board in the router's memory, in the board's order, with the count
 * of entries ahead of any position: the order-statistic set a rank index is made of.
 *
 * THE ORDER is the board's (model/src/score-encoding.ts): sort key ascending, then player id by
 * UTF-8 bytes (compareIds, which compares without allocating).
 *
 * THE STRUCTURE is a list of sorted blocks (the layout of Python's sortedcontainers): each block
 * holds up to 2 × LOAD entries as two parallel arrays (sort keys, player ids), every entry of a
 * block ahead of every entry of the next, and a Fenwick tree over the block sizes gives the entries
 * of the blocks before any block in O(log B). A position is found by a binary search over the
 * blocks' last entries, then one inside the block.
 *
 * THE COSTS, for n entries in B ≈ n / LOAD blocks:
 *   countAhead   O(log n): two binary searches and a Fenwick prefix sum, no allocation;
 *   slice        O(log n + k) for k entries from a position: a Fenwick descent to the block, then
 *                a walk along the blocks;
 *   add, remove  O(log n) to find, plus moving up to 2 × LOAD array slots (a memmove), plus
 *                O(log B) to update the Fenwick tree; a block that splits or empties rebuilds the
 *                tree, O(B), once per about LOAD changes at worst;
 *   memory       8 bytes per sort key (a packed double array), a pointer per id, and the id
 *                string itself, which the set keeps alive (about 40–60 bytes per entry in all for
 *                ids of a dozen characters: measured in docs/performance.md).
 * Entries are unique by (key, id): `add` of one present and `remove` of one absent change nothing
 * and say so, which is what replaying changes over a scan needs (board-copy.ts).
 */

import { compareIds } from "@ladder/model/score-encoding";

const LOAD = 512;

interface Block {
  keys: number[];
  ids: string[];
}

export class SortedEntries {
  private blocks: Block[] = [];
  /** Fenwick tree over the block sizes (1-based). */
  private tree: number[] = [0];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The entries strictly ahead of position (key, id) in the board's order. */
  countAhead(key: number, id: string): number {
    const b = this.blockOf(key, id);
    if (b === this.blocks.length) return this.count;
    return this.before(b) + this.indexIn(this.blocks[b]!, key, id);
  }

  /** Adds entry (key, id); false when it was there already. */
  add(key: number, id: string): boolean {
    if (this.blocks.length === 0) {
      this.blocks.push({ keys: [key], ids: [id] });
      this.count = 1;
      this.rebuild();
      return true;
    }
    let b = this.blockOf(key, id);
    if (b === this.blocks.length) b--; // after every entry: the last block takes it
    const block = this.blocks[b]!;
    const i = this.indexIn(block, key, id);
    if (i < block.keys.length && block.keys[i] === key && block.ids[i] === id) return false;
    block.keys.splice(i, 0, key);
    block.ids.splice(i, 0, id);
    this.count++;
    if (block.keys.length > 2 * LOAD) {
      this.blocks.splice(b + 1, 0, { keys: block.keys.splice(LOAD), ids: block.ids.splice(LOAD) });
      this.rebuild();
    } else this.bump(b, 1);
    return true;
  }

  /** Removes entry (key, id); false when it was not there. */
  remove(key: number, id: string): boolean {
    const b = this.blockOf(key, id);
    if (b === this.blocks.length) return false;
    const block = this.blocks[b]!;
    const i = this.indexIn(block, key, id);
    if (i === block.keys.length || block.keys[i] !== key || block.ids[i] !== id) return false;
    block.keys.splice(i, 1);
    block.ids.splice(i, 1);
    this.count--;
    if (block.keys.length === 0) {
      this.blocks.splice(b, 1);
      this.rebuild();
    } else this.bump(b, -1);
    return true;
  }

  clear(): void {
    this.blocks = [];
    this.tree = [0];
    this.count = 0;
  }

  /** The entries at positions from..to - 1 (0-based, in order; clipped to the set). */
  slice(from: number, to: number): Array<{ key: number; id: string }> {
    const out: Array<{ key: number; id: string }> = [];
    from = Math.max(0, from);
    to = Math.min(this.count, to);
    if (from >= to) return out;
    let [b, i] = this.locate(from);
    for (let n = to - from; n > 0; n--) {
      const block = this.blocks[b]!;
      out.push({ key: block.keys[i]!, id: block.ids[i]! });
      if (++i === block.keys.length) [b, i] = [b + 1, 0];
    }
    return out;
  }

  /** Every entry in order (O(n): a copy's keys by id when it goes live, tests). */
  *entries(): Generator<{ key: number; id: string }> {
    for (const b of this.blocks) for (let i = 0; i < b.keys.length; i++) yield { key: b.keys[i]!, id: b.ids[i]! };
  }

  /** The first block whose last entry is at or after (key, id); blocks.length when none. */
  private blockOf(key: number, id: string): number {
    let lo = 0;
    let hi = this.blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const blk = this.blocks[mid]!;
      const last = blk.keys.length - 1;
      const k = blk.keys[last]!;
      if (k < key || (k === key && compareIds(blk.ids[last]!, id) < 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first index of `block` whose entry is at or after (key, id). */
  private indexIn(block: Block, key: number, id: string): number {
    const { keys, ids } = block;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const k = keys[mid]!;
      if (k < key || (k === key && compareIds(ids[mid]!, id) < 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The block holding position `at` (0 ≤ at < size) and the index in it: a descent of the Fenwick tree. */
  private locate(at: number): [number, number] {
    let b = 0;
    let left = at;
    for (let step = 1 << Math.floor(Math.log2(this.blocks.length)); step > 0; step >>= 1) {
      const next = b + step;
      if (next <= this.blocks.length && this.tree[next]! <= left) {
        b = next;
        left -= this.tree[next]!;
      }
    }
    return [b, left];
  }

  /** Entries in blocks 0..b-1. */
  private before(b: number): number {
    let sum = 0;
    for (let i = b; i > 0; i -= i & -i) sum += this.tree[i]!;
    return sum;
  }

  private bump(b: number, by: number): void {
    for (let i = b + 1; i < this.tree.length; i += i & -i) this.tree[i]! += by;
  }

  private rebuild(): void {
    const n = this.blocks.length;
    const tree = new Array<number>(n + 1).fill(0);
    for (let i = 1; i <= n; i++) {
      tree[i]! += this.blocks[i - 1]!.keys.length;
      const j = i + (i & -i);
      if (j <= n) tree[j]! += tree[i]!;
    }
    this.tree = tree;
  }
}
