/**
 * The router's watchers (issue #12, WatchTop and WatchPlayer): one change feed per shard of the
 * placement in force (change-feed.ts), started with the first watcher, and per watched board key
 * the watched players' standings (standings.ts) and the top watchers' interest. Every batch a
 * feed hands on goes, by board key, to that key's standings (rank shifts, events) and marks that
 * key's tops dirty when a change can touch them; watchers are told through `notify`, and send at
 * their own pace (watch-streams.ts). Reads go straight to the shards, never through a cache:
 * each message is exact when it is made.
 *
 * A player's standing is read (readStanding) at one instant per shard together with that shard's
 * newest change id (read_ranks_at): its owner first (its key), then the others (the entries ahead
 * of that key). A read that fails is tried again with backoff while its stream is open.
 *
 * A reset of a feed, and a new placement (feeds are started again for its shards), send every
 * watcher back to be read; their next message says it was resynced.
 */
import type { Logger } from "@ladder/platform/logger";
import { keyLayout } from "@ladder/store";
import { compareChangeIds, shardFeed, type Change, type ChangeFeed } from "./change-feed.js";
import { Standings, type StandingRead, type Watcher } from "./standings.js";
import type { ShardPool } from "../read/shard-pool.js";
import { readFloor, type BelowFloor } from "../read/floor-read.js";
import type { BoardSpec } from "@ladder/model/board-spec";

/** Changes kept per shard for watchers that join behind the group's position. */
const HISTORY = 20_000;
const READ_RETRY_MIN_MS = 100;
const READ_RETRY_MAX_MS = 2_000;

/** One watched player's subscription: its watcher and how to tell its stream something changed. */
export interface PlayerWatch {
  readonly watcher: Watcher;
  /** The board key (full Redis key) watched. */
  readonly key: string;
  /** The stored board name the standings are read from. */
  readonly stored: string;
  /** Called when the watcher has something new (dirty, events, or read again). */
  notify(): void;
  /** True once the watch ended: reads for it stop. */
  readonly ended: boolean;
  /** Set when the watcher was read again after a reset (the next message says so). */
  resynced: boolean;
}

/** One top subscription. */
export interface TopWatch {
  readonly key: string;
  /** The last top sent: its last entry's position, and whether it was full (limit entries). */
  boundary: { key: number; playerId: string } | undefined;
  full: boolean;
  dirty: boolean;
  notify(): void;
}

interface Shard {
  feed: ChangeFeed;
  history: Change[];
}

export class WatchHub {
  private shards = new Map<string, Shard>();
  private epoch = -1;
  private starting: Promise<void> | undefined;
  private readonly groups = new Map<string, Standings>();
  private readonly players = new Map<Watcher, PlayerWatch>();
  private readonly tops = new Map<string, Set<TopWatch>>();
  /** Watchers being read, with how many times they were asked again meanwhile. */
  private readonly reading = new Map<Watcher, number>();
  private readonly keys;
  /** Standings are read on the primaries: the change streams are theirs. */
  private readonly primaries: ShardPool;

  constructor(private readonly o: { pool: ShardPool; keyPrefix: string; log: Logger }) {
    this.keys = keyLayout(o.keyPrefix);
    this.primaries = o.pool.primaries();
  }

  /** The full Redis key of a stored board name. */
  keyOf(stored: string): string {
    return this.keys.board(stored);
  }

  /** Feeds running for the placement in force (started again when it changed). */
  async ready(): Promise<void> {
    while (this.epoch !== this.o.pool.epoch) await (this.starting ??= this.startFeeds().finally(() => (this.starting = undefined)));
  }

  private async startFeeds(): Promise<void> {
    const placement = this.o.pool.placement;
    const old = [...this.shards.values()];
    this.shards = new Map();
    await Promise.all(old.map((s) => s.feed.stop()));
    const started = await Promise.all(
      placement.shards.map(async (s) => {
        const feed = shardFeed(s, this.keys, {
          login: this.o.pool.login,
          log: this.o.log,
          onChanges: (changes) => this.onChanges(changes),
          onReset: (shard, position, why) => this.onReset(shard, position, why),
        });
        await feed.start();
        return [s.id, { feed, history: [] as Change[] }] as [string, Shard];
      }),
    );
    this.shards = new Map(started);
    this.epoch = placement.epoch;
    if (old.length) for (const [id, s] of this.shards) this.onReset(id, s.feed.at, `placement epoch ${placement.epoch}`);
  }

