/**
 * The watched players of one board key, kept exact from the shards' changes (change-feed.ts)
 * without a read per watcher per change.
 *
 * WHAT HOLDS. The group has a position in each shard's change stream: the last change it
 * applied. An aligned watcher's rank is its exact rank on the board made of every shard as of the
 * group's position in it: 1 + the entries strictly ahead of its entry (sort key, then player id
 * bytes: the board's order, model/src/score-encoding.ts), and its total the board's size then. A
 * change of another player q from sort key o to n (either absent) moves the rank of exactly the
 * watchers between the two positions: +1 for those q is now ahead of and was not (q overtook
 * them), -1 for the opposite (they passed q); and the total by +1 for an entry added, -1 for one
 * removed. Watchers are kept in board order, so those between are found by binary search:
 * O(log W + moved) per change, whatever W.
 *
 * JOINING. A watcher's first rank, and its rank after its own entry changed (its own position
 * moved: only a read can tell what lies between), come from a read (watch-hub.ts) that returns,
 * at the same instant as the counts, each shard's newest change id (read_ranks_at). Where the group
 * is already past that id, the changes in between are applied to the watcher from the feed's
 * history; where the read is ahead of the group, the watcher waits (pending) and skips the changes
 * its read already saw. Either way it joins the others at the group's position. Its own change
 * seen in that catch-up, or history that no longer reaches back, sends it back to be read again.
 *
 * A reset of a shard's feed (it may have missed changes) sends every watcher back to be read.
 */
import type { Change } from "./change-feed.js";
import { compareChangeIds } from "./change-feed.js";
import { compareMembers } from "@ladder/model/score-encoding";

export type EventKind = "overtaken" | "passed" | "entered_top" | "left_top" | "score_changed";

export interface StandingEvent {
  kind: EventKind;
  other?: string;
  /** The watcher's rank right after it (0: no entry). */
  rank: number;
  /** Its sort key right after it (undefined: no entry). */
  key: number | undefined;
}

/** A read of one player's standing: its key (undefined: no entry), its rank, the board's size, and each shard's newest change id then. */
export interface StandingRead {
  key: number | undefined;
  rank: number;
  total: number;
  at: ReadonlyMap<string, string>;
  /** Each shard's change stream generation then: the read stands in the group's streams only if they are the feeds'. */
  gens?: ReadonlyMap<string, string>;
}

export class Watcher {
  key: number | undefined;
  rank = 0;
  /** While pending: the board's size; aligned: see Standings.totalOf. */
  total = 0;
  /** Events since the last message. */
  events: StandingEvent[] = [];
  /** Rank, key or total changed since the last message. */
  dirty = false;
  state: "reading" | "pending" | "aligned" = "reading";
  /** While pending: the change id its read stood at, per shard. */
  from = new Map<string, string>();
  totalAtAlign = 0;
  netAtAlign = 0;

  constructor(
    readonly player: string,
    readonly topK: number,
  ) {}
}

/** < 0 when (ak, ap) ranks ahead of (bk, bp): the board's order. */
const cmp = (ak: number, ap: string, bk: number, bp: string) => compareMembers({ key: ak, playerId: ap }, { key: bk, playerId: bp });

export class Standings {
  /** Aligned watchers with an entry, best first. */
  private readonly sorted: Watcher[] = [];
  /** Aligned watchers without an entry. */
  private readonly absent = new Set<Watcher>();
  private readonly pending = new Set<Watcher>();
  /** The group's position in each shard's changes. */
  readonly positions = new Map<string, string>();
  /** Entries added minus removed since the group began (aligned watchers' totals follow it). */
  private net = 0;
  /** Every watcher in the group (any state) by player: a change of one's own entry finds it in O(1). */
  private readonly byPlayer = new Map<string, Set<Watcher>>();

  /** `positions`: each shard's feed position when the group begins (feeds hand on every change of every key after it). */
  constructor(
    readonly key: string,
    positions: ReadonlyMap<string, string> = new Map(),
  ) {
    for (const [shard, at] of positions) this.positions.set(shard, at);
  }

  /** The feed of `shard` has handed on every change up to `id` (none of this key beyond those applied). */
  advance(shard: string, id: string): void {
    if (compareChangeIds(id, this.positions.get(shard) ?? "0-0") > 0) this.positions.set(shard, id);
    this.alignReady();
  }

  get size(): number {
    return this.sorted.length + this.absent.size + this.pending.size;
  }

  /** The watchers waiting for the group to reach their reads. */
  pendingWatchers(): readonly Watcher[] {
    return [...this.pending];
  }

  /** An aligned watcher's board size. */
  totalOf(w: Watcher): number {
    return w.state === "aligned" ? w.totalAtAlign + this.net - w.netAtAlign : w.total;
  }

  /**
   * Applies a batch of changes of this board key (in each shard's order); returns the watchers
   * whose own entry changed (to be read again: taken out until then) and those whose rank moved.
   */
  apply(changes: readonly Change[]): { reread: Watcher[]; moved: Set<Watcher> } {
    const reread: Watcher[] = [];
    const moved = new Set<Watcher>();
    for (const c of changes) {
      this.positions.set(c.shard, c.id);
      for (const own of this.byPlayer.get(c.player) ?? []) {
        if (own.state === "reading" || (own.state === "pending" && compareChangeIds(c.id, own.from.get(c.shard) ?? "0-0") <= 0)) continue;
        this.takeOut(own);
        own.state = "reading";
        reread.push(own);
      }
      this.net += (c.new !== undefined ? 1 : 0) - (c.old !== undefined ? 1 : 0);
      this.shiftAligned(c, moved);
      for (const w of this.pending) {
        if (w.player !== c.player && compareChangeIds(c.id, w.from.get(c.shard) ?? "0-0") > 0) applyTo(w, c); // else its read saw it
      }
    }
    this.alignReady();
    return { reread, moved };
  }

