/**
 * The read path's exact logic (queries.ts, top-merge.ts, ranks.ts, select.ts, cursor-pages.ts and the
 * fan-out of shard-calls.ts) against in-process fake shards: each fake holds its slice of a board and
 * answers each read as its script's contract says (store/src/lua/read-header.lua), so the router's
 * merge, sums and searches run as they run over Redis. Every answer is checked against an oracle
 * written here: all the fakes' entries in one array, sorted by the board's definition (points
 * descending, then time reached ascending, then player id by UTF-8 bytes), the answer read off it.
 * Redis itself, and the scripts, are tested by test/reads.int.test.ts.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_BOARD, makeBoardSpec } from "@ladder/model/board-spec";
import { Code, LadderError } from "@ladder/model/errors";
import { encodeSortKey, type KeyedMember, type TieScale, type TieValue } from "@ladder/model/score-encoding";
import {
  StampMismatch,
  type AfterResult,
  type IndexProbe,
  type InstantReads,
  type PlayerData,
  type RanksResult,
  type StandingResult,
  type TopResult,
  type WindowResult,
  type WindowTies,
} from "@ladder/store";
import { Queries } from "./queries.js";
import { ShardCalls, shardUnreachable, type Scope, type ShardReads, type ShardStore } from "./shard-calls.js";

const spec = makeBoardSpec(DEFAULT_BOARD).spec!;
const BOARD = "b";
const t0 = Date.UTC(2026, 10, 30, 12, 0, 0);

interface Standing {
  playerId: string;
  points: number;
  atMs: number;
}

/** The board's order from its definition (not from the code under test). */
function definedOrder(a: Standing, b: Standing): number {
  if (a.points !== b.points) return a.points > b.points ? -1 : 1;
  if (a.atMs !== b.atMs) return a.atMs < b.atMs ? -1 : 1;
  return Buffer.compare(Buffer.from(a.playerId, "utf8"), Buffer.from(b.playerId, "utf8"));
}

/** A shard's sorted-set order: key ascending, then member bytes (what Redis keeps). */
const setOrder = (a: KeyedMember, b: KeyedMember) =>
  a.key - b.key || Buffer.compare(Buffer.from(a.playerId, "utf8"), Buffer.from(b.playerId, "utf8"));

/** A read a fake was asked: which shard, which read, with what. */
interface Asked {
  shard: string;
  read: string;
  args: unknown[];
}

/** One shard's slice of the board, answering reads as the read scripts' contracts say. */
class FakeShard implements ShardStore {
  readonly entries: KeyedMember[];
  /** When set, every read fails (or hangs) this way instead of answering. */
  fault: (() => Promise<never>) | undefined;
  /** Called before each read: a test moves players between reads with it. */
  beforeRead: ((read: string) => void) | undefined;
  /** The trim floors this shard applied (apply-retention.lua), on a board with keep_top. */
  floorsHeld: KeyedMember[] = [];
  /** The key of the first entry the last read listed (read-header.lua's WINDOW_FIRST): ties("first") anchors there. */
  private listedFirst: number | undefined;

  constructor(
    readonly shardId: string,
    entries: KeyedMember[],
    private readonly log: Asked[],
  ) {
    this.entries = [...entries].sort(setOrder);
  }

  private async answer<T>(read: string, args: unknown[], f: () => T): Promise<T> {
    this.log.push({ shard: this.shardId, read, args });
    if (this.fault) return this.fault();
    this.beforeRead?.(read);
    this.entries.sort(setOrder);
    const got = f();
    if (read !== "ties") this.listedFirst = (got as { members?: KeyedMember[] } | undefined)?.members?.[0]?.key;
    return got;
  }

  /** Members strictly ahead of position (key, player); player "" counts the keys below `key`. */
  private ahead(at: KeyedMember): number {
    return this.entries.filter((e) => setOrder(e, at) < 0).length;
  }

  private near(center: number, radius: number): { start: number; members: KeyedMember[] } {
    return radius <= 0
      ? { start: center, members: [] }
      : { start: Math.max(0, center - radius), members: this.entries.slice(Math.max(0, center - radius), center + radius + 1) };
  }

  top(_b: string, count: number): Promise<TopResult> {
    return this.answer("top", [count], () => ({ card: this.entries.length, members: this.entries.slice(0, count) }));
  }

  standing(_b: string, playerId: string, radius: number): Promise<StandingResult | undefined> {
    return this.answer("standing", [playerId, radius], () => {
      const i = this.entries.findIndex((e) => e.playerId === playerId);
      if (i < 0) return undefined;
      return { key: this.entries[i]!.key, metadata: "", ahead: i, card: this.entries.length, ...this.near(i, radius) };
    });
  }

  window(_b: string, key: number, playerId: string, radius: number): Promise<WindowResult> {
    return this.answer("window", [key, playerId, radius], () => {
      const lo = this.ahead({ playerId, key });
      return { ahead: lo, card: this.entries.length, ...this.near(lo, radius) };
    });
  }

  entry(_b: string, playerId: string): Promise<number | undefined> {
    return this.answer("entry", [playerId], () => this.entries.find((e) => e.playerId === playerId)?.key);
  }

  ranks(_b: string, players: readonly string[], positions: readonly KeyedMember[]): Promise<RanksResult> {
    return this.answer("ranks", [players, positions], () => ({
      card: this.entries.length,
      own: players.map((p) => {
        const i = this.entries.findIndex((e) => e.playerId === p);
        return i < 0 ? undefined : { key: this.entries[i]!.key, ahead: i, metadata: "" };
      }),
      aheadOf: positions.map((at) => this.ahead(at)),
    }));
  }

  distinct(_b: string, scale: TieScale, bound: TieValue, cap: number): Promise<TieValue[]> {
    const units = (scale as { units: number }).units; // this fake holds one-column boards
    return this.answer("distinct", [units, bound, cap], () =>
      [...new Set(this.entries.map((e) => Math.floor(e.key / units)))].filter((v) => v < (bound as number)).slice(0, cap + 1),
    );
  }

