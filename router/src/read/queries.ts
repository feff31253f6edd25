/**
 * The three exact queries over all shards. Ranks are 1-based global positions in the
 * board's strict total order; see top-merge.ts for why merging shard prefixes is exact
 * and read-window.lua for how a shard counts the entries ahead of any position.
 *
 *   top(offset, limit)  one fan-out: each shard's first offset+limit and size, merged
 *   around(player, r)   the owner shard's standing of the player (read-standing.lua: its key,
 *                       the owner's members ahead of it, the owner's size and r entries each
 *                       side, in one script), then one fan-out to the OTHER shards: "count
 *                       ahead of that key, with r each side"; rank = 1 + the sum of the counts
 *   rank(player)        what around with r = 0 reads, for all the ranks of a board asked in one
 *                       turn at once (rank-batch.ts): the owners' standings, then one count per
 *                       shard of the positions it does not own
 *
 * WHAT AN ANSWER MEANS WHILE THE BOARD CHANGES. Each shard is read at one instant: one
 * script per shard per question, and a script runs atomically in its Redis. Shards are not
 * read at one global instant, and need not be: writes of different players are applied by
 * independent partitions, so no global order of them exists to be faithful to. An answer
 * is exact against the board made of each shard's board at the moment that shard was
 * read. A player lives on exactly one shard, so it appears in that board once, as its
 * shard stood when read; hence, whatever the timing of writes:
 *   - no player appears twice in an answer, ranks are consecutive and entries sorted;
 *   - total is that board's size, and 1 <= rank <= total;
 *   - the rank returned is the exact rank, in that board, of the (score, time) returned;
 *   - the asked player is in its own neighbourhood, with r entries each side unless
 *     clipped at an end of that board.
 * The asked player's key, its owner's count and its owner's window come from the same
 * script, so the owner never counts the player against a stale position of itself (ZRANK
 * excludes the member), and the other shards do not hold the player. A read that asked
 * the owner twice (key, then count) could see the player move in between: listed twice,
 * rank off by one, even above total. test/motion.int.test.ts checks all of this on every
 * answer while players move.
 *
 * AROUND FROM THE RANK INDEX. On a board the rank index covers (router/src/rank-index), GetAround
 * (unique or competition ranks) reads the owner's standing as above and takes every other shard's
 * window, and what ranks its ties, from the router's copy of it, when each copy may answer (live,
 * within the index's lag bound, the shard not moving) and none keeps metadata (a copy holds sort keys
 * only): one Redis read per GetAround. The answer is then exact against the board made of the owner as
 * read now and every other shard as its copy stands, each at an instant at most the lag bound ago: the
 * same rules as above hold on it. Dense ranks read the shards (a copy keeps no distinct values).
 *
 * TIED RANKS OF A PAGE (around and cursor pages with a rank mode). An entry's competition rank
 * counts the entries with better points on every shard, its dense rank their distinct points:
 * counts that must come from the instant at which each shard read its part of the page, else a
 * player moving between two reads makes the tied ranks disagree with the ranks. So each shard reads,
 * in the same command as its part of the page (ShardReader.atOnce), what ranks the ties of any
 * points value the page can hold (page-ties.ts): no round more than the unique ranks take, and no
 * movement anywhere on the board refuses the page.
 */
import { storedBoardName, type BoardResolver, type BoardSpec } from "@ladder/model/board-spec";
import { Code, deadlineExceeded, invalidArgument, LadderError, notFound } from "@ladder/model/errors";
import { approximateRank, bucketOfStored, countsAround, storedBucketOf, type ApproximateRank } from "@ladder/model/histogram";
import { keptPeriods, periodAt, periodNamed, type Period } from "@ladder/model/periods";
import { cohortPeriod, parseCohortId, splitCohortPeriod, type League } from "@ladder/model/leagues";
import {
  decodeEntry,
  decodeSortKey,
  encodeSortKey,
  pointsIndex,
  tieScaleOf,
  tieValueOf,
  type KeyedMember,
} from "@ladder/model/score-encoding";
import { cursorPage, decodeCursor, encodeCursor } from "./cursor-pages.js";
import { RankBatches, type LocalCounts } from "./rank-batch.js";
import { MAX_DENSE_VALUES, ranksOf, type BoardCopies, type RankMode, type RanksAnswer } from "./ranks.js";
import { coveredUpTo, PageTies, type ShardPart } from "./page-ties.js";
import { entryAtRank } from "./select.js";
import { routerMetrics } from "../metrics.js";
import { windowReadSpec } from "@ladder/model/windows";
import { notKeptNote } from "@ladder/model/retention";
import { readFloor, type BelowFloor } from "./floor-read.js";
import type { ShardReads, ShardStore } from "./shard-calls.js";
import type { InstantReads, PlayerData, StandingResult, WindowResult, WindowTies } from "@ladder/store";
import { FreshCache } from "./fresh-cache.js";
import { TopCache, type TopCacheOptions, type TopRead } from "./top-cache.js";
import { mergeTop, splitAround } from "./top-merge.js";

