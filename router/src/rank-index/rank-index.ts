/**
 * The rank index (LADDER_RANK_INDEX_BOARDS): the router's own copy of every shard's entries of the
 * boards named, so that an exact rank asks one shard, not all of them.
 *
 * WHY. A global rank is 1 + the entries ahead of the player on every shard (read/rank-batch.ts):
 * every rank query reads every shard, so a cluster's rank capacity is what one shard answers,
 * however many shards it has. With the index, a GetRank reads its player's owner as before (its
 * key, its rank on its shard, its metadata, at one instant) and counts the entries ahead of that
 * key on every other shard in this router's memory: one Redis read per rank query, so rank
 * capacity grows with the shards, and with the routers, each holding its own copy. GetRanks reads
 * its players' owners and, when each owner's copy stands where the owner does for every player asked,
 * counts every shard in the copies (read/ranks.ts, FROM THE RANK INDEX). GetAround reads its player's
 * owner and takes every other shard's window from its copy, on boards whose copies keep no metadata
 * (read/queries.ts, AROUND FROM THE RANK INDEX).
 *
 * WHAT IT HOLDS. Per shard of the placement in force, one change feed (push/change-feed.ts: the
 * shard's change stream, which the apply script appends to in the same atomic call as each
 * change) and, per board asked, a BoardCopy (board-copy.ts: a scan, then the changes) in a
 * SortedEntries (sorted-entries.ts: count ahead in O(log n)). A board's copies start with its first
 * GetRank, GetRanks or GetAround (and again at once for every new placement); until they are live those reads ask the
 * shards. A board no GetRank, GetRanks or GetAround asked for 10 minutes is dropped (deleted, or defined again under a new
 * generation's name).
 *
 * WHEN A COPY ANSWERS FOR ITS SHARD: as a replica does (read/replicas.ts), within a stated lag.
 * Every probe interval (a fifth of LADDER_RANK_INDEX_MAX_LAG_MS, 20 ms to 1 s) the index reads, on
 * each shard's primary, at one instant and under the shard's serving check (stamp, heartbeat,
 * catch-up: read-header.lua), the size of each copied board and the change stream's newest id
 * (ShardReader.indexProbe). Once the feed has handed on that id, the copy holds everything the
 * shard held when the probe was sent: it is current as of then. A copy answers only while it is
 * live, current as of at most the lag bound ago, and the shard is not in the middle of a move (a
 * move's arrivals are not in the change stream; the copy is built again after the move). A probe
 * the shard refuses (not serving, another placement) stops its copies at once; one that fails
 * leaves them to age past the bound. So a count from the index is the exact count of the shard as
 * it was at some instant at most the lag bound ago, under the same serving rules as a read: the
 * answer is exact against the board made of the owner as read now and every other shard at such
 * an instant, as a fan-out's is against every shard at the instant it answered.
 *
 * SELF-CHECK. When the feed stands exactly at a probe's id, each live copy must hold as many
 * entries as the probe read; a copy that differs, or took a live change that did not fit
 * (board-copy.ts), is built again and counted (ladder_router_rank_index_rebuilds_total). A feed
 * reset (the shard's data swapped by a rebuild, a flush, a failover, changes trimmed away) and a
 * new placement build every copy of the shards concerned again.
 *
 * HOW MUCH IT HOLDS. At most LADDER_RANK_INDEX_MAX_ENTRIES entries over every copy (by default a third
 * of the V8 heap limit at about 160 bytes an entry): before a copy is scanned, its shard's size is read
 * and counted against that, with the live copies and the scans under way; a board that does not fit
 * is read through the shards, and asked again after REFUSED_MS. After each probe, while the copies
 * hold more (boards grow), the largest board's copies are dropped the same way. A router never runs
 * out of heap for its copies; a board too large for it answers as without the index.
 *
 * WHAT IT COSTS. Router memory per entry (SortedEntries); one connection per shard for the feed;
 * while any router follows a shard's changes, the shard's apply script appends every change it
 * makes to the stream (as with WatchTop and WatchPlayer). Reads with a consistency token, of an
 * audit view, of a period or window, and of boards whose entries also change without the stream
 * (a period's expiry, retention) never use the index (`indexable`).
 */