  ties(_b: string, scale: TieScale, anchor: KeyedMember | "first", cap: number): Promise<WindowTies> {
    const units = (scale as { units: number }).units;
    return this.answer("ties", [units, anchor === "first" ? anchor : anchor.key, cap], () => {
      const key = anchor === "first" ? this.listedFirst : anchor.key;
      if (key === undefined) return { anchor: -1, below: 0, distinct: [] };
      const idx = Math.floor(key / units);
      const indexes = [...new Set(this.entries.map((e) => Math.floor(e.key / units)))];
      return {
        anchor: idx,
        below: this.entries.filter((e) => e.key < idx * units).length,
        distinct: cap > 0 ? indexes.filter((v) => v <= idx).slice(0, cap + 1) : [],
      };
    });
  }

  indexProbe(_b: string): Promise<IndexProbe> {
    return this.answer("indexProbe", [], () => ({
      card: this.entries.length,
      moving: false,
      changeId: "0-0",
      changeGen: "",
      metadata: false,
    }));
  }

  after(_b: string, from: KeyedMember, count: number, backward: boolean): Promise<AfterResult> {
    return this.answer("after", [from, count, backward], () => {
      const lo = this.ahead(from);
      const card = this.entries.length;
      if (backward) {
        const start = Math.max(0, lo - count);
        return { card, start, ahead: lo, members: this.entries.slice(start, lo) };
      }
      const at = this.entries[lo];
      const start = at && at.playerId === from.playerId && at.key === from.key ? lo + 1 : lo;
      return { card, start, ahead: lo, members: this.entries.slice(start, start + count) };
    });
  }

  histogram(): Promise<{ card: number; counts: Map<number, number> }> {
    throw new Error("not part of these tests");
  }

  histogramAt(): Promise<{ card: number; better: number; inBucket: number }> {
    throw new Error("not part of these tests");
  }

  audit(): Promise<string[]> {
    throw new Error("not part of these tests");
  }

  playerData(): Promise<PlayerData> {
    throw new Error("not part of these tests");
  }

  floors(): Promise<Array<{ key: number; playerId: string }>> {
    return this.answer("floors", [], () => this.floorsHeld);
  }

  /** The reads of `reads` at one instant, as one command is in Redis: the hook that moves players runs before them, never between. */
  atOnce<T>(reads: (r: InstantReads) => Promise<T>): Promise<T> {
    const hook = this.beforeRead;
    let first = true;
    this.beforeRead = hook && ((read) => void (first && ((first = false), hook(read))));
    try {
      return reads(this);
    } finally {
      this.beforeRead = hook;
    }
  }
}

/** Fake shards behind the real fan-out (ShardCalls: timeouts, error conversion); players owned as the board was dealt. */
class FakeShards implements ShardReads {
  readonly asked: Asked[] = [];
  readonly shards: FakeShard[];
  private readonly calls: ShardCalls;

  /** Each player's shard as dealt: its owner even once removed (owners are by hash, not by content). */
  private readonly dealt = new Map<string, FakeShard>();

  constructor(slices: KeyedMember[][], timeoutMs = 1_000) {
    this.shards = slices.map((s, i) => new FakeShard(`shard-${i}`, s, this.asked));
    for (const s of this.shards) for (const e of s.entries) this.dealt.set(e.playerId, s);
    this.calls = new ShardCalls(timeoutMs);
  }

  scope(): Scope<ShardStore> {
    const shards = this.shards;
    return {
      stores: shards,
      // a player's owner is the shard it was dealt to, else the shard that holds it; one held nowhere belongs to the first
      ownerOf: (p) => this.dealt.get(p) ?? shards.find((s) => s.entries.some((e) => e.playerId === p)) ?? shards[0]!,
      slotOf: () => 0, // no read of these tests asks
      othersOf: (owner) => shards.filter((s) => s !== owner),
    };
  }

  waitUntil<T>(work: Promise<T>, deadlineMs: number): Promise<T> {
    return this.calls.waitUntil(work, deadlineMs);
  }

  fanOut<S extends ShardStore, T>(stores: readonly S[], fn: (store: S) => Promise<T>, deadlineMs?: number): Promise<T[]> {
    return this.calls.fanOut(stores, fn, deadlineMs);
  }

  call<S extends ShardStore, T>(store: S, fn: (store: S) => Promise<T>, deadlineMs?: number): Promise<T> {
    return this.calls.call(store, fn, deadlineMs);
  }
}

/** A seeded board: by default few distinct (points, minute) pairs, so most entries tie on their key and only the id orders them; `values` point values. */
function randomStandings(n: number, seed: number, values = 4): Standing[] {
  let s = seed;
  const rand = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  // ids whose UTF-8 byte order differs from JavaScript's string order, and from numeric order
  const prefixes = ["p", "P", "é", "\uE000", "\u{10000}"];
  return Array.from(
    { length: n },
    (_, i): Standing => ({
      playerId: `${prefixes[Math.floor(rand() * prefixes.length)]}${i}`,
      points: 100 + 10 * Math.floor(rand() * values),
      atMs: t0 + 60_000 * Math.floor(rand() * 3),
    }),
  );
}

const keyed = (s: Standing): KeyedMember => ({ playerId: s.playerId, key: encodeSortKey(spec, s.points, s.atMs) });

/** The board dealt over `shardCount` shards (every `i`th standing to shard i % count, `empty` shards left empty), the queries over it and the oracle. */
function board(n: number, seed: number, shardCount = 3, empty = 0, values = 4) {
  const standings = randomStandings(n, seed, values);
  const slices: KeyedMember[][] = Array.from({ length: shardCount + empty }, () => []);
  standings.forEach((s, i) => slices[(i * 7 + seed) % shardCount]!.push(keyed(s)));
  const shards = new FakeShards(slices);
  const queries = new Queries(shards, { forBoard: () => spec });
  const oracle = [...standings].sort(definedOrder);
  return { shards, queries, oracle, standings };
}

/** What a page says of each entry, to compare with the oracle. */
const rows = (entries: ReadonlyArray<{ playerId: string; points: number; reachedAtMs: number; rank: number }>) =>
  entries.map((e) => ({ playerId: e.playerId, points: e.points, atMs: e.reachedAtMs, rank: e.rank }));
/** The oracle's entries [from, to) (0-based), with their 1-based ranks. */
const expected = (oracle: Standing[], from: number, to: number) =>
  oracle
    .slice(Math.max(0, from), to)
    .map((s, i) => ({ playerId: s.playerId, points: s.points, atMs: s.atMs, rank: Math.max(0, from) + i + 1 }));