/** An entry of a board with its global rank, decoded. */
export interface RankedEntry {
  playerId: string;
  points: number;
  reachedAtMs: number;
  rank: number;
  /** "" when none. */
  metadata: string;
  /** Under the read's rank mode; absent for the unique rank only. */
  tiedRank?: number;
  /** On a board with columns (model/src/columns.ts): its values, points being 0, and its member (its position). */
  columns?: bigint[];
  member?: string;
}

export interface Page {
  entries: RankedEntry[];
  total: number;
}

export interface QueriesOptions {
  /** Serve the live boards' first pages from memory (top-cache.ts); absent: every top reads the shards. */
  topCache?: { maxAgeMs: number; depth: number; count?: TopCacheOptions["count"] };
  /** Answer histograms and approximate ranks of the live boards from a histogram read at most maxAgeMs before (fresh-cache.ts); absent: every call reads the shards. */
  histogramCache?: { maxAgeMs: number; count?: TopCacheOptions["count"] };
  /** Count GetRank's other shards, and GetRanks' every shard, from the router's copies of them, on the boards it covers (router/src/rank-index); absent: always the shards. */
  rankIndex?: LocalCounts & BoardCopies & { covers(board: string, spec: BoardSpec): boolean };
}

/** A board key's histogram summed over the shards: counts per stored bucket (sort-key order), the size, when the fan-out started (Unix ms). */
interface HistogramRead {
  counts: number[];
  total: number;
  readAtMs: number;
}

/** Which board of a name a read asks for: an audit view ("" = the live boards), a period ("" = the current one), a window ("" = the period itself). */
export interface Where {
  view?: string;
  period?: string;
  window?: string;
}

export class Queries {
  private readonly cache: TopCache | undefined;
  /** Histograms of the live boards by stored name: its bucket count is part of the key (a board defined again may differ). */
  private readonly histograms: FreshCache<HistogramRead> | undefined;
  /** Decoding specs of window keys, by stored name (a SUM window's depends on its first period). */
  private readonly windowSpecs = new Map<string, BoardSpec>();
  /** Unique ranks asked in the same turn, read together (rank-batch.ts). */
  private readonly rankBatches: RankBatches;
  private readonly rankIndex: QueriesOptions["rankIndex"];

  constructor(
    private readonly pool: ShardReads,
    private readonly boards: BoardResolver,
    o: QueriesOptions = {},
  ) {
    this.rankBatches = new RankBatches(pool);
    this.rankIndex = o.rankIndex;
    this.cache =
      o.topCache && o.topCache.maxAgeMs > 0
        ? new TopCache({
            ...o.topCache,
            read: (stored, depth) => this.readTop(stored, depth, Infinity, ""),
            wait: (refresh, deadlineMs) => this.pool.waitUntil(refresh, deadlineMs),
          })
        : undefined;
    this.histograms =
      o.histogramCache && o.histogramCache.maxAgeMs > 0
        ? new FreshCache<HistogramRead>({
            ...o.histogramCache,
            read: (key) => {
              const [buckets, stored] = [Number(key.slice(0, key.indexOf("|"))), key.slice(key.indexOf("|") + 1)];
              return this.readHistogram(stored, buckets, Infinity, "");
            },
            wait: (refresh, deadlineMs) => this.pool.waitUntil(refresh, deadlineMs),
          })
        : undefined;
  }

  /** A board's spec; NOT_FOUND for a board that is neither defined nor allowed without a definition. */
  specOf(board: string): BoardSpec {
    const spec = this.boards.forBoard(board);
    if (!spec)
      throw notFound(
        `board "${board}" is not defined (AdminService.CreateBoard), and this cluster takes no boards without a definition (LADDER_IMPLICIT_BOARDS)`,
      );
    return spec;
  }