import { performance } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";
import type { BoardSpec } from "@ladder/model/board-spec";
import type { KeyedMember } from "@ladder/model/score-encoding";
import type { Logger } from "@ladder/platform/logger";
import { keyLayout, type RanksResult } from "@ladder/store";
import { compareChangeIds, shardFeed, type Change, type ChangeFeed } from "../push/change-feed.js";
import type { LocalCounts } from "../read/rank-batch.js";
import type { BoardCopies } from "../read/ranks.js";
import type { ShardStore } from "../read/shard-calls.js";
import type { ShardPool } from "../read/shard-pool.js";
import { routerMetrics } from "../metrics.js";
import { BoardCopy } from "./board-copy.js";

/** The suffix of a board key's metadata companion: a change with its key marks the board as keeping metadata (apply-metadata.lua). */
const META = "!meta";
/** Entries a scan reads per page (one script call; about a millisecond of Redis for 4,096). */
const PAGE = 4_096;
const RETRY_MS = 500;
/** Probes kept while the feed catches up with them. */
const SAMPLES = 64;
/** How long a board whose copies did not fit LADDER_RANK_INDEX_MAX_ENTRIES is read through the shards before the index tries again. */
const REFUSED_MS = 60_000;
/** Heap an entry of a copy takes, about (a copy's key and id in order, and the key by id: docs/performance.md). */
const ENTRY_BYTES = 160;

/**
 * LADDER_RANK_INDEX_MAX_ENTRIES when 0: a third of this process's V8 heap limit at ENTRY_BYTES an
 * entry (Node sizes the heap to the machine's memory, or to its container's limit: 524 MiB in 1 GiB).
 */
export function defaultMaxEntries(): number {
  return Math.floor(getHeapStatistics().heap_size_limit / 3 / ENTRY_BYTES);
}

/** A board no GetRank, GetRanks or GetAround asked of the index for this long is no longer copied (a board deleted, or defined again under another name). */
const IDLE_MS = 10 * 60_000;

export interface RankIndexOptions {
  /** The router's pool: the placement in force; the index reads the primaries (the change streams are theirs). */
  pool: ShardPool;
  keyPrefix: string;
  /** The board names whose ranks the index answers (LADDER_RANK_INDEX_BOARDS). */
  boards: ReadonlySet<string>;
  /** How old a copy's last catch-up with a probe may be for it to answer (LADDER_RANK_INDEX_MAX_LAG_MS). */
  maxLagMs: number;
  /** Entries the copies hold at most, over every board and shard (LADDER_RANK_INDEX_MAX_ENTRIES, or defaultMaxEntries()). */
  maxEntries: number;
  log: Logger;
}

/** Why a board's reads cannot use the index, or undefined when they can: its entries must change only through the change stream. */
export function indexable(spec: BoardSpec): string | undefined {
  if (spec.period.kind !== "none" || spec.ttlSeconds > 0) return "its keys expire (periods)";
  if (spec.windows.length > 0) return "it has windows";
  if (spec.retention.keepTop > 0 || spec.retention.expireInactiveMs > 0) return "retention removes its entries";
  if (spec.columns) return "it has columns (its entries are in no change stream)";
  return undefined;
}

export class RankIndex implements LocalCounts, BoardCopies {
  private epoch = -1;
  private shards = new Map<string, ShardCopy>();
  private starting: Promise<void> | undefined;
  private stopped = false;
  /** The stored boards GetRank, GetRanks or GetAround asked of the index, with when: copied again on every placement unless idle. */
  private readonly wanted = new Map<string, number>();
  private readonly primaries: ShardPool;
  private readonly probeMs: number;
  /** Entries of the copies being scanned, counted against maxEntries before they are held. */
  private reserved = 0;

  constructor(private readonly o: RankIndexOptions) {
    this.primaries = o.pool.primaries();
    this.probeMs = Math.min(1_000, Math.max(20, Math.floor(o.maxLagMs / 5)));
  }

  /** Whether GetRank, GetRanks and GetAround of `board` may count from the index. */
  covers(board: string, spec: BoardSpec): boolean {
    return this.o.boards.has(board) && indexable(spec) === undefined;
  }