/** Competition rank (1 + entries with better points) and dense rank (1 + distinct better points), from the oracle. */
const competition = (oracle: Standing[], points: number) => 1 + oracle.filter((s) => s.points > points).length;
const dense = (oracle: Standing[], points: number) => 1 + new Set(oracle.filter((s) => s.points > points).map((s) => s.points)).size;

describe("router > read > top", () => {
  it("merges the shards' tops into the one strict order, at every offset and limit", async () => {
    for (const seed of [1, 2, 3]) {
      const { queries, oracle } = board(90, seed);
      for (const offset of [0, 1, 7, 29, 60, 89, 90, 95]) {
        for (const limit of [1, 3, 10, 31]) {
          const page = await queries.top(BOARD, offset, limit);
          expect(rows(page.entries)).toEqual(expected(oracle, offset, offset + limit));
          expect(page.total).toBe(oracle.length);
        }
      }
    }
  });

  it("ranks ties by competition and dense rank as the oracle counts them", async () => {
    const { queries, oracle } = board(60, 4);
    for (const offset of [0, 13, 40]) {
      for (const mode of ["competition", "dense"] as const) {
        const page = await queries.top(BOARD, offset, 15, Infinity, {}, mode);
        expect(page.entries.map((e) => e.tiedRank)).toEqual(
          oracle.slice(offset, offset + 15).map((s) => (mode === "competition" ? competition : dense)(oracle, s.points)),
        );
      }
    }
  });

  it("asks every shard once for its first offset + limit, an empty shard included", async () => {
    const { shards, queries, oracle } = board(40, 5, 2, 1);
    const page = await queries.top(BOARD, 10, 5);
    expect(rows(page.entries)).toEqual(expected(oracle, 10, 15));
    expect(shards.asked.map((a) => [a.shard, a.read, a.args[0]]).sort()).toEqual([
      ["shard-0", "top", 15],
      ["shard-1", "top", 15],
      ["shard-2", "top", 15],
    ]);
  });
});