  /**
   * The spec that decodes what a read asks for and its stored name: on a board with periods, the
   * period named (or the current one, by this router's clock), or the window of that name ending
   * in it; INVALID_ARGUMENT for a name that is no period or window of the board, NOT_FOUND for a
   * period the live board no longer keeps (an audit view keeps them).
   */
  target(board: string, { period = "", window = "", view = "" }: Where): { spec: BoardSpec; stored: string } {
    const spec = this.specOf(board);
    if (spec.period.kind === "none") {
      if (period !== "") throw invalidArgument(`period: board "${board}" has no periods (it is all-time)`);
      if (window !== "") throw invalidArgument(`window: board "${board}" has no windows (it is all-time)`);
      return { spec, stored: storedBoardName(board, spec) };
    }
    const now = Date.now();
    // a league's entries are in its cohorts, each read as the period "<period>/<cohort>" (model/src/leagues.ts)
    const cohort = spec.league ? leagueCohort(board, spec.league, period) : undefined;
    if (cohort) period = cohort.period;
    const p = period === "" ? periodAt(spec.period, now) : periodNamed(spec.period, period);
    if (!p) throw invalidArgument(`period: "${period}" is not a ${spec.period.kind} period of board "${board}" (ListPeriods names them)`);
    if (now >= p.expireAtMs && view === "")
      // an audit view keeps the periods its log held (store/src/writer/rebuild.ts)
      throw notFound(
        `period ${p.id} of board "${board}" is no longer kept (the board keeps the current period and ${spec.period.keep} before it)`,
      );
    if (cohort && window !== "") throw invalidArgument(`window: board "${board}" is a league: it has no windows`);
    if (cohort) return { spec, stored: storedBoardName(board, spec, cohortPeriod(p.id, cohort.cohort)) };
    if (window === "") return { spec, stored: storedBoardName(board, spec, p.id) };
    const w = spec.windows.find((x) => x.name === window);
    if (!w)
      throw invalidArgument(
        `window: board "${board}" has no window "${window}"${spec.windows.length ? ` (its windows: ${spec.windows.map((x) => x.name).join(", ")})` : ""}`,
      );
    const stored = storedBoardName(board, spec, p.id, w.name);
    let read = this.windowSpecs.get(stored);
    if (read === undefined) {
      if (this.windowSpecs.size >= 10_000) this.windowSpecs.clear();
      this.windowSpecs.set(stored, (read = windowReadSpec(spec, w, p)));
    }
    return { spec: read, stored };
  }

  /** The periods a board keeps now, the current one first (none for an all-time board; a league's without their cohorts). */
  periods(board: string): Period[] {
    return keptPeriods(this.specOf(board).period, Date.now());
  }

  async top(
    board: string,
    offset: number,
    limit: number,
    deadlineMs = Infinity,
    where: Where = {},
    mode: RankMode = "unique",
  ): Promise<Page> {
    const { spec, stored } = this.target(board, where);
    const view = where.view ?? "";
    const page =
      this.cache && view === "" && offset + limit <= this.cache.depth && mode === "unique"
        ? await this.cache.page(stored, offset, limit, deadlineMs, (read) => this.page(spec, read, offset, limit))
        : this.page(spec, await this.readTop(stored, offset + limit, deadlineMs, view), offset, limit, mode);
    const below = await this.floorOf(spec, stored, view, deadlineMs);
    const kept = page.entries.filter((e) => !below(encodeSortKey(spec, e.points, e.reachedAtMs), e.playerId));
    // the page itself when nothing is below the floor: a cached page keeps its identity, and with it
    // the answer encoded once for it (leaderboard-service.ts, topResponse)
    return kept.length === page.entries.length ? page : { ...page, entries: kept };
  }

  /** The floor every answer of a trimmed board is bounded by, read after the answer (floor-read.ts). */
  private floorOf(spec: BoardSpec, stored: string, view: string, deadlineMs: number): Promise<BelowFloor> {
    return readFloor(this.pool, this.pool.scope(view).stores, spec, stored, deadlineMs);
  }