  /** The counts of `store`'s shard ahead of `positions` on `stored`, from its copy; undefined when it has none that may answer. */
  ranks(store: { shardId: string }, stored: string, positions: readonly KeyedMember[]): RanksResult | undefined {
    if (!this.asked(stored)) return undefined;
    const copy = this.shards.get(store.shardId)?.answering(stored);
    routerMetrics()
      .rankIndexOf(copy ? "index" : "shard")
      .inc(positions.length);
    if (!copy) return undefined;
    return { card: copy.entries.size, own: [], aheadOf: positions.map((p) => copy.entries.countAhead(p.key, p.playerId)) };
  }

  /** The copies of `stored` of every store of `stores` (in order) when each may answer for its shard now (GetRanks: read/ranks.ts). */
  copiesOf(stores: readonly { shardId: string }[], stored: string): BoardCopy[] | undefined {
    if (!this.asked(stored)) return undefined;
    // every shard asked, so that a board not copied yet starts being copied on each
    const copies = stores.map((s) => this.shards.get(s.shardId)?.answering(stored));
    return copies.every((c) => c !== undefined) ? copies : undefined;
  }

  /** Notes that `stored` was asked of the index; false (and the copies of the new placement started) when the copies are not of the placement in force. */
  private asked(stored: string): boolean {
    this.wanted.set(stored, performance.now());
    if (this.epoch === this.o.pool.epoch) return true;
    this.follow();
    return false;
  }

  /**
   * Whether `entries` more fit within maxEntries, with the copies held and those being scanned; if so
   * they are counted as being scanned until `release` is called.
   */
  private room(entries: number): { release(): void } | undefined {
    let live = 0;
    for (const s of this.shards.values()) live += s.liveSize;
    if (live + this.reserved + entries > this.o.maxEntries) return undefined;
    this.reserved += entries;
    let released = false;
    return {
      release: () => {
        if (!released) this.reserved -= entries;
        released = true;
      },
    };
  }

  /** After each probe: the entries held, and the largest board dropped (read through the shards) while they are more than maxEntries. */
  private checkBudget(): void {
    const held = this.size;
    routerMetrics().rankIndexEntries.set(held);
    if (held <= this.o.maxEntries) return;
    const byBoard = new Map<string, number>();
    for (const shard of this.shards.values())
      for (const [stored, n] of shard.boardSizes()) byBoard.set(stored, (byBoard.get(stored) ?? 0) + n);
    const [largest, n] = [...byBoard].reduce((a, b) => (b[1] > a[1] ? b : a));
    const why = `the copies hold ${held} entries, more than LADDER_RANK_INDEX_MAX_ENTRIES (${this.o.maxEntries}); "${largest}" alone ${n}`;
    for (const shard of this.shards.values()) shard.refuse(largest, why);
  }

  /** Entries held over every copy. */
  get size(): number {
    let n = 0;
    for (const s of this.shards.values()) n += s.size;
    return n;
  }

  /** Copies for the placement in force (started again when it changed). */
  private follow(): void {
    if (this.stopped) return;
    this.starting ??= this.restart()
      .catch((err: unknown) => this.o.log.warn({ err }, "rank index not started for the placement; trying again at the next read"))
      .finally(() => (this.starting = undefined));
  }

  private async restart(): Promise<void> {
    const placement = this.o.pool.placement;
    const old = [...this.shards.values()];
    this.shards = new Map();
    await Promise.all(old.map((s) => s.stop()));
    const keys = keyLayout(this.o.keyPrefix);
    const started = await Promise.all(
      placement.shards.map(async (s) => {
        const copy = new ShardCopy({
          shard: s.id,
          store: () => this.primaries.scope("").stores.find((x) => x.shardId === s.id),
          primaries: this.primaries,
          feed: (handlers) => shardFeed(s, keys, { login: this.o.pool.login, log: this.o.log, ...handlers }),
          keyOf: (stored) => keys.board(stored),
          room: (entries) => this.room(entries),
          afterProbe: () => this.checkBudget(),
          maxLagMs: this.o.maxLagMs,
          probeMs: this.probeMs,
          log: this.o.log.child({ shard: s.id }),
        });
        await copy.start();
        return [s.id, copy] as const;
      }),
    );
    if (this.stopped || this.o.pool.epoch !== placement.epoch) {
      await Promise.all(started.map(([, c]) => c.stop()));
      return;
    }
    this.shards = new Map(started);
    this.epoch = placement.epoch;
    // the boards asked before are copied again at once, not at their next read
    for (const [stored, at] of this.wanted)
      if (performance.now() - at < IDLE_MS) for (const copy of this.shards.values()) copy.answering(stored);
      else this.wanted.delete(stored);
    this.o.log.info({ epoch: placement.epoch, shards: placement.shards.map((s) => s.id) }, "rank index following the placement");
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.starting;
    const copies = [...this.shards.values()];
    this.shards = new Map();
    await Promise.all(copies.map((c) => c.stop()));
  }
}