  /** The placement changed: the feeds follow it (every watcher read again) if any watcher is held. */
  onPlacement(): void {
    if (this.players.size > 0 || this.tops.size > 0)
      void this.ready().catch((err: unknown) => this.o.log.warn({ err }, "change feeds not restarted for the new placement"));
  }

  /** Starts watching `w` on `stored` (its first standing is read at once). */
  async addPlayer(watch: PlayerWatch): Promise<void> {
    await this.ready();
    let group = this.groups.get(watch.key);
    if (!group) this.groups.set(watch.key, (group = new Standings(watch.key, new Map([...this.shards].map(([id, s]) => [id, s.feed.at])))));
    group.track(watch.watcher);
    this.players.set(watch.watcher, watch);
    void this.read(watch, group);
  }

  removePlayer(watch: PlayerWatch): void {
    this.players.delete(watch.watcher);
    const group = this.groups.get(watch.key);
    group?.remove(watch.watcher);
    if (group && group.size === 0 && ![...this.players.values()].some((p) => p.key === watch.key)) this.groups.delete(watch.key);
    this.stopIfIdle();
  }

  async addTop(watch: TopWatch): Promise<void> {
    await this.ready();
    const set = this.tops.get(watch.key) ?? new Set<TopWatch>();
    set.add(watch);
    this.tops.set(watch.key, set);
  }

  removeTop(watch: TopWatch): void {
    const set = this.tops.get(watch.key);
    set?.delete(watch);
    if (set?.size === 0) this.tops.delete(watch.key);
    this.stopIfIdle();
  }

  /** The floor of `stored` on the primaries (the standings' shards), read now: a message shows no rank below it (floor-read.ts). */
  floorOf(stored: string, spec: BoardSpec): Promise<BelowFloor> {
    return readFloor(this.primaries, this.primaries.scope("").stores, spec, stored, Infinity);
  }

  /** A watched player's board size, as of the group's position. */
  totalOf(watch: PlayerWatch): number {
    return this.groups.get(watch.key)?.totalOf(watch.watcher) ?? watch.watcher.total;
  }

  /** Watchers held (for metrics and tests). */
  get watchers(): { players: number; tops: number } {
    return { players: this.players.size, tops: [...this.tops.values()].reduce((n, s) => n + s.size, 0) };
  }

  private stopIfIdle(): void {
    if (this.players.size > 0 || this.tops.size > 0) return;
    const feeds = [...this.shards.values()];
    this.shards = new Map();
    this.epoch = -1;
    for (const s of feeds) void s.feed.stop();
  }

  private onChanges(changes: readonly Change[]): void {
    const shard = this.shards.get(changes[0]!.shard);
    if (shard) {
      shard.history.push(...changes);
      if (shard.history.length > HISTORY) shard.history.splice(0, shard.history.length - HISTORY);
    }
    // watchers waiting for the groups to reach their reads: told when they join (apply or advance aligns them)
    const waiting = [...this.groups.values()].flatMap((g) => g.pendingWatchers());
    const byKey = new Map<string, Change[]>();
    for (const c of changes) {
      if (!this.groups.has(c.key) && !this.tops.has(c.key)) continue;
      const list = byKey.get(c.key) ?? [];
      list.push(c);
      byKey.set(c.key, list);
    }
    for (const [key, list] of byKey) {
      const group = this.groups.get(key);
      if (group) {
        const { reread, moved } = group.apply(list);
        for (const w of reread) this.reread(w, group);
        for (const w of moved) this.players.get(w)?.notify();
      }
      for (const t of this.tops.get(key) ?? []) if (list.some((c) => touchesTop(t, c))) (t.dirty = true), t.notify();
    }
    // every group has now seen all of this shard's changes up to the batch's last (pending watchers may align)
    const last = changes.at(-1)!;
    for (const group of this.groups.values()) group.advance(last.shard, last.id);
    for (const w of waiting) if (w.state === "aligned") this.players.get(w)?.notify();
  }

  private onReset(shard: string, position: string, why: string): void {
    // the history before a reset is another stream's (or has a gap): no read may be caught up from it
    const s = this.shards.get(shard);
    if (s) s.history.length = 0;
    for (const group of this.groups.values())
      for (const w of group.resetAll(shard, position)) {
        const watch = this.players.get(w);
        if (watch) (watch.resynced = true), this.reread(w, group);
      }
    for (const set of this.tops.values()) for (const t of set) (t.dirty = true), t.notify();
    this.o.log.info({ shard, why }, "watchers read again");
  }