  /** The NOT_FOUND of a player a read of `board` does not rank: no entry, or one below the floor (floor-read.ts). */
  notRanked(board: string, playerId: string, belowTheFloor: boolean, where: Where = {}): LadderError {
    const note = notKeptNote(this.specOf(board).retention);
    if (belowTheFloor) return notFound(`player "${playerId}" is below the floor of board "${board}"${note}`);
    return notFound(`player "${playerId}" has no score on board "${board}"${where.window ? ` in window ${where.window}` : ""}${note}`);
  }

  /** The number of entries under a stored board name (storedBoardName), on the live shards. */
  async size(stored: string, deadlineMs = Infinity): Promise<number> {
    return (await this.readTop(stored, 1, deadlineMs, "")).total;
  }

  /** Every shard's moderation audit lines (AdminService.ListModerationActions), at most `limit` of each, newest first per shard. */
  async auditLines(playerId: string, board: string, limit: number, deadlineMs = Infinity): Promise<string[]> {
    return (await this.pool.fanOut(this.pool.scope("").stores, (s) => s.audit(playerId, board, limit), deadlineMs)).flat();
  }

  /** What the player's shard holds of it (AdminService.ExportPlayerData). */
  async playerData(playerId: string, deadlineMs = Infinity): Promise<PlayerData> {
    const scope = this.pool.scope("");
    const slot = scope.slotOf(playerId);
    return this.pool.call(scope.ownerOf(playerId), (s) => s.playerData(playerId, slot), deadlineMs);
  }

  /** The merged first `n` entries of a board (by its stored name) and its size: one fan-out. */
  private async readTop(stored: string, n: number, deadlineMs: number, view: string): Promise<TopRead> {
    const tops = await this.pool.fanOut(this.pool.scope(view).stores, (s) => s.top(stored, n), deadlineMs);
    return {
      members: mergeTop(
        tops.map((t) => t.members),
        n,
      ),
      total: sum(tops.map((t) => t.card)),
    };
  }

  private page(spec: BoardSpec, read: TopRead, offset: number, limit: number, mode: RankMode = "unique"): Page {
    const entries = read.members.slice(offset, offset + limit).map((m, i) => ranked(spec, m, offset + i + 1));
    // the merged read holds every entry ranked above the page: equal points are counted from it, exactly
    if (mode !== "unique") tieRanks(spec, read.members, offset, entries, mode);
    return { entries, total: read.total };
  }

  /** A page of `limit` entries at any depth, after (or before) a cursor's position (cursor-pages.ts); tied ranks by `mode`. */
  async pageAt(
    board: string,
    cursor: string,
    limit: number,
    deadlineMs = Infinity,
    where: Where = {},
    mode: RankMode = "unique",
  ): Promise<Page & { next: string; previous: string }> {
    const { spec, stored } = this.target(board, where);
    const view = where.view ?? "";
    const { at, backward } = decodeCursor(cursor, stored, view);
    const scope = this.pool.scope(view);
    // with a rank mode, each shard's part and what ranks its ties at one instant (page-ties.ts): a forward page is anchored at its position
    const page = await cursorPage(
      this.pool,
      scope,
      stored,
      at,
      backward,
      limit,
      deadlineMs,
      tieRead(spec, stored, mode, backward ? "first" : at),
    );
    const ties =
      mode === "unique"
        ? undefined
        : new PageTies(
            spec,
            mode,
            page.shards.map((s, i) =>
              // a backward part holds every member of its shard up to the position
              shardPart(scope.stores[i]!, s, page.also[i]!, backward ? at : coveredUpTo(s)),
            ),
          );
    const below = await this.floorOf(spec, stored, view, deadlineMs);
    const kept = page.members.filter((m) => !below(m.key, m.playerId)); // the entries below the floor are the page's last
    const entries = kept.map((m, i) => ranked(spec, m, page.firstRank + i, ties));
    const last = kept[kept.length - 1];
    const first = page.members[0];
    return {
      entries,
      total: page.total,
      // a page cut at the floor is the last one: every entry after it is below the floor too
      next:
        last && kept.length === page.members.length && page.firstRank + entries.length - 1 < page.total
          ? encodeCursor(stored, view, last, false)
          : "",
      previous: first && page.firstRank > 1 ? encodeCursor(stored, view, first, true) : "",
    };
  }

