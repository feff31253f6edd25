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
import type { KeyedMember } from "@ladder/model/score-encoding";
import { FreshCache } from "./fresh-cache.js";

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

/** A read and the pages cut from it, by "offset:limit", each built by a caller once. */
interface Entry {
  readonly read: TopRead;
  readonly pages: Map<string, unknown>;
}

export class TopCache {
  readonly maxAgeMs: number;
  readonly depth: number;
  private readonly cache: FreshCache<Entry>;

  constructor(o: TopCacheOptions) {
    this.maxAgeMs = o.maxAgeMs;
    this.depth = o.depth;
    this.cache = new FreshCache<Entry>({
      maxAgeMs: o.maxAgeMs,
      wait: o.wait,
      maxKeys: o.maxBoards ?? 1000,
      read: async (board) => ({ read: await o.read(board, o.depth), pages: new Map() }),
      ...(o.count ? { count: o.count } : {}),
      ...(o.now ? { now: o.now } : {}),
    });
  }

  /**
   * The page (offset, limit) of `board`, built by `build` from a read no older than the bound
   * (see above) and remembered with it. offset + limit must be at most `depth`.
   */
  async page<P>(board: string, offset: number, limit: number, deadlineMs: number, build: (read: TopRead) => P): Promise<P> {
    const { value: entry } = await this.cache.get(board, deadlineMs);
    const key = `${offset}:${limit}`;
    let page = entry.pages.get(key) as P | undefined;
    if (page === undefined) entry.pages.set(key, (page = build(entry.read)));
    return page;
  }

  /** How many boards are kept (for tests and metrics). */
  get size(): number {
    return this.cache.size;
  }
}