  private reread(w: Watcher, group: Standings): void {
    const watch = this.players.get(w);
    if (watch) void this.read(watch, group);
  }

  /**
   * Reads `watch`'s standing and joins it to its group, again until it sticks or the watch ends.
   * One read per watcher at a time: asked again while one runs, the running one's answer is
   * dropped and it reads again (a later change of its own may postdate it).
   */
  private async read(watch: PlayerWatch, group: Standings): Promise<void> {
    const again = this.reading.get(watch.watcher);
    if (again !== undefined) return void this.reading.set(watch.watcher, again + 1);
    this.reading.set(watch.watcher, 0);
    try {
      await this.readUntilJoined(watch, group);
    } finally {
      this.reading.delete(watch.watcher);
    }
  }

  private async readUntilJoined(watch: PlayerWatch, group: Standings): Promise<void> {
    for (let pause = READ_RETRY_MIN_MS; !watch.ended && this.players.has(watch.watcher); pause = Math.min(READ_RETRY_MAX_MS, pause * 2)) {
      try {
        const asked = this.reading.get(watch.watcher)!;
        const read = await this.readStanding(watch.stored, watch.watcher.player);
        if (watch.ended) return;
        if (this.reading.get(watch.watcher) !== asked || watch.watcher.state !== "reading") {
          pause = READ_RETRY_MIN_MS / 2; // asked again meanwhile: this answer may predate its own change
          continue;
        }
        if (
          group.join(
            watch.watcher,
            read,
            (shard, after) => this.history(shard, watch.key, after),
            (shard) => this.shards.get(shard)?.feed.generation ?? "",
          )
        ) {
          watch.watcher.dirty = true;
          watch.notify();
          return;
        }
      } catch (err) {
        this.o.log.debug({ err: (err as Error).message, player: watch.watcher.player }, "standing read failed; trying again");
      }
      await new Promise((r) => setTimeout(r, pause));
    }
  }

  /** The changes of `key` after `after` on `shard`, oldest first; undefined when the history does not reach back that far. */
  private history(shard: string, key: string, after: string): readonly Change[] | undefined {
    const h = this.shards.get(shard)?.history;
    if (!h) return undefined;
    const feedStart = h.length === 0 ? this.shards.get(shard)!.feed.at : h[0]!.id;
    if (h.length >= HISTORY && compareChangeIds(after, feedStart) < 0) return undefined;
    return h.filter((c) => c.key === key && compareChangeIds(c.id, after) > 0);
  }

  /** A player's standing at one instant per shard, with each shard's newest change id then. */
  async readStanding(stored: string, player: string): Promise<StandingRead> {
    const scope = this.primaries.scope("");
    const owner = scope.ownerOf(player);
    const own = await this.primaries.call(owner, (s) => s.ranksAt(stored, [player], []));
    const mine = own.own[0];
    const position = mine ? [{ key: mine.key, playerId: player }] : [];
    const others = await this.primaries.fanOut(scope.othersOf(owner), (s) => s.ranksAt(stored, [], position));
    const ids = scope.othersOf(owner).map((s) => s.shardId);
    const at = new Map([[owner.shardId, own.changeId], ...others.map((r, i): [string, string] => [ids[i]!, r.changeId])]);
    const gens = new Map([[owner.shardId, own.changeGen], ...others.map((r, i): [string, string] => [ids[i]!, r.changeGen])]);
    const total = own.card + others.reduce((n, r) => n + r.card, 0);
    if (!mine) return { key: undefined, rank: 0, total, at, gens };
    return { key: mine.key, rank: 1 + mine.ahead + others.reduce((n, r) => n + r.aheadOf[0]!, 0), total, at, gens };
  }

  async stop(): Promise<void> {
    const feeds = [...this.shards.values()];
    this.shards = new Map();
    await Promise.all(feeds.map((s) => s.feed.stop()));
  }
}

/** Whether change `c` can change the top `t` last sent. */
function touchesTop(t: TopWatch, c: Change): boolean {
  if (!t.full || !t.boundary) return true;
  const within = (key: number | undefined) =>
    key !== undefined &&
    (key < t.boundary!.key || (key === t.boundary!.key && Buffer.compare(Buffer.from(c.player), Buffer.from(t.boundary!.playerId)) <= 0));
  return within(c.old) || within(c.new);
}