  /** The cursors of an offset page (the page after it, the page before it). */
  cursorsOf(board: string, page: Page, where: Where = {}): { next: string; previous: string } {
    const { spec, stored } = this.target(board, where);
    const view = where.view ?? "";
    const first = page.entries[0];
    const last = page.entries[page.entries.length - 1];
    const pos = (e: RankedEntry): KeyedMember =>
      e.member !== undefined
        ? { playerId: e.playerId, key: 0, member: e.member }
        : { playerId: e.playerId, key: encodeSortKey(spec, e.points, e.reachedAtMs) };
    return {
      next: last && last.rank < page.total ? encodeCursor(stored, view, pos(last), false) : "",
      previous: first && first.rank > 1 ? encodeCursor(stored, view, pos(first), true) : "",
    };
  }

  /** The entry at a global rank (or a function of the board's size), exact (select.ts); undefined when the board holds fewer. */
  async entryAt(
    board: string,
    rank: number | ((total: number) => number),
    deadlineMs = Infinity,
    where: Where = {},
  ): Promise<{ entry: RankedEntry; total: number } | undefined> {
    const { spec, stored } = this.target(board, where);
    refuseOnColumns(board, spec, "rank", "page through it with GetTop (offset or cursor)");
    const got = await entryAtRank(this.pool, this.pool.scope(where.view ?? ""), stored, rank, deadlineMs);
    if (!got) return undefined;
    // an entry below the floor read after it is not answered with its rank (floor-read.ts)
    const below = await this.floorOf(spec, stored, where.view ?? "", deadlineMs);
    if (below(got.member.key, got.member.playerId))
      throw notFound(`the entry at rank ${got.rank} of board "${board}" is below its floor${notKeptNote(spec.retention)}`);
    return { entry: ranked(spec, got.member, got.rank), total: got.total };
  }

  /**
   * A board's histogram summed over the shards (model/src/histogram.ts): counts per stored bucket (sort-key
   * order) with their points ranges; FAILED_PRECONDITION for a board without histogram bounds.
   */
  async histogram(
    board: string,
    deadlineMs = Infinity,
    where: Where = {},
  ): Promise<{ spec: BoardSpec; bounds: readonly number[] } & HistogramRead> {
    const bounds = this.histogramBounds(board);
    const { spec, stored } = this.target(board, where);
    const view = where.view ?? "";
    const read =
      this.histograms && view === ""
        ? (await this.histograms.get(`${bounds.length + 1}|${stored}`, deadlineMs)).value
        : await this.readHistogram(stored, bounds.length + 1, deadlineMs, view);
    return { spec, bounds, ...read };
  }

  private histogramBounds(board: string): readonly number[] {
    const bounds = this.specOf(board).histogram;
    if (bounds.length === 0)
      throw new LadderError(Code.FAILED_PRECONDITION, `board "${board}" keeps no histogram (BoardRules.histogram_bounds)`);
    return bounds;
  }

  /** One fan-out: every shard's whole histogram of `stored` (`buckets` stored buckets), summed. */
  private async readHistogram(stored: string, buckets: number, deadlineMs: number, view: string): Promise<HistogramRead> {
    const readAtMs = Date.now();
    const reads = await this.pool.fanOut(this.pool.scope(view).stores, (s) => s.histogram(stored), deadlineMs);
    const counts = Array.from({ length: buckets }, (_, j) => sum(reads.map((r) => r.counts.get(j) ?? 0)));
    return { counts, total: sum(reads.map((r) => r.card)), readAtMs };
  }