  /**
   * Takes `w` in with the standing `read` found, catching it up to the group's position from
   * `history` (the changes of this key after a shard position, oldest first; undefined when the
   * history no longer reaches back that far). Returns false when it must be read again.
   */
  join(
    w: Watcher,
    read: StandingRead,
    history: (shard: string, after: string) => readonly Change[] | undefined,
    generation?: (shard: string) => string,
  ): boolean {
    this.takeOut(w);
    // a read of another generation of a shard's stream (a swap the feed has not noticed yet) stands nowhere in it
    if (generation && read.gens && [...read.gens].some(([shard, gen]) => gen !== generation(shard))) return false;
    // the changes the group applied after the read, per shard: none may be the watcher's own
    const missed: Change[] = [];
    for (const [shard, at] of read.at) {
      const mine = this.positions.get(shard);
      if (mine === undefined || compareChangeIds(at, mine) >= 0) continue;
      const since = history(shard, at)?.filter((c) => compareChangeIds(c.id, mine) <= 0);
      if (!since || since.some((c) => c.player === w.player)) return false;
      missed.push(...since);
    }
    [w.key, w.rank, w.total] = [read.key, read.rank, read.total];
    w.from = new Map(read.at);
    w.state = "pending";
    for (const c of missed) applyTo(w, c);
    for (const [shard, at] of read.at) {
      const mine = this.positions.get(shard);
      if (mine === undefined) this.positions.set(shard, at);
      else if (compareChangeIds(at, mine) < 0) w.from.set(shard, mine);
    }
    w.state = "pending";
    this.pending.add(w);
    this.track(w);
    this.alignReady();
    return true;
  }

  /** Takes `w` out for good (its stream ended). */
  remove(w: Watcher): void {
    this.takeOut(w);
    const set = this.byPlayer.get(w.player);
    set?.delete(w);
    if (set?.size === 0) this.byPlayer.delete(w.player);
  }

  /** Counts `w` among the group's watchers (while it is read, too: a change of its own entry meanwhile is seen). */
  track(w: Watcher): void {
    const set = this.byPlayer.get(w.player) ?? new Set<Watcher>();
    set.add(w);
    this.byPlayer.set(w.player, set);
  }

  /** Takes `w` out of the aligned and pending watchers. */
  private takeOut(w: Watcher): void {
    this.pending.delete(w);
    this.absent.delete(w);
    if (w.key === undefined || w.state !== "aligned") return;
    const at = this.firstBehind(w.key, w.player) - 1;
    if (this.sorted[at] === w) this.sorted.splice(at, 1);
    else {
      const i = this.sorted.indexOf(w);
      if (i >= 0) this.sorted.splice(i, 1);
    }
  }

  /**
   * Every watcher, taken out (to be read again after a reset); the group starts over at `positions`.
   * Watchers being read are among them: a read begun before the reset may stand in the old stream.
   */
  resetAll(shard: string, position: string): Watcher[] {
    const all = [...this.byPlayer.values()].flatMap((set) => [...set]);
    this.sorted.length = 0;
    this.absent.clear();
    this.pending.clear();
    this.positions.set(shard, position);
    for (const w of all) w.state = "reading";
    return all;
  }

  /** Pending watchers whose reads the group has caught up with become aligned. */
  private alignReady(): void {
    for (const w of this.pending) {
      const behind = [...w.from].some(([shard, at]) => compareChangeIds(this.positions.get(shard) ?? "0-0", at) < 0);
      if (behind) continue;
      this.pending.delete(w);
      w.state = "aligned";
      w.totalAtAlign = w.total;
      w.netAtAlign = this.net;
      if (w.key === undefined) this.absent.add(w);
      else this.sorted.splice(this.firstBehind(w.key, w.player), 0, w);
    }
  }

  /** The index of the first sorted watcher strictly behind (key, player). */
  private firstBehind(key: number, player: string): number {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const w = this.sorted[mid]!;
      if (cmp(key, player, w.key!, w.player) < 0) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** The rank shifts of change `c` on the aligned watchers between its two positions. */
  private shiftAligned(c: Change, moved: Set<Watcher>): void {
    if (c.old === undefined && c.new === undefined) return;
    const from = c.old === undefined ? this.sorted.length : this.firstBehind(c.old, c.player);
    const to = c.new === undefined ? this.sorted.length : this.firstBehind(c.new, c.player);
    const [lo, hi] = from < to ? [from, to] : [to, from];
    for (let i = lo; i < hi; i++) {
      applyTo(this.sorted[i]!, c);
      moved.add(this.sorted[i]!);
    }
  }
}

/** What change `c` (of another player) does to `w`'s rank and total, with its events. */
function applyTo(w: Watcher, c: Change): void {
  if (w.state !== "aligned") w.total += (c.new !== undefined ? 1 : 0) - (c.old !== undefined ? 1 : 0);
  if (w.key === undefined) return;
  const wasAhead = c.old !== undefined && cmp(c.old, c.player, w.key, w.player) < 0;
  const isAhead = c.new !== undefined && cmp(c.new, c.player, w.key, w.player) < 0;
  if (wasAhead === isAhead) return;
  const before = w.rank;
  w.rank += isAhead ? 1 : -1;
  w.dirty = true;
  w.events.push({ kind: isAhead ? "overtaken" : "passed", other: c.player, rank: w.rank, key: w.key });
  if (w.topK > 0 && before <= w.topK !== w.rank <= w.topK)
    w.events.push({ kind: w.rank <= w.topK ? "entered_top" : "left_top", rank: w.rank, key: w.key });
}