interface Sample {
  /** performance.now() when the probe was sent. */
  sentAt: number;
  changeId: string;
  gen: string;
  /** Each probed board key's size then. */
  cards: Map<string, number>;
}

interface Copied {
  stored: string;
  copy: BoardCopy;
  /** performance.now() of the last GetRank, GetRanks or GetAround that asked for it. */
  askedAt: number;
  /** Counts the builds: a scan of an older build stops. */
  build: number;
  /** performance.now() until which the board is read through the shards: its copies did not fit maxEntries. */
  refusedUntil?: number;
}

/** What a ShardCopy needs of its change feed (a ChangeFeed). */
export type Feed = Pick<ChangeFeed, "start" | "stop" | "at" | "generation">;

export interface ShardCopyOptions {
  shard: string;
  /** The shard's store in the primaries' routing table in force (undefined once it left). */
  store(): Pick<ShardStore, "shardId" | "after" | "indexProbe"> | undefined;
  /** Calls of the shard under its timeout (the primaries' pool). */
  primaries: Pick<ShardPool, "call">;
  feed(handlers: { onChanges(changes: readonly Change[]): void; onReset(shard: string, position: string, why: string): void }): Feed;
  keyOf(stored: string): string;
  /** Counts `entries` against the index's maxEntries while a scan reads them; undefined when they do not fit. */
  room(entries: number): { release(): void } | undefined;
  /** Called after each probe (the index checks what its copies hold). */
  afterProbe(): void;
  /** How long a refused board is read through the shard before it is tried again (REFUSED_MS unless given). */
  refusedMs?: number;
  maxLagMs: number;
  probeMs: number;
  log: Logger;
}

/** One shard's copies and their feed (see the essay). */
export class ShardCopy {
  private readonly feed: Feed;
  /** By full board key. */
  private readonly boards = new Map<string, Copied>();
  /** performance.now() of the newest probe the feed has caught up with; 0: none (or the shard refused one since). */
  private currentAsOf = 0;
  private moving = false;
  private samples: Sample[] = [];
  /** Scans waiting for the feed to hand on a stream id. */
  private waiters: Array<{ id: string; resolve(ok: boolean): void }> = [];
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  /** Why the last probe failed (logged when it changes); undefined after one that answered. */
  private refused: string | undefined;
  private stopped = false;

  constructor(private readonly o: ShardCopyOptions) {
    this.feed = o.feed({ onChanges: (c) => this.onChanges(c), onReset: (_s, _p, why) => this.onReset(why) });
  }

  async start(): Promise<void> {
    await this.feed.start();
    this.timer = setInterval(() => void this.probe(), this.o.probeMs);
    this.timer.unref();
  }

  get size(): number {
    let n = 0;
    for (const b of this.boards.values()) n += b.copy.entries.size;
    return n;
  }

  /** Entries of the copies that are live (a copy being scanned is counted by the index's reservation). */
  get liveSize(): number {
    let n = 0;
    for (const b of this.boards.values()) if (b.copy.live) n += b.copy.entries.size;
    return n;
  }

  /** Each copied board's entries (by stored name). */
  boardSizes(): Array<[string, number]> {
    return [...this.boards.values()].map((b) => [b.stored, b.copy.entries.size]);
  }