  /** Where points (or a player's points) stand by the histogram alone (model/src/histogram.ts); NOT_FOUND for a player without a score. */
  async approximateRank(
    board: string,
    of: { score: number } | { playerId: string },
    deadlineMs = Infinity,
    where: Where = {},
  ): Promise<ApproximateRank & { points: number; total: number; range: { min: number; max: number }; readAtMs: number }> {
    const bounds = this.histogramBounds(board);
    const { spec, stored } = this.target(board, where);
    const scope = this.pool.scope(where.view ?? "");
    let points: number;
    if ("playerId" in of) {
      const key = await this.pool.call(scope.ownerOf(of.playerId), (s) => s.entry(stored, of.playerId), deadlineMs);
      if (key === undefined) throw notFound(`player "${of.playerId}" has no score on board "${board}"${notKeptNote(spec.retention)}`);
      points = decodeSortKey(spec, key).points;
    } else points = of.score;
    if (points < spec.minPoints || points > spec.maxPoints)
      throw invalidArgument(`score: must be within the board's range [${spec.minPoints}, ${spec.maxPoints}], got ${points}`);
    const j = storedBucketOf(spec, bounds, points);
    const held = "playerId" in of;
    if (this.histograms && (where.view ?? "") === "") {
      // from the histogram in memory (read at most the cache's bound before): no shard read at all for a score
      const h = (await this.histograms.get(`${bounds.length + 1}|${stored}`, deadlineMs)).value;
      const got = approximateRank(spec, bounds, countsAround(h.counts, j), points, held);
      return { ...got, points, total: h.total, range: bucketOfStored(spec, bounds, got.bucket), readAtMs: h.readAtMs };
    }
    // each shard sums its own counts around the points' bucket: 4 numbers a shard, however many buckets
    const readAtMs = Date.now();
    const reads = await this.pool.fanOut(scope.stores, (s) => s.histogramAt(stored, j), deadlineMs);
    const counts = { better: sum(reads.map((r) => r.better)), inBucket: sum(reads.map((r) => r.inBucket)) };
    const got = approximateRank(spec, bounds, counts, points, held);
    return { ...got, points, total: sum(reads.map((r) => r.card)), range: bucketOfStored(spec, bounds, got.bucket), readAtMs };
  }

  /**
   * Exact ranks of several players of one board at one instant per shard (ranks.ts). Players whose
   * entry is below the floor (floor-read.ts) are not ranked: they are `missing`, and also listed in
   * `belowFloor`; the players found keep their ranks among themselves (those below are the worst).
   */
  async ranks(
    board: string,
    players: readonly string[],
    mode: RankMode,
    deadlineMs = Infinity,
    where: Where = {},
  ): Promise<RanksAnswer & { belowFloor: string[] }> {
    const { spec, stored } = this.target(board, where);
    const view = where.view ?? "";
    // the rank index answers for the live board itself only (not a view, a period or a window)
    const local = !view && !where.period && !where.window && this.rankIndex?.covers(board, spec) ? this.rankIndex : undefined;
    const got = await ranksOf(this.pool, this.pool.scope(view), stored, spec, players, mode, deadlineMs, local);
    const below = await this.floorOf(spec, stored, view, deadlineMs);
    const cut = new Set(got.found.filter((f) => below(encodeSortKey(spec, f.points, f.reachedAtMs), f.playerId)).map((f) => f.playerId));
    if (cut.size === 0) return { ...got, belowFloor: [] };
    const missing = new Set([...got.missing, ...cut]);
    return {
      found: got.found.filter((f) => !cut.has(f.playerId)),
      missing: players.filter((p) => missing.has(p)),
      total: got.total,
      belowFloor: players.filter((p) => cut.has(p)),
    };
  }

  /** Entries of a board whose points lie in [min, max] (either optional), and its size: one read per shard. */
  async count(
    board: string,
    min: number | undefined,
    max: number | undefined,
    deadlineMs = Infinity,
    where: Where = {},
  ): Promise<{ count: number; total: number }> {
    const { spec, stored } = this.target(board, where);
    if (spec.columns && (min !== undefined || max !== undefined))
      refuseOnColumns(board, spec, "min_score, max_score", "without them GetCount gives its size");
    const lo = Math.max(spec.minPoints, min ?? spec.minPoints);
    const hi = Math.min(spec.maxPoints, max ?? spec.maxPoints);
    const reads = await this.pool.fanOut(
      this.pool.scope(where.view ?? "").stores,
      (s) => {
        if (lo > hi) return s.ranks(stored, [], []);
        // the keys of points lo..hi are [first, end) whichever way the board orders
        const [a, b] = spec.lowerIsBetter ? [pointsIndex(spec, lo), pointsIndex(spec, hi)] : [pointsIndex(spec, hi), pointsIndex(spec, lo)];
        return s.ranks(
          stored,
          [],
          [
            { playerId: "", key: a * spec.timeUnits },
            { playerId: "", key: (b + 1) * spec.timeUnits },
          ],
        );
      },
      deadlineMs,
    );
    return { count: lo > hi ? 0 : sum(reads.map((r) => r.aheadOf[1]! - r.aheadOf[0]!)), total: sum(reads.map((r) => r.card)) };
  }