describe("router > read > rank", () => {
  it("is 1 + the entries ahead summed over the shards, for every player", async () => {
    const { queries, oracle } = board(75, 6);
    for (const [i, s] of oracle.entries()) {
      const { entry, total } = await queries.rank(BOARD, s.playerId);
      expect(rows([entry])).toEqual(expected(oracle, i, i + 1));
      expect(total).toBe(oracle.length);
    }
  });

  it("asks the owner for the player's key, then every other shard once at the owner's key", async () => {
    const { shards, queries, oracle } = board(30, 7);
    const player = oracle[12]!;
    const owner = shards.shards.find((s) => s.entries.some((e) => e.playerId === player.playerId))!;
    await queries.rank(BOARD, player.playerId);
    const key = encodeSortKey(spec, player.points, player.atMs);
    expect(shards.asked[0]).toEqual({ shard: owner.shardId, read: "ranks", args: [[player.playerId], []] });
    const positions = (a: Asked) => (a.args[1] as KeyedMember[]).map((m) => [m.key, m.playerId]);
    expect(
      shards.asked
        .slice(1)
        .map((a) => [a.shard, a.read, a.args[0], positions(a)])
        .sort(),
    ).toEqual(shards.shards.filter((s) => s !== owner).map((s) => [s.shardId, "ranks", [], [[key, player.playerId]]]));
  });

  it("reads the ranks asked in one turn together: one read of each owner, then one of each shard, each rank exact", async () => {
    const { shards, queries, oracle } = board(60, 12);
    const asked = [...[3, 40, 17, 59, 0, 3, 41].map((i) => oracle[i]!.playerId), "nobody"];
    const got = await Promise.all(
      asked.map((p) =>
        queries.rank(BOARD, p).then(
          (r) => r,
          (e: unknown) => e as LadderError,
        ),
      ),
    );
    for (const [i, p] of asked.entries()) {
      const at = oracle.findIndex((s) => s.playerId === p);
      const answer = got[i]!;
      if (at < 0) expect(answer).toMatchObject({ code: Code.NOT_FOUND });
      else if (answer instanceof LadderError) throw answer;
      else {
        expect(rows([answer.entry])).toEqual(expected(oracle, at, at + 1));
        expect(answer.total).toBe(oracle.length);
      }
    }
    expect(shards.asked.every((a) => a.read === "ranks")).toBe(true);
    // round 1: each owner once, for all of its players; round 2: each other shard once per owner, for its players' positions
    const reads = (shard: FakeShard, args: 0 | 1) =>
      shards.asked.filter((a) => a.shard === shard.shardId && (a.args[args] as unknown[]).length > 0);
    const owners = shards.shards.filter((s) => reads(s, 0).length > 0);
    for (const s of shards.shards) {
      expect(reads(s, 0).length).toBeLessThanOrEqual(1);
      expect(reads(s, 1).length).toBe(owners.filter((o) => o !== s).length);
    }
    expect(shards.asked.length).toBe(owners.length * shards.shards.length);
  });

  it("answers NOT_FOUND for a player without an entry", async () => {
    const { queries } = board(10, 8);
    await expect(queries.rank(BOARD, "nobody")).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  it("ranks many players at one instant: ranks, ranks among them, tied ranks, the missing ones", async () => {
    const { queries, oracle } = board(80, 9);
    const asked = [oracle[70]!, oracle[0]!, oracle[33]!, oracle[34]!, oracle[79]!, oracle[5]!].map((s) => s.playerId);
    for (const mode of ["unique", "competition", "dense"] as const) {
      const got = await queries.ranks(BOARD, [...asked, "nobody"], mode);
      const want = [...asked].sort((a, b) => oracle.findIndex((s) => s.playerId === a) - oracle.findIndex((s) => s.playerId === b));
      expect(got.found.map((f) => f.playerId)).toEqual(want);
      for (const [i, f] of got.found.entries()) {
        const at = oracle.findIndex((s) => s.playerId === f.playerId);
        expect([f.rank, f.rankAmong, f.points]).toEqual([at + 1, i + 1, oracle[at]!.points]);
        expect(f.tiedRank).toBe(mode === "unique" ? 0 : (mode === "competition" ? competition : dense)(oracle, oracle[at]!.points));
      }
      expect(got.missing).toEqual(["nobody"]);
      expect(got.total).toBe(oracle.length);
    }
  });

  it("asks only the players' owners first, then every shard once at one instant", async () => {
    const { shards, queries } = board(30, 23);
    const players = shards.shards[2]!.entries.slice(0, 3).map((e) => e.playerId);
    await queries.ranks(BOARD, players, "unique");
    expect(shards.asked.map((a) => [a.shard, a.read])).toEqual([
      ["shard-2", "ranks"],
      ["shard-0", "ranks"],
      ["shard-1", "ranks"],
      ["shard-2", "ranks"],
    ]);
    // the second round counts, on the shards that do not own them, the positions the first round found
    const positions = shards.asked[1]!.args[1] as KeyedMember[];
    expect(positions.map((p) => p.playerId)).toEqual(players);
  });

  it("reads again when a player moved between rounds, and answers as of the last round", async () => {
    const { shards, queries } = board(30, 10);
    const target = shards.shards[1]!.entries[3]!;
    let reads = 0;
    shards.shards[1]!.beforeRead = (read) => {
      if (read === "ranks" && ++reads === 2) target.key = encodeSortKey(spec, 1_000, t0); // now first of all
    };
    const got = await queries.ranks(BOARD, [target.playerId], "unique");
    expect(got.found.map((f) => [f.playerId, f.rank, f.points])).toEqual([[target.playerId, 1, 1_000]]);
  });

  it("refuses with UNAVAILABLE, not a rank, while a player keeps moving", async () => {
    const { shards, queries } = board(30, 11);
    const target = shards.shards[2]!.entries[0]!;
    let points = 500;
    shards.shards[2]!.beforeRead = (read) => {
      if (read === "ranks") target.key = encodeSortKey(spec, points++, t0);
    };
    await expect(queries.ranks(BOARD, [target.playerId], "unique")).rejects.toMatchObject({
      code: Code.UNAVAILABLE,
      message: expect.stringContaining("kept moving"),
    });
  });
});

/** A rank index copy of one shard as it stood when made: its own sorted list, counted by filtering (not the index's structure). */
class StillCopy {
  private readonly held: KeyedMember[];
  constructor(entries: readonly KeyedMember[]) {
    this.held = entries.map((e) => ({ ...e }));
  }
  get size(): number {
    return this.held.length;
  }
  countAhead(key: number, id: string): number {
    return this.held.filter((e) => setOrder(e, { key, playerId: id }) < 0).length;
  }
  keyOf(id: string): number | undefined {
    return this.held.find((e) => e.playerId === id)?.key;
  }
  metadata = false;
  window(key: number, id: string, radius: number) {
    const sorted = [...this.held].sort(setOrder);
    const ahead = sorted.filter((e) => setOrder(e, { key, playerId: id }) < 0).length;
    const start = radius > 0 ? Math.max(0, ahead - radius) : ahead;
    const members = radius > 0 ? sorted.slice(start, ahead + radius + 1).map((e) => ({ playerId: e.playerId, key: e.key })) : [];
    return { ahead, card: this.held.length, start, members };
  }
  ties(scale: TieScale, first: KeyedMember | undefined) {
    if (!first) return { anchor: -1, below: 0, distinct: [] };
    const { units } = scale as { units: number };
    const anchor = Math.floor(first.key / units);
    return { anchor, below: this.held.filter((e) => Math.floor(e.key / units) < anchor).length, distinct: [] };
  }
}

/** `board()` with a rank index whose copies are the shards as they stand now (or none: `copies` undefined). */
function indexedBoard(n: number, seed: number) {
  const b = board(n, seed);
  const index = {
    copies: b.shards.shards.map((s) => new StillCopy(s.entries)) as StillCopy[] | undefined,
    covers: () => true,
    ranks: () => undefined,
    copiesOf(stores: readonly { shardId: string }[]) {
      return this.copies && stores.map((s) => this.copies![Number(s.shardId.slice("shard-".length))]!);
    },
  };
  const queries = new Queries(b.shards, { forBoard: () => spec }, { rankIndex: index });
  return { ...b, index, queries };
}

describe("router > read > ranks from the rank index's copies", () => {
  it("answer from the copies after one read of each owner, exact, unique and competition; dense reads the rounds", async () => {
    const { shards, queries, oracle } = indexedBoard(90, 31);
    const asked = [oracle[80]!, oracle[0]!, oracle[40]!, oracle[41]!, oracle[89]!, oracle[6]!].map((s) => s.playerId);
    const owners = new Set(asked.map((p) => shards.scope().ownerOf(p).shardId));
    for (const mode of ["unique", "competition", "dense"] as const) {
      shards.asked.length = 0;
      const got = await queries.ranks(BOARD, [...asked, "nobody"], mode);
      for (const [i, f] of got.found.entries()) {
        const at = oracle.findIndex((s) => s.playerId === f.playerId);
        expect([f.rank, f.rankAmong, f.points]).toEqual([at + 1, i + 1, oracle[at]!.points]);
        expect(f.tiedRank).toBe(mode === "unique" ? 0 : (mode === "competition" ? competition : dense)(oracle, oracle[at]!.points));
      }
      expect(got.found.map((f) => f.playerId).sort()).toEqual([...asked].sort());
      expect([got.missing, got.total]).toEqual([["nobody"], oracle.length]);
      // the owners' one read each (shard-0 also "owns" nobody), then nothing else unless dense
      const reads = shards.asked.map((a) => a.shard);
      if (mode === "dense") expect(reads.length).toBeGreaterThan(owners.size + 1);
      else expect(reads.sort()).toEqual([...new Set([...owners, "shard-0"])].sort());
    }
  });

  it("count the copies, not the live shards: exact against the board the copies hold while others moved since", async () => {
    const { shards, queries, index } = indexedBoard(60, 32);
    const asked = shards.shards.flatMap((s) => s.entries.slice(0, 2).map((e) => e.playerId));
    // players not asked move on the live shards after the copies were made
    for (const s of shards.shards) for (const e of s.entries.slice(5, 15)) e.key = encodeSortKey(spec, 5_000 + (e.key % 97), t0);
    const got = await queries.ranks(BOARD, asked, "unique");
    const held = index.copies!.flatMap((_, i) => (index.copies![i] as unknown as { held: KeyedMember[] }).held).sort(setOrder);
    for (const f of got.found) expect(f.rank).toBe(1 + held.findIndex((e) => e.playerId === f.playerId));
    expect(got.found.map((f) => f.rank)).toEqual([...got.found.map((f) => f.rank)].sort((a, b) => a - b));
    expect(shards.asked.length).toBe(shards.shards.length); // one read of each owner
  });

  it("read the rounds when a copy holds a player asked elsewhere than its owner, or holds one its owner does not, or may not answer", async () => {
    for (const change of ["moved", "removed", "no copies"] as const) {
      const { shards, queries, index, standings } = indexedBoard(45, 33);
      const target = shards.shards[1]!.entries[4]!;
      if (change === "moved") target.key = encodeSortKey(spec, 9_000, t0); // live: first of all; its copy: where it was
      if (change === "removed") shards.shards[1]!.entries.splice(4, 1);
      if (change === "no copies") index.copies = undefined;
      shards.asked.length = 0;
      const got = await queries.ranks(BOARD, [target.playerId, shards.shards[0]!.entries[0]!.playerId], "unique");
      // the rounds read every shard, and answer the live board
      expect(new Set(shards.asked.map((a) => a.shard)).size).toBe(3);
      const live = shards.shards.flatMap((s) => s.entries).sort(setOrder);
      for (const f of got.found) expect([change, f.rank]).toEqual([change, 1 + live.findIndex((e) => e.playerId === f.playerId)]);
      expect(got.missing).toEqual(change === "removed" ? [target.playerId] : []);
      expect(got.total).toBe(standings.length - (change === "removed" ? 1 : 0));
    }
  });
});

describe("router > read > around from the rank index's copies", () => {
  it("reads the owner alone and is exact against the owner now and the other shards as their copies hold them", async () => {
    const { shards, queries, index } = indexedBoard(60, 34);
    // players move on the live shards after the copies were made: the other shards count as their copies stand
    for (const s of shards.shards) for (const e of s.entries.slice(3, 9)) e.key = encodeSortKey(spec, 4_000 + (e.key % 89), t0);
    const held = (i: number) => (index.copies![i] as unknown as { held: KeyedMember[] }).held;
    for (const [ownerIndex, owner] of shards.shards.entries())
      for (const target of [owner.entries[0]!, owner.entries[5]!, owner.entries.at(-1)!])
        for (const radius of [0, 2, 7]) {
          shards.asked.length = 0;
          const page = await queries.around(BOARD, target.playerId, radius);
          expect(shards.asked.map((a) => a.shard)).toEqual([owner.shardId]);
          const board = [...owner.entries, ...shards.shards.flatMap((_, i) => (i === ownerIndex ? [] : held(i)))].sort(setOrder);
          const at = board.findIndex((e) => e.playerId === target.playerId);
          const want = board.slice(Math.max(0, at - radius), at + radius + 1);
          expect(page.entries.map((e) => [e.playerId, e.rank])).toEqual(want.map((e, i) => [e.playerId, Math.max(0, at - radius) + i + 1]));
          expect(page.total).toBe(board.length);
          // competition ranks: 1 + the entries of that board with better points, the owner read once (with its ties)
          shards.asked.length = 0;
          const tied = await queries.around(BOARD, target.playerId, radius, Infinity, {}, "competition");
          expect(new Set(shards.asked.map((a) => a.shard))).toEqual(new Set([owner.shardId]));
          const pointsIndex = (e: KeyedMember) => Math.floor(e.key / spec.timeUnits);
          expect(tied.entries.map((e) => [e.playerId, e.rank, e.tiedRank])).toEqual(
            want.map((e, i) => [
              e.playerId,
              Math.max(0, at - radius) + i + 1,
              1 + board.filter((o) => pointsIndex(o) < pointsIndex(e)).length,
            ]),
          );
        }
  });

  it("reads every shard when a copy keeps metadata, may not answer, or dense ranks are asked", async () => {
    for (const why of ["metadata", "no copies", "dense"] as const) {
      const { shards, queries, index, oracle } = indexedBoard(45, 35);
      const owner = Number(shards.scope().ownerOf(oracle[20]!.playerId).shardId.slice("shard-".length));
      if (why === "metadata") index.copies![(owner + 1) % 3]!.metadata = true; // one other shard's copy
      if (why === "no copies") index.copies = undefined;
      shards.asked.length = 0;
      const page = await queries.around(BOARD, oracle[20]!.playerId, 3, Infinity, {}, why === "dense" ? "dense" : "unique");
      expect([why, new Set(shards.asked.map((a) => a.shard)).size]).toEqual([why, 3]);
      expect(rows(page.entries)).toEqual(expected(oracle, 17, 24));
    }
  });
});

describe("router > read > around", () => {
  it("is the oracle's window around the player, across shard boundaries and clipped at both ends", async () => {
    for (const [seed, shardCount] of [
      [12, 3],
      [13, 2],
      [14, 1],
    ] as const) {
      const { queries, oracle } = board(45, seed, shardCount);
      for (const i of [0, 1, 2, 10, 22, 42, 43, 44]) {
        for (const radius of [0, 1, 3, 8, 50]) {
          const page = await queries.around(BOARD, oracle[i]!.playerId, radius);
          expect(rows(page.entries)).toEqual(expected(oracle, i - radius, i + radius + 1));
          expect(page.total).toBe(oracle.length);
        }
      }
    }
  });
});

/** The tied rank an oracle gives an entry with `points` under `mode`. */
const tiedOf = (oracle: Standing[], mode: "competition" | "dense", points: number) =>
  (mode === "competition" ? competition : dense)(oracle, points);

/** The oracle of a board whose fake shards hold what they hold now. */
function oracleNow(shards: FakeShards, standings: Standing[]): Standing[] {
  const byId = new Map(standings.map((s) => [s.playerId, s]));
  return shards.shards
    .flatMap((sh) => sh.entries)
    .map((e): Standing => {
      const was = byId.get(e.playerId)!;
      // the fakes' keys move by whole points at the original time: decode back
      const points = Math.round(was.points + (encodeSortKey(spec, was.points, was.atMs) - e.key) / spec.timeUnits);
      return { playerId: e.playerId, points, atMs: was.atMs };
    })
    .sort(definedOrder);
}

describe("router > read > around with tied ranks", () => {
  it("ranks the ties of every window as the oracle does, competition and dense, with few or many point values", async () => {
    for (const [seed, shardCount, values] of [
      [31, 3, 4],
      [32, 2, 4],
      [33, 1, 4],
      [38, 3, 40],
      [39, 4, 400],
    ] as const) {
      const { queries, oracle } = board(45, seed, shardCount, 0, values);
      for (const mode of ["competition", "dense"] as const) {
        for (const i of [0, 1, 10, 22, 43, 44]) {
          for (const radius of [0, 2, 8]) {
            const page = await queries.around(BOARD, oracle[i]!.playerId, radius, Infinity, {}, mode);
            const want = oracle.slice(Math.max(0, i - radius), i + radius + 1);
            expect(rows(page.entries)).toEqual(expected(oracle, i - radius, i + radius + 1));
            expect(page.entries.map((e) => e.tiedRank)).toEqual(want.map((s) => tiedOf(oracle, mode, s.points)));
          }
        }
      }
    }
  });

  it("answers while a player elsewhere keeps moving across the window: each shard's page and counts at one instant", async () => {
    const { shards, queries, standings } = board(60, 34);
    const mover = shards.shards[1]!.entries[5]!;
    const was = standings.find((s) => s.playerId === mover.playerId)!;
    // every read of shard-1 flips the mover between far above and far below every other entry
    let up = false;
    shards.shards[1]!.beforeRead = () => {
      up = !up;
      mover.key = encodeSortKey(spec, up ? was.points + 1_000 : was.points - 1_000, was.atMs);
    };
    const asked = shards.shards[0]!.entries[10]!.playerId;
    for (const mode of ["competition", "dense"] as const) {
      for (let i = 0; i < 5; i++) {
        const page = await queries.around(BOARD, asked, 4, Infinity, {}, mode);
        // the board as shard-1 stood when read: the mover above or below; the answer is exact against one
        const states = [true, false].map((u) => {
          mover.key = encodeSortKey(spec, u ? was.points + 1_000 : was.points - 1_000, was.atMs);
          return oracleNow(shards, standings);
        });
        const matches = states.filter((o) => {
          const at = o.findIndex((s) => s.playerId === asked);
          const want = o.slice(Math.max(0, at - 4), at + 5);
          return (
            JSON.stringify(rows(page.entries)) === JSON.stringify(expected(o, at - 4, at + 5)) &&
            JSON.stringify(page.entries.map((e) => e.tiedRank)) === JSON.stringify(want.map((s) => tiedOf(o, mode, s.points)))
          );
        });
        expect(matches.length).toBe(1);
      }
    }
  });

  it("answers in one read per shard while entries with scores no read saw before enter the window on every read", async () => {
    for (const mode of ["competition", "dense"] as const) {
      const { shards, queries, standings, oracle } = board(40, 35);
      // the asked player is the best of its points: a newcomer with points between its and the next better lands right above it
      const at = oracle.findIndex((s, i) => i > 5 && oracle[i - 1]!.points !== s.points);
      const asked = oracle[at]!;
      const owner = shards.shards.find((s) => s.entries.some((e) => e.playerId === asked.playerId))!;
      const other = shards.shards.find((s) => s !== owner)!;
      const newcomer = other.entries.find((e) => Math.abs(oracle.findIndex((s) => s.playerId === e.playerId) - at) > 10)!;
      const was = standings.find((s) => s.playerId === newcomer.playerId)!;
      let reads = 0;
      // a score no entry had, another on each read of that shard
      other.beforeRead = () => void (newcomer.key = encodeSortKey(spec, asked.points + 1 + (reads++ % 9), was.atMs));
      for (let round = 0; round < 4; round++) {
        shards.asked.length = 0;
        const page = await queries.around(BOARD, asked.playerId, 3, Infinity, {}, mode);
        // no read since: the board now is the board each shard was read at
        const o = oracleNow(shards, standings);
        const i = o.findIndex((s) => s.playerId === asked.playerId);
        expect(rows(page.entries)).toEqual(expected(o, i - 3, i + 4));
        expect(page.entries.map((e) => e.tiedRank)).toEqual(o.slice(i - 3, i + 4).map((s) => tiedOf(o, mode, s.points)));
        expect(page.entries.map((e) => e.playerId)).toContain(newcomer.playerId);
        // the owner's standing with its ties, then each other shard's window with its ties: one command each
        const units = shards.asked.filter((x) => x.read !== "floors").map((x) => `${x.shard} ${x.read}`);
        expect(units).toEqual([
          `${owner.shardId} standing`,
          `${owner.shardId} ties`,
          ...shards.shards.filter((s) => s !== owner).flatMap((s) => [`${s.shardId} window`, `${s.shardId} ties`]),
        ]);
      }
    }
  });
});

describe("router > read > cursor pages with tied ranks", () => {
  it("walk the whole board forward and back with the oracle's tied ranks, with few or many point values", async () => {
    for (const [mode, values] of [
      ["competition", 4],
      ["dense", 4],
      ["competition", 60],
      ["dense", 60],
    ] as const) {
      const { queries, oracle } = board(64, 36, 3, 0, values);
      for (const limit of [1, 5, 13]) {
        const first = await queries.top(BOARD, 0, limit, Infinity, {}, mode);
        const seen = [...first.entries];
        let { next } = queries.cursorsOf(BOARD, first);
        let last = first;
        let previous = "";
        while (next) {
          const page = await queries.pageAt(BOARD, next, limit, Infinity, {}, mode);
          seen.push(...page.entries);
          [next, previous, last] = [page.next, page.previous, page];
        }
        expect(rows(seen)).toEqual(expected(oracle, 0, oracle.length));
        expect(seen.map((e) => e.tiedRank)).toEqual(oracle.map((s) => tiedOf(oracle, mode, s.points)));
        const back = [...last.entries];
        while (previous) {
          const page = await queries.pageAt(BOARD, previous, limit, Infinity, {}, mode);
          back.unshift(...page.entries);
          previous = page.previous;
        }
        expect(back.map((e) => [e.playerId, e.rank, e.tiedRank])).toEqual(
          oracle.map((s, i) => [s.playerId, i + 1, tiedOf(oracle, mode, s.points)]),
        );
      }
    }
  });

  it("answer while a player elsewhere keeps crossing the page: exact against the board of one instant per shard", async () => {
    const { shards, queries, standings } = board(60, 37);
    const mover = shards.shards[2]!.entries[4]!;
    const was = standings.find((s) => s.playerId === mover.playerId)!;
    let up = false;
    shards.shards[2]!.beforeRead = () => {
      up = !up;
      mover.key = encodeSortKey(spec, up ? was.points + 1_000 : was.points - 1_000, was.atMs);
    };
    const first = await queries.top(BOARD, 20, 10);
    const { next } = queries.cursorsOf(BOARD, first);
    for (const mode of ["competition", "dense"] as const) {
      for (let i = 0; i < 5; i++) {
        const page = await queries.pageAt(BOARD, next, 10, Infinity, {}, mode);
        const states = [true, false].map((u) => {
          mover.key = encodeSortKey(spec, u ? was.points + 1_000 : was.points - 1_000, was.atMs);
          return oracleNow(shards, standings);
        });
        const matches = states.filter((o) => {
          const from = page.entries[0]!.rank - 1;
          return (
            page.entries.every((e, j) => o[from + j]?.playerId === e.playerId && e.rank === from + j + 1) &&
            page.entries.every((e) => e.tiedRank === tiedOf(o, mode, e.points))
          );
        });
        expect(matches.length).toBeGreaterThan(0);
      }
    }
  });
});

describe("router > read > entry at rank", () => {
  it("finds the entry of every rank, and none past either end", async () => {
    const { queries, oracle } = board(70, 15);
    for (let k = 1; k <= oracle.length; k++) {
      const got = await queries.entryAt(BOARD, k);
      expect(got && [got.entry.playerId, got.entry.rank, got.total]).toEqual([oracle[k - 1]!.playerId, k, oracle.length]);
    }
    expect(await queries.entryAt(BOARD, 0)).toBeUndefined();
    expect(await queries.entryAt(BOARD, oracle.length + 1)).toBeUndefined();
  });

  it("takes a rank computed from the board's size (a top percentage)", async () => {
    const { queries, oracle } = board(50, 16);
    const got = await queries.entryAt(BOARD, (total) => Math.ceil(total * 0.1));
    expect(got?.entry.playerId).toBe(oracle[4]!.playerId);
    expect(got?.entry.rank).toBe(5);
  });

  it("finds every rank when all entries tie on one key", async () => {
    const standings = Array.from({ length: 40 }, (_, i): Standing => ({ playerId: `t${i}`, points: 7, atMs: t0 }));
    const slices: KeyedMember[][] = [[], [], []];
    standings.forEach((s, i) => slices[i % 3]!.push(keyed(s)));
    const queries = new Queries(new FakeShards(slices), { forBoard: () => spec });
    const oracle = [...standings].sort(definedOrder);
    for (const k of [1, 2, 20, 39, 40]) expect((await queries.entryAt(BOARD, k))?.entry.playerId).toBe(oracle[k - 1]!.playerId);
  });
});

describe("router > read > cursor pages", () => {
  it("walk forward from the first page and back from the last one through the whole board, in the oracle's order", async () => {
    const { queries, oracle } = board(64, 17);
    for (const limit of [1, 5, 7, 64]) {
      const first = await queries.top(BOARD, 0, limit);
      const seen = [...first.entries];
      let next = queries.cursorsOf(BOARD, first).next;
      let last = first;
      let previous = "";
      while (next) {
        const page = await queries.pageAt(BOARD, next, limit);
        seen.push(...page.entries);
        [next, previous, last] = [page.next, page.previous, page];
      }
      expect(rows(seen)).toEqual(expected(oracle, 0, oracle.length));
      expect(last.total).toBe(oracle.length);
      // and back: each previous page ends right above the page it was made from
      const back = [...last.entries];
      while (previous) {
        const page = await queries.pageAt(BOARD, previous, limit);
        back.unshift(...page.entries);
        previous = page.previous;
      }
      expect(rows(back)).toEqual(expected(oracle, 0, oracle.length));
    }
  });

  it("continue from the position when the cursor's own player moved away: no entry skipped or repeated", async () => {
    const { shards, queries, oracle } = board(40, 18);
    const page = await queries.top(BOARD, 0, 10);
    const { next } = queries.cursorsOf(BOARD, page);
    const moved = shards.shards.flatMap((s) => s.entries).find((e) => e.playerId === oracle[9]!.playerId)!;
    moved.key = encodeSortKey(spec, 1, t0); // the cursor's player falls to the bottom
    const rest = await queries.pageAt(BOARD, next, 10);
    const now = oracle.filter((s) => s.playerId !== moved.playerId);
    expect(rows(rest.entries)).toEqual(
      now.slice(9, 19).map((s, i) => ({ playerId: s.playerId, points: s.points, atMs: s.atMs, rank: 10 + i })),
    );
  });

  it("refuse a cursor of another board", async () => {
    const { queries } = board(20, 19);
    const { next } = queries.cursorsOf(BOARD, await queries.top(BOARD, 0, 5));
    await expect(queries.pageAt("other", next, 5)).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
  });
});

describe("router > read > trimmed board", () => {
  /** A board with keep_top whose trim at the oracle's entry `at` shard 0 alone has applied: the others still hold entries below. */
  function halfTrimmed(at: number) {
    const b = board(60, 21);
    const trimmed = { ...spec, retention: { keepTop: at, keepMargin: 1, expireInactiveMs: 0 } };
    const queries = new Queries(b.shards, { forBoard: () => trimmed });
    const floor = keyed(b.oracle[at]!);
    const [first, ...rest] = b.shards.shards;
    first!.entries.splice(0, Infinity, ...first!.entries.filter((e) => setOrder(e, floor) <= 0));
    first!.floorsHeld = [floor];
    const below = b.oracle.slice(at + 1).filter((s) => rest.some((r) => r.entries.some((e) => e.playerId === s.playerId)));
    return { queries, oracle: b.oracle, below };
  }

  it("ranks no entry below the highest floor: pages end there, ranks of many list it missing", async () => {
    const { queries, oracle, below } = halfTrimmed(30);
    expect(below.length).toBeGreaterThan(5);
    const top = await queries.top(BOARD, 0, 60);
    expect(rows(top.entries)).toEqual(expected(oracle, 0, 31));
    // by cursor from rank 21: the page is cut at the floor, and is the last
    const page = await queries.pageAt(BOARD, queries.cursorsOf(BOARD, await queries.top(BOARD, 0, 20)).next, 30);
    expect([rows(page.entries), page.next]).toEqual([expected(oracle, 20, 31), ""]);
    const asked = [below[0]!.playerId, oracle[3]!.playerId, below[1]!.playerId, oracle[30]!.playerId];
    for (const mode of ["unique", "competition"] as const) {
      const got = await queries.ranks(BOARD, asked, mode);
      expect(got.found.map((f) => [f.playerId, f.rank, f.rankAmong])).toEqual([
        [oracle[3]!.playerId, 4, 1],
        [oracle[30]!.playerId, 31, 2],
      ]);
      expect([got.missing, got.belowFloor]).toEqual([
        [below[0]!.playerId, below[1]!.playerId],
        [below[0]!.playerId, below[1]!.playerId],
      ]);
    }
    await expect(queries.rank(BOARD, below[0]!.playerId)).rejects.toMatchObject({
      code: Code.NOT_FOUND,
      message: expect.stringContaining("below the floor"),
    });
    // the entry at a rank: the floor's own entry answered, the first held below it refused
    expect((await queries.entryAt(BOARD, 31))?.entry.playerId).toBe(oracle[30]!.playerId);
    await expect(queries.entryAt(BOARD, 32)).rejects.toMatchObject({
      code: Code.NOT_FOUND,
      message: expect.stringContaining("below its floor"),
    });
  });
});

describe("router > read > count", () => {
  it("counts the entries whose points lie in a range, as the oracle does", async () => {
    const { queries, oracle } = board(60, 20);
    for (const [min, max] of [
      [100, 130],
      [110, 110],
      [115, 125],
      [undefined, 120],
      [120, undefined],
      [200, 300],
      [130, 100],
    ] as const) {
      const got = await queries.count(BOARD, min, max);
      expect(got.count).toBe(oracle.filter((s) => s.points >= (min ?? -Infinity) && s.points <= (max ?? Infinity)).length);
      expect(got.total).toBe(oracle.length);
    }
  });
});

describe("router > read > refusals", () => {
  /** Every kind of read, on a board whose players are known. */
  const reads = (queries: Queries, player: string, cursor: string): Array<[string, () => Promise<unknown>]> => [
    ["top", () => queries.top(BOARD, 0, 10)],
    ["rank", () => queries.rank(BOARD, player)],
    ["around", () => queries.around(BOARD, player, 3)],
    ["ranks", () => queries.ranks(BOARD, [player], "competition")],
    ["entry at rank", () => queries.entryAt(BOARD, 5)],
    ["cursor page", () => queries.pageAt(BOARD, cursor, 5)],
    ["count", () => queries.count(BOARD, 100, 120)],
  ];

  const faults: Array<[string, (shardId: string) => () => Promise<never>, { code: number; message: RegExp }]> = [
    [
      "built for another placement",
      (id) => () =>
        Promise.reject(
          new StampMismatch(`${id}: the shard was built with another configuration than this router's: slots differ`, ["slots"]),
        ),
      { code: Code.FAILED_PRECONDITION, message: /another configuration.*slots differ/ },
    ],
    [
      "not serving",
      (id) => () => Promise.reject(new LadderError(Code.UNAVAILABLE, `${id}: not serving reads: catching up`, { retriable: true })),
      { code: Code.UNAVAILABLE, message: /not serving reads: catching up/ },
    ],
    [
      "unreachable",
      () => () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:7002")),
      { code: Code.UNAVAILABLE, message: /^shard-1: its Redis is not reachable \(not connected\), retry$/ },
    ],
    ["silent", () => () => new Promise<never>(() => {}), { code: Code.UNAVAILABLE, message: /shard-1: no answer within 40 ms/ }],
  ];

  for (const [what, fault, want] of faults) {
    it(`answers no read while one shard is ${what}: the whole read fails with its reason`, async () => {
      const standings = randomStandings(30, 21);
      const slices: KeyedMember[][] = [[], [], []];
      standings.forEach((s, i) => slices[i % 3]!.push(keyed(s)));
      const shards = new FakeShards(slices, 40);
      const queries = new Queries(shards, { forBoard: () => spec });
      const player = shards.shards[0]!.entries[2]!.playerId; // owned by a healthy shard: the faulty one is among the others
      const { next } = queries.cursorsOf(BOARD, await queries.top(BOARD, 0, 5));
      shards.shards[1]!.fault = fault("shard-1");
      for (const [name, read] of reads(queries, player, next)) {
        const err = await read().then(
          () => new Error(`${name} answered`),
          (e: unknown) => e,
        );
        expect(err, name).toBeInstanceOf(LadderError);
        expect({ read: name, code: (err as LadderError).code }).toEqual({ read: name, code: want.code });
        expect((err as LadderError).message, name).toMatch(want.message);
      }
    });
  }

  it("answers DEADLINE_EXCEEDED when the caller's deadline has passed, before asking any shard", async () => {
    const { shards, queries } = board(10, 22);
    await expect(queries.top(BOARD, 0, 5, Date.now() - 1)).rejects.toMatchObject({ code: Code.DEADLINE_EXCEEDED });
    expect(shards.asked).toEqual([]);
  });
});

describe("router > read > shard unreachable", () => {
  it("words the Redis client's connection failures in ladder's terms, and keeps any other message", () => {
    const cases: Array<[string, string]> = [
      ['Reached the max retries per request limit (which is 0). Refer to "maxRetriesPerRequest" option for details.', "connection lost"],
      ["Stream isn't writeable and enableOfflineQueue options is false", "not connected"],
      ["Connection is closed.", "connection lost"],
      ["Command timed out", "no answer in time"],
    ];
    for (const [message, why] of cases) {
      const e = shardUnreachable("shard-1", new Error(message));
      expect(e.code).toBe(Code.UNAVAILABLE);
      expect(e.retriable).toBe(true);
      expect(e.message).toBe(`shard-1: its Redis is not reachable (${why}), retry`);
    }
    expect(shardUnreachable("shard-2", new Error("NOPERM this user has no permissions")).message).toBe(
      "shard-2: NOPERM this user has no permissions",
    );
  });
});