  /** Drops the copy of `stored` and reads it through the shard for REFUSED_MS: the index holds too much (`why`). */
  refuse(stored: string, why: string): void {
    const b = this.boards.get(this.o.keyOf(stored));
    if (!b || b.refusedUntil !== undefined) return;
    this.drop(b, why);
  }

  private drop(b: Copied, why: string): void {
    routerMetrics().rankIndexRefused.inc();
    this.o.log.warn({ board: b.stored, why }, "rank index: board read through the shards, its copy does not fit");
    b.refusedUntil = performance.now() + (this.o.refusedMs ?? REFUSED_MS);
    b.build++; // its scan, if any, stops
    b.copy = new BoardCopy();
  }

  /** The copy of `stored` if it may answer for the shard now; a board not copied yet starts being copied. */
  answering(stored: string): BoardCopy | undefined {
    const key = this.o.keyOf(stored);
    const b = this.boards.get(key);
    if (!b) {
      this.boards.set(key, { stored, copy: new BoardCopy(), build: 0, askedAt: performance.now() });
      void this.build(key);
      return undefined;
    }
    b.askedAt = performance.now();
    if (b.refusedUntil !== undefined) {
      if (performance.now() < b.refusedUntil) return undefined;
      b.refusedUntil = undefined; // tried again: the board may have shrunk, or others been dropped
      b.copy = new BoardCopy(); // buffering the changes from now, before its scan
      b.build++;
      void this.build(key);
      return undefined;
    }
    if (!b.copy.live || b.copy.diverged || this.moving || performance.now() - this.currentAsOf > this.o.maxLagMs) return undefined;
    return b.copy;
  }

  private onChanges(changes: readonly Change[]): void {
    for (const c of changes) {
      if (c.key.endsWith(META)) {
        this.boards.get(c.key.slice(0, -META.length))?.copy.keepsMetadata();
        continue;
      }
      const b = this.boards.get(c.key);
      if (b && b.refusedUntil === undefined) b.copy.change(c); // a refused board's copy holds nothing, and buffers nothing
    }
    const last = changes.at(-1);
    if (last) routerMetrics().rankIndexLag.observe(Math.max(0, Date.now() - Number.parseInt(last.id, 10)) / 1000);
    for (const [key, b] of this.boards) if (b.copy.diverged) this.rebuild(key, "a change did not fit the copy");
    this.caughtUp();
  }

  private onReset(why: string): void {
    this.samples = [];
    this.currentAsOf = 0;
    for (const w of this.waiters.splice(0)) w.resolve(false);
    for (const key of this.boards.keys()) this.rebuild(key, why);
  }

  private rebuild(key: string, why: string): void {
    const b = this.boards.get(key);
    if (!b || this.stopped) return;
    routerMetrics().rankIndexRebuilds.inc();
    this.o.log.info({ board: b.stored, why }, "rank index: copy built again");
    b.copy = new BoardCopy();
    b.build++;
    void this.build(key);
  }

  /** Scans the board, waits for the feed to reach the stream's position after the scan, and makes the copy live. */
  private async build(key: string): Promise<void> {
    const b = this.boards.get(key)!;
    const { build, copy } = b;
    const current = () => !this.stopped && b.build === build;
    while (current()) {
      try {
        const store = this.o.store();
        if (!store) return;
        // the board's size first: a copy that would not fit LADDER_RANK_INDEX_MAX_ENTRIES is not read
        const size = (await this.o.primaries.call(store, (s) => s.indexProbe(b.stored))).card;
        if (!current()) return;
        const room = this.o.room(size);
        if (!room) return this.drop(b, `its ${size} entries on this shard do not fit LADDER_RANK_INDEX_MAX_ENTRIES with the copies held`);
        let from: KeyedMember = { key: -1, playerId: "" };
        const started = performance.now();
        try {
          for (;;) {
            const page = await this.o.primaries.call(store, (s) => s.after(b.stored, from, PAGE, false));
            if (!current()) return;
            copy.scanned(page.members);
            if (page.members.length < PAGE) break;
            from = page.members.at(-1)!;
          }
          const end = await this.o.primaries.call(store, (s) => s.indexProbe(b.stored));
          if (!current() || !(await this.handedOn(end.changeId))) continue;
          if (!current()) return;
          if (end.metadata) copy.keepsMetadata();
          copy.finish();
        } finally {
          room.release(); // live (counted by the copy itself), or dropped
        }
        this.o.log.info(
          { board: b.stored, entries: copy.entries.size, ms: Math.round(performance.now() - started) },
          "rank index: copy live",
        );
        return;
      } catch (err) {
        if (!current()) return;
        this.o.log.warn({ board: b.stored, err: (err as Error).message }, "rank index: scan failed; trying again");
        await new Promise((r) => setTimeout(r, RETRY_MS));
        if (!current()) return;
        // start over from an empty copy: what was scanned may be old
        b.copy = new BoardCopy();
        b.build++;
        return this.build(key);
      }
    }
  }