  /** A player's unique rank: read with the other ranks of the board asked in the same turn (rank-batch.ts). */
  async rank(board: string, playerId: string, deadlineMs = Infinity, where: Where = {}): Promise<{ entry: RankedEntry; total: number }> {
    const { spec, stored } = this.target(board, where);
    if (deadlineMs <= Date.now()) throw deadlineExceeded("deadline passed before the shards were asked");
    // the rank index answers for the live board itself only (not a view, a period or a window)
    const local = !where.view && !where.period && !where.window && this.rankIndex?.covers(board, spec) ? this.rankIndex : undefined;
    const read = this.rankBatches.rank(this.pool.scope(where.view ?? ""), stored, playerId, local);
    const got = await this.pool.waitUntil(read, deadlineMs);
    if (got === undefined) throw this.notRanked(board, playerId, false, where);
    const below = await this.floorOf(spec, stored, where.view ?? "", deadlineMs);
    if (below(got.key, playerId)) throw this.notRanked(board, playerId, true, where);
    const at: KeyedMember = { playerId, key: got.key, metadata: got.metadata, ...(got.member !== undefined ? { member: got.member } : {}) };
    return { entry: ranked(spec, at, got.rank), total: got.total };
  }

  /** The entries around a player, `radius` each side (the essay above); tied ranks by `mode` (TIED RANKS OF A PAGE). */
  async around(
    board: string,
    playerId: string,
    radius: number,
    deadlineMs = Infinity,
    where: Where = {},
    mode: RankMode = "unique",
  ): Promise<Page> {
    const { spec, stored } = this.target(board, where);
    const scope = this.pool.scope(where.view ?? "");
    const owner = scope.ownerOf(playerId);
    const others = scope.othersOf(owner);
    // with a rank mode, each shard's part and what ranks its ties at one instant (page-ties.ts), from windows of one entry each side at least
    const ties = tieRead(spec, stored, mode, "first");
    const width = ties ? Math.max(1, radius) : radius;
    const [own, ownTies] = await this.pool.call(owner, (s) => withTies(s, (r) => r.standing(stored, playerId, width), ties), deadlineMs);
    if (own === undefined) throw this.notRanked(board, playerId, false, where);
    // the rank index: the other shards' windows from the router's copies of them (AROUND FROM THE RANK INDEX)
    const local = mode !== "dense" && !where.view && !where.period && !where.window && this.rankIndex?.covers(board, spec);
    const copies = local ? this.rankIndex!.copiesOf(others, stored) : undefined;
    const fromCopies = copies?.every((c) => !c.metadata) ? copies : undefined;
    if (local)
      routerMetrics()
        .rankIndexOf(fromCopies ? "index" : "shard")
        .inc(others.length);
    const othersRead: Array<[WindowResult, WindowTies | undefined]> = fromCopies
      ? fromCopies.map((c) => {
          const w = c.window(own.key, playerId, width);
          return [w, ties ? c.ties(tieScaleOf(spec), w.members[0]) : undefined];
        })
      : await this.pool.fanOut(
          others,
          (s) => withTies(s, (r) => r.window(stored, own.key, own.member ?? playerId, width), ties),
          deadlineMs,
        );
    const page = aroundPage(
      playerId,
      radius,
      own,
      othersRead.map(([w]) => w),
    );
    const tied =
      mode === "unique"
        ? undefined
        : new PageTies(spec, mode, [
            shardPart(owner, own, ownTies!, coveredUpTo(own)),
            ...othersRead.map(([w, t], i) => shardPart(others[i]!, w, t!, coveredUpTo(w))),
          ]);
    const underFloor = await this.floorOf(spec, stored, where.view ?? "", deadlineMs);
    if (underFloor(page.key, playerId)) throw this.notRanked(board, playerId, true, where);
    const kept = page.members.filter((m, i) => i < page.pivot || !underFloor(m.key, m.playerId));
    return { entries: kept.map((m, i) => ranked(spec, m, page.firstRank + i, tied)), total: page.total };
  }
}

/** The read of a page's ties on one shard (page-ties.ts), anchored at a sort key or at the first entry of the part read before it; none without a rank mode. */
function tieRead(
  spec: BoardSpec,
  stored: string,
  mode: RankMode,
  anchor: KeyedMember | "first",
): ((r: InstantReads) => Promise<WindowTies>) | undefined {
  if (mode === "unique") return undefined;
  const scale = tieScaleOf(spec);
  return (r) => r.ties(stored, scale, anchor, mode === "dense" ? MAX_DENSE_VALUES : 0);
}

