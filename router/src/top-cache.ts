/**
 * The top cache: the first pages of busy boards served from the router's memory.
 *
 * WHAT IT KEEPS. Per board, the merged first `depth` entries of the live board and its size,
 * as one fan-out read them (the same read as an uncached GetTop: each shard's first `depth`
 * entries, merged; queries.ts), and the time that fan-out started. Pages are cut from it and
 * remembered per (offset, limit), so a hot page is built once per refresh. At most
 * `maxBoards` boards are kept; the least recently asked one goes first.
 *
 * THE STALENESS BOUND. A request that arrives at time T is answered from an entry whose
 * fan-out started at or after T - maxAgeMs, or it waits for one: it joins a refresh under way
 * if that began no earlier than T - maxAgeMs, or starts one. Each shard was read after its
 * fan-out started, so a cached answer shows every shard as it stood at some instant no earlier
 * than maxAgeMs before the request arrived. Within that it is exact, as any fan-out is: each
 * shard's board at one instant, merged (no player twice, consecutive ranks, the total that
 * goes with them). An uncached read shows each shard at an instant after the request arrived:
 * the cache adds at most maxAgeMs of staleness, never inexactness. Reads of replicas add their
 * own bound as without the cache (LADDER_REPLICA_MAX_LAG_MS).
 *
 * WHAT IT NEVER DOES. Reads with a consistency token do not use it (they read the primaries
 * after waiting for the token, as without a cache: queries for them are built without one);
 * audit views and pages deeper than `depth` are read from the shards. A refresh that fails
 * (a shard UNAVAILABLE, a stamp mismatch) fails the requests waiting for it with that error and
 * leaves nothing behind: an entry past its bound is never served instead.
 *
 * Costs: a hit is a map lookup and a clock read; a refresh is one fan-out of `depth` entries per
 * shard, shared by every request that arrives while it runs; memory is maxBoards x depth
 * entries at most.
 */
import type { KeyedMember } from "@ladder/common/score-encoding";

/** What one fan-out read: the merged first `depth` entries and the board's size. */
export interface TopRead {
  members: readonly KeyedMember[];
  total: number;
}

export interface TopCacheOptions {
  maxAgeMs: number;
  depth: number;
  /** Reads the live board's first `depth` entries from the shards (bounded by the shard timeout only: it serves many callers). */
  read: (board: string, depth: number) => Promise<TopRead>;
  /** Bounds one caller's wait for a refresh by its own deadline (ms since epoch, Infinity: none). */
  wait: <T>(refresh: Promise<T>, deadlineMs: number) => Promise<T>;
  maxBoards?: number;
  /** Counts each request's outcome: hit (a fresh entry), joined (a refresh under way), refreshed (started one). */
  count?: (outcome: "hit" | "joined" | "refreshed") => void;
  now?: () => number;
}

interface Entry {
  readonly startedAt: number;
  readonly read: TopRead;
  /** Pages cut from `read`, by "offset:limit", built by the caller once. */
  readonly pages: Map<string, unknown>;
}

interface Refresh {
  readonly startedAt: number;
  readonly done: Promise<Entry>;
}

export class TopCache {
  readonly maxAgeMs: number;
  readonly depth: number;
  private readonly o: Required<Omit<TopCacheOptions, "count">> & Pick<TopCacheOptions, "count">;
  private readonly entries = new Map<string, Entry>();
  private readonly refreshes = new Map<string, Refresh>();

  constructor(o: TopCacheOptions) {
    this.o = { maxBoards: 1000, now: () => performance.now(), ...o };
    this.maxAgeMs = o.maxAgeMs;
    this.depth = o.depth;
  }

  /**
   * The page (offset, limit) of `board`, built by `build` from a read no older than the bound
   * (see above) and remembered with it. offset + limit must be at most `depth`.
   */
  async page<P>(board: string, offset: number, limit: number, deadlineMs: number, build: (read: TopRead) => P): Promise<P> {
    const arrived = this.o.now();
    const found = this.fresh(board, arrived);
    const entry = found instanceof Promise ? await this.o.wait(found, deadlineMs) : found;
    const key = `${offset}:${limit}`;
    let page = entry.pages.get(key) as P | undefined;
    if (page === undefined) entry.pages.set(key, (page = build(entry.read)));
    return page;
  }

  /** How many boards are kept (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  private fresh(board: string, arrived: number): Entry | Promise<Entry> {
    const oldest = arrived - this.maxAgeMs;
    const entry = this.entries.get(board);
    if (entry && entry.startedAt >= oldest) {
      this.entries.delete(board); // most recently asked last
      this.entries.set(board, entry);
      this.o.count?.("hit");
      return entry;
    }
    const running = this.refreshes.get(board);
    if (running && running.startedAt >= oldest) {
      this.o.count?.("joined");
      return running.done;
    }
    this.o.count?.("refreshed");
    return this.refresh(board);
  }

  private refresh(board: string): Promise<Entry> {
    const startedAt = this.o.now();
    const done = this.o.read(board, this.depth).then(
      (read) => {
        const entry: Entry = { startedAt, read, pages: new Map() };
        const kept = this.entries.get(board);
        if (!kept || kept.startedAt < startedAt) {
          this.entries.delete(board);
          this.entries.set(board, entry);
          if (this.entries.size > this.o.maxBoards) this.entries.delete(this.entries.keys().next().value!);
        }
        return entry;
      },
    ).finally(() => {
      if (this.refreshes.get(board)?.done === done) this.refreshes.delete(board);
    });
    this.refreshes.set(board, { startedAt, done });
    return done;
  }
}
