/**
 * One board of one shard copied into the router's memory: a scan of the board, then the shard's
 * change stream (router/src/push/change-feed.ts) applied as it comes.
 *
 * WHY A SCAN AND A REPLAY GIVE THE SHARD'S BOARD. The copy starts buffering the board's changes
 * the moment it is made, with the shard's change feed already running (every change after the
 * feed's position reaches it, in the shard's order), and only then reads the board page by page
 * (ShardReader.after, from one position to the next). The pages are read while the board moves, so
 * a player may be read at a value it held for a moment, read twice (it moved past the page
 * boundary), or not at all (it moved behind the pages read). None of that matters once the scan is
 * done and the buffered changes are replayed in order over it, each as "remove (old, player) if
 * there, add (new, player) if not there":
 *   - a player whose entry did not change since the copy began keeps its position, so exactly one
 *     page holds it, at its value, and no change touches it;
 *   - a player whose entry changed went through values a0 → a1 → … → ak (ak absent when it was
 *     removed), each change in the buffer. Every value a page read of it is one of those it held
 *     at the time, ai with i < k, or ak; the change that left ai removes it, and only a later
 *     change back to the same value could add it again, which a still later change removes
 *     unless it is ak. The change to ak adds it, and nothing after removes it.
 * The replay must hold every change made up to the last page read: the copy is finished only once
 * the feed has handed on the stream's position read after the last page (a change made before a
 * page read but handed on after the finish would be applied again, live). So after the replay the
 * copy holds exactly what the shard held at the feed's position; from then on each change applies exactly (`live`): a change that removes an entry the copy does not
 * hold, or adds one it holds, means the copy no longer stands for the shard (`diverged`), and the
 * rank index builds it again (board-copy.test.ts replays random interleavings against a model).
 *
 * EACH PLAYER'S KEY. Once live, the copy also holds each player's sort key by id (`keyOf`: GetRanks
 * asks whether the copy stands where the owner's live read stands, read/ranks.ts). It is made from the
 * entries when the copy goes live (during the scan a player may be held twice), then kept with every
 * live change: a player holds one entry at a time, so the map is the entries by id. About 50 bytes per
 * entry more in the router.
 *
 * METADATA is not copied: the change stream carries sort keys only. A copy knows whether its shard's
 * board keeps any (`metadata`): the shard says so in the probe read after the scan (and in every
 * probe after), and the apply script appends a marker to the stream (board key + "!meta") before
 * the change of the entry the board's first metadata came with; any of them sets the flag until the
 * copy is built again. A window of a copy that keeps none is
 * then the shard's window exactly (read-window.lua's, less the empty metadata), with what ranks its
 * ties under competition ranks (read_ties'); GetAround uses copies only then (read/queries.ts).
 */
import { tieFloor, tieValueOf, type KeyedMember, type TieScale } from "@ladder/model/score-encoding";
import type { WindowResult, WindowTies } from "@ladder/store";
import { SortedEntries } from "./sorted-entries.js";

/** A change of one player's entry: its sort key before and after, undefined when absent. */
export interface EntryChange {
  player: string;
  old: number | undefined;
  new: number | undefined;
}

export class BoardCopy {
  readonly entries = new SortedEntries();
  /** Each player's sort key, once live. */
  private readonly keys = new Map<string, number>();
  /** The changes that came during the scan, replayed when it ends; undefined once live. */
  private buffered: EntryChange[] | undefined = [];
  private wrong = false;
  private withMetadata = false;

  /** Scanned and replayed: it holds what the shard holds at the feed's position (unless diverged). */
  get live(): boolean {
    return this.buffered === undefined;
  }

  /** A change applied while live did not fit: the copy must be built again. */
  get diverged(): boolean {
    return this.wrong;
  }

  /** Whether the shard's board keeps metadata, which the copy does not hold (see above). */
  get metadata(): boolean {
    return this.withMetadata;
  }

  /** The shard's board keeps metadata: said by a probe or by the change stream's marker. */
  keepsMetadata(): void {
    this.withMetadata = true;
  }

  /**
   * The shard's window at position (key, id), as read-window.lua reads it: the entries strictly
   * ahead, the size, and the entries from `radius` before the position to `radius` after it (the
   * position itself is not the shard's: its player is another shard's).
   */
  window(key: number, id: string, radius: number): WindowResult {
    const ahead = this.entries.countAhead(key, id);
    if (radius <= 0) return { ahead, card: this.entries.size, start: ahead, members: [] };
    const start = Math.max(0, ahead - radius);
    const members = this.entries.slice(start, ahead + radius + 1).map((e) => ({ playerId: e.id, key: e.key }));
    return { ahead, card: this.entries.size, start, members };
  }

  /**
   * What read_ties reads with a page's part whose first entry is `first` (competition ranks: no
   * distinct values): that entry's tie value and the entries with a smaller one; anchor -1 when the
   * part holds none (router/src/read/page-ties.ts).
   */
  ties(scale: TieScale, first: KeyedMember | undefined): WindowTies {
    if (!first) return { anchor: -1, below: 0, distinct: [] };
    const anchor = tieValueOf(scale, first);
    const floor = tieFloor(scale, anchor);
    return { anchor, below: this.entries.countAhead(floor.key, floor.playerId), distinct: [] };
  }

  /** The entries of the copy (its shard's, as of the feed's position). */
  get size(): number {
    return this.entries.size;
  }

  /** The entries strictly ahead of position (key, id). */
  countAhead(key: number, id: string): number {
    return this.entries.countAhead(key, id);
  }

  /** The sort key of `id`'s entry, undefined when it has none (asked only while live). */
  keyOf(id: string): number | undefined {
    return this.keys.get(id);
  }

  /** Entries a page of the scan read. */
  scanned(page: ReadonlyArray<{ key: number; playerId: string }>): void {
    for (const e of page) this.entries.add(e.key, e.playerId);
  }

  /** A change of the board, in the shard's order. */
  change(c: EntryChange): void {
    if (this.buffered) {
      this.buffered.push(c);
      return;
    }
    if (c.old !== undefined && !this.entries.remove(c.old, c.player)) this.wrong = true;
    if (c.new !== undefined && !this.entries.add(c.new, c.player)) this.wrong = true;
    if (c.new !== undefined) this.keys.set(c.player, c.new);
    else if (this.keys.get(c.player) === c.old) this.keys.delete(c.player);
  }

  /** The scan is done: the buffered changes are replayed over it (see above), and the copy is live. */
  finish(): void {
    for (const c of this.buffered ?? []) {
      if (c.old !== undefined) this.entries.remove(c.old, c.player);
      if (c.new !== undefined) this.entries.add(c.new, c.player);
    }
    this.buffered = undefined;
    for (const e of this.entries.entries()) {
      if (this.keys.has(e.id)) this.wrong = true; // a player twice: the replay did not give the shard's board
      this.keys.set(e.id, e.key);
    }
  }
}