/** `read` of one shard, and with `ties` what ranks its page's ties, at the same instant. */
function withTies<T>(
  s: ShardStore,
  read: (r: InstantReads) => Promise<T>,
  ties: ((r: InstantReads) => Promise<WindowTies>) | undefined,
): Promise<[T, WindowTies | undefined]> {
  return ties ? s.atOnce((r) => Promise.all([read(r), ties(r)])) : read(s).then((x) => [x, undefined]);
}

function shardPart(
  store: { shardId: string },
  read: { start: number; members: readonly KeyedMember[] },
  ties: WindowTies,
  covered: KeyedMember | undefined,
): ShardPart {
  return { shardId: store.shardId, start: read.start, members: read.members, coveredUpTo: covered, ties };
}

/**
 * The page around a player from its owner's standing and the other shards' windows at its key:
 * the merged `radius` entries each side and the player, the rank of the first, the board's size.
 */
function aroundPage(
  playerId: string,
  radius: number,
  own: StandingResult,
  others: readonly WindowResult[],
): { members: KeyedMember[]; firstRank: number; pivot: number; key: number; total: number } {
  const pivot: KeyedMember = {
    playerId,
    key: own.key,
    metadata: own.metadata,
    ...(own.member !== undefined ? { member: own.member } : {}),
  };
  const rank = 1 + own.ahead + sum(others.map((w) => w.ahead));
  const { above, below } = splitAround([own.members, ...others.map((w) => w.members)], pivot, radius);
  return {
    members: [...above, pivot, ...below],
    firstRank: rank - above.length,
    pivot: above.length,
    key: own.key,
    total: own.card + sum(others.map((w) => w.card)),
  };
}

function ranked(spec: BoardSpec, m: KeyedMember, rank: number, ties?: { of(m: KeyedMember): number | undefined }): RankedEntry {
  const { points, reachedAtMs, columns } = decodeEntry(spec, m);
  const entry: RankedEntry = { playerId: m.playerId, points, reachedAtMs, rank, metadata: m.metadata ?? "" };
  if (columns) {
    entry.columns = columns;
    entry.member = m.member!;
  }
  if (ties) entry.tiedRank = ties.of(m);
  return entry;
}

/**
 * A board with columns (model/src/columns.ts) keeps one order of several values, no single score: a
 * read that bounds or searches by score (GetCount's bounds, GetEntryAtRank) is INVALID_ARGUMENT there.
 */
export function refuseOnColumns(board: string, spec: BoardSpec, what: string, instead: string): void {
  if (spec.columns)
    throw invalidArgument(
      `${what}: board "${board}" has columns (${spec.columns.map((c) => c.name).join(", ")}), whose entries have no single score to bound; ${instead}`,
    );
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

/**
 * Sets the tied ranks of a page cut at `offset` from `all`, the merged entries from the top: the
 * competition rank of an entry is the rank of the first entry with its points, its dense rank 1 +
 * the distinct points before those.
 */
function tieRanks(spec: BoardSpec, all: readonly KeyedMember[], offset: number, page: RankedEntry[], mode: RankMode): void {
  const scale = tieScaleOf(spec);
  let groupStart = 0;
  let distinct = 1;
  for (let i = 0; i < offset + page.length && i < all.length; i++) {
    if (i > 0 && tieValueOf(scale, all[i]!) !== tieValueOf(scale, all[i - 1]!)) {
      groupStart = i;
      distinct++;
    }
    if (i >= offset) page[i - offset]!.tiedRank = mode === "competition" ? groupStart + 1 : distinct;
  }
}

/**
 * The cohort a read of league `board` names in its period, "<period>/<cohort>" ("" for the
 * current period: "/t0c3"); INVALID_ARGUMENT when it names none or one the league cannot have.
 */
function leagueCohort(board: string, league: League, period: string): { period: string; cohort: string } {
  const split = splitCohortPeriod(period);
  if (split.cohort === "")
    throw invalidArgument(
      `period: board "${board}" is a league: its entries are in cohorts, read as period "<period>/<cohort>" (as "${period || "<period>"}/t0c0"; GetLeagueStanding gives a player's)`,
    );
  const c = parseCohortId(league, split.cohort);
  if (typeof c === "string") throw invalidArgument(`period: ${c}`);
  return split;
}