  /** Resolves true once the feed has handed on stream id `id`, false when it reset first. */
  private handedOn(id: string): Promise<boolean> {
    if (compareChangeIds(this.feed.at, id) >= 0) return Promise.resolve(true);
    return new Promise((resolve) => this.waiters.push({ id, resolve }));
  }

  private async probe(): Promise<void> {
    const sentAt = performance.now();
    for (const [key, b] of this.boards)
      if (sentAt - b.askedAt > IDLE_MS) {
        b.build++; // its scan, if any, stops
        this.boards.delete(key);
        this.o.log.info({ board: b.stored }, "rank index: copy dropped, no GetRank, GetRanks or GetAround asked for it in 10 min");
      }
    if (this.probing || this.stopped || this.boards.size === 0) return;
    const store = this.o.store();
    if (!store) return;
    this.probing = true;
    try {
      const keys = [...this.boards.keys()];
      const reads = await Promise.all(keys.map((k) => this.o.primaries.call(store, (s) => s.indexProbe(this.boards.get(k)!.stored))));
      const moving = reads.some((r) => r.moving);
      if (this.moving && !moving) {
        this.moving = false;
        this.samples = [];
        for (const key of this.boards.keys()) this.rebuild(key, "a move ended on the shard");
        return;
      }
      this.moving = moving;
      const first = reads[0]!;
      if (first.changeGen !== this.feed.generation) return; // the feed resets soon
      this.o.afterProbe();
      this.samples.push({
        sentAt,
        changeId: first.changeId,
        gen: first.changeGen,
        cards: new Map(keys.map((k, i) => [k, reads[i]!.card])),
      });
      keys.forEach((k, i) => reads[i]!.metadata && this.boards.get(k)?.copy.keepsMetadata());
      if (this.samples.length > SAMPLES) this.samples.shift();
      this.caughtUp();
      if (this.refused) this.o.log.info({ was: this.refused }, "rank index: the shard answers probes again");
      this.refused = undefined;
    } catch (err) {
      // refused by the shard (not serving, another placement) or unreachable: its copies stop answering now
      this.currentAsOf = 0;
      const why = (err as Error).message.replace(/\d+/g, "#"); // the same reason with other figures is not news
      if (why !== this.refused)
        this.o.log.warn({ err: why }, "rank index: probe refused; the shard's copies do not answer until one succeeds");
      this.refused = why;
    } finally {
      this.probing = false;
    }
  }

  /** The probes and scans the feed has caught up with. */
  private caughtUp(): void {
    const at = this.feed.at;
    if (this.waiters.length)
      this.waiters = this.waiters.filter((w) => {
        if (compareChangeIds(at, w.id) < 0) return true;
        w.resolve(true);
        return false;
      });
    while (this.samples.length && compareChangeIds(at, this.samples[0]!.changeId) >= 0) {
      const s = this.samples.shift()!;
      if (s.gen !== this.feed.generation) continue;
      this.currentAsOf = Math.max(this.currentAsOf, s.sentAt);
      if (at !== s.changeId || this.moving) continue;
      for (const [key, card] of s.cards) {
        const b = this.boards.get(key);
        if (b?.copy.live && b.copy.entries.size !== card)
          this.rebuild(key, `the copy held ${b.copy.entries.size} entries, the shard ${card}`);
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    for (const w of this.waiters.splice(0)) w.resolve(false);
    await this.feed.stop();
  }
}
