// Differential test of the read scripts during a move in place (read-header.lua, "Moves"): a board key
// read while "<prefix>move" is in phase 'moving' / 'undo' (exclusion "!arr") or 'drain' (exclusion
// "!dep") must answer exactly as the same board without the excluded members, read with no move at all.
// Each scenario builds the board with its exclusion under one fresh prefix and the reference (the board
// minus the exclusion, its metadata and histogram adjusted) under another, then compares every read kind
// of read-batch.lua (and the single-read scripts) on both. The last tests drain the exclusion with
// move-drain.lua and check after every step that the readers see no change.
import { Redis } from "ioredis";
import { afterAll, describe, expect, inject, it } from "vitest";
import { freshNamespace } from "@ladder/platform/test-namespace";
import { withMoveScripts, withReadScripts, type MoveScripts, type ReadScripts, type Reply } from "./scripts.js";

const redis = withMoveScripts(withReadScripts(new Redis(inject("redisUrls")[0]!))) as Redis & ReadScripts & MoveScripts;
afterAll(() => redis.quit());

const STAMP = "stamp-1";

// ---- deterministic randomness -------------------------------------------------------------------

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const int = (rnd: () => number, lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
function sample<T>(rnd: () => number, xs: readonly T[], n: number): T[] {
  const copy = [...xs];
  const out: T[] = [];
  while (out.length < n && copy.length > 0) out.push(copy.splice(Math.floor(rnd() * copy.length), 1)[0]!);
  return out;
}

// ---- the data -------------------------------------------------------------------------------------

interface Entry {
  player: string;
  score: number;
}
interface Board {
  entries: Entry[]; // in board order (score ascending, then member bytes ascending)
  meta: Map<string, string>;
  bounds: number[]; // first sort key of bucket i, ascending
}

const byBoardOrder = (a: Entry, b: Entry) => a.score - b.score || Buffer.compare(Buffer.from(a.player), Buffer.from(b.player));

function makeBoard(seed: number): Board {
  const rnd = mulberry32(seed);
  const entries: Entry[] = [];
  for (let i = 1; i <= 2900; i++) entries.push({ player: `p${String(i).padStart(4, "0")}`, score: int(rnd, 0, 300) });
  // unique large keys, and ids of other lengths that interleave with "pNNNN" byte-wise
  for (let i = 0; i < 60; i++) entries.push({ player: `q${i}`, score: 1000 + i * 37 + int(rnd, 0, 30) });
  for (let i = 1; i <= 40; i++) entries.push({ player: `p${i * 7}`, score: int(rnd, 0, 300) });
  entries.sort(byBoardOrder);
  const meta = new Map<string, string>();
  for (const e of entries) if (rnd() < 0.3) meta.set(e.player, `meta ${int(rnd, 0, 1e6)} lvl-${int(rnd, 1, 99)}`);
  // bucket 0 is small (keys 2..3), so that an exclusion of the top 50 empties it; bucket 5 holds the large keys
  const bounds = [2, 4, 60, 150, 250, 301];
  return { entries, meta, bounds };
}

type Shape = "uniform" | "run" | "top50" | "tail17";
function exclusionOf(board: Board, shape: Shape, seed: number): Set<string> {
  const rnd = mulberry32(seed * 7919 + 17);
  const { entries } = board;
  if (shape === "uniform") return new Set(entries.filter(() => rnd() < 0.2).map((e) => e.player));
  if (shape === "top50") return new Set(entries.slice(0, 50).map((e) => e.player));
  // the last 187 entries (the unique large keys among them) but every 17th: runs of 16 excluded
  // members, one script page (first_from) each, then a kept one
  if (shape === "tail17")
    return new Set(
      entries
        .slice(-187)
        .filter((_, i) => i % 17 !== 16)
        .map((e) => e.player),
    );
  const start = int(rnd, 200, entries.length - 700);
  return new Set(entries.slice(start, start + 450).map((e) => e.player));
}

const bucketOf = (bounds: readonly number[], score: number) => {
  let b = -1;
  for (let i = 0; i < bounds.length; i++) if (bounds[i]! <= score) b = i;
  return b;
};

/** Writes a board key with its metadata and histogram (and optionally a companion) under `prefix`. */
async function writeBoard(
  prefix: string,
  board: Board,
  opts: { keep?: (player: string) => boolean; companion?: { suffix: string; members: Set<string> } } = {},
) {
  const key = `${prefix}board:b`;
  const keep = opts.keep ?? (() => true);
  const entries = board.entries.filter((e) => keep(e.player));
  const p = redis.pipeline();
  p.zadd(key, ...entries.flatMap((e) => [e.score, e.player]));
  const metas = entries.filter((e) => board.meta.has(e.player));
  if (metas.length > 0) p.zadd(`${key}!meta`, ...metas.flatMap((e) => [0, `${e.player}\n${board.meta.get(e.player)}`]));
  p.zadd(`${key}!hbounds`, ...board.bounds.flatMap((s, i) => [s, String(i)]));
  const counts = new Map<number, number>();
  for (const e of entries) {
    const b = bucketOf(board.bounds, e.score);
    if (b >= 0) counts.set(b, (counts.get(b) ?? 0) + 1);
  }
  if (counts.size > 0) p.zadd(`${key}!hist`, ...[...counts].flatMap(([b, c]) => [c, String(b)]));
  if (opts.companion) {
    const ex = board.entries.filter((e) => opts.companion!.members.has(e.player));
    if (ex.length > 0) p.zadd(`${key}${opts.companion.suffix}`, ...ex.flatMap((e) => [e.score, e.player]));
  }
  // a second board key without a companion, read in the same scripts
  p.zadd(`${prefix}board:c`, ...board.entries.slice(0, 200).flatMap((e, i) => [e.score + i, `c-${e.player}`]));
  p.set(`${prefix}heartbeat`, STAMP, "PX", 60_000);
  const res = await p.exec();
  for (const [err] of res ?? []) if (err) throw err;
}

async function cleanup(...prefixes: string[]) {
  for (const prefix of prefixes) {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== "0");
  }
}

// ---- the reads ------------------------------------------------------------------------------------

type Read = { board?: "b" | "c"; args: Array<string | number> };
type Outcome = { ok: unknown } | { error: string };

async function settle(p: Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await p };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/**
 * A histogram reply ('h': 0, card, then bucket, count pairs) with its pairs in bucket order. The script
 * lists them in the order of ZRANGE over "!hist" (by count), and with an exclusion by the counts
 * before subtracting it, so the order alone may differ from the reference's; its one reader
 * (ShardReader.histogram) keeps them in a Map. The order is checked on its own below.
 */
function bucketOrder(reply: unknown): unknown {
  if (!Array.isArray(reply) || reply[0] !== 0) return reply;
  const pairs: Array<[unknown, unknown]> = [];
  for (let i = 2; i + 1 < reply.length; i += 2) pairs.push([reply[i], reply[i + 1]]);
  pairs.sort((a, b) => Number(a[0]) - Number(b[0]));
  return [reply[0], reply[1], ...pairs.flat()];
}

function batch(prefix: string, reads: readonly Read[], opts: { histogramOrder?: "buckets" | "as-replied" } = {}): Promise<Outcome> {
  const keys = reads.map((r) => `${prefix}board:${r.board ?? "b"}`);
  const run = redis.ladderBatch(1 + reads.length, `${prefix}heartbeat`, ...keys, STAMP, ...reads.flatMap((r) => r.args));
  if (opts.histogramOrder === "as-replied") return settle(run);
  return settle(run.then((out) => out.map((reply, i) => (i > 0 && reads[i - 1]!.args[0] === "h" ? bucketOrder(reply) : reply))));
}

/** Runs the same call on the scenario's prefix and on the reference's and expects equal replies (and no error). */
async function same(label: string, moved: string, ref: string, call: (prefix: string) => Promise<Outcome>) {
  const [a, b] = await Promise.all([call(moved), call(ref)]);
  expect.soft("error" in b ? b.error : null, `${label}: the reference errs`).toBeNull();
  expect.soft("error" in a ? a.error : null, `${label}: the moved board errs`).toBeNull();
  if ("ok" in a && "ok" in b) {
    const x = a.ok as unknown[];
    const y = b.ok as unknown[];
    expect.soft(x[0], `${label}: status`).toBe(0);
    if (Array.isArray(x) && Array.isArray(y) && x.length === y.length && x.length > 2 && Array.isArray(x[1])) {
      // a batch: compare read by read, so that a failure names the read
      for (let i = 1; i < x.length; i++) expect.soft(x[i], `${label}: read ${i - 1}`).toEqual(y[i]);
    } else {
      expect.soft(x, label).toEqual(y);
    }
  }
}

/** Every read kind, at positions taken from kept members, excluded members and absent players. */
function readGroups(board: Board, excluded: Set<string>, seed: number): Array<[string, Read[]]> {
  const rnd = mulberry32(seed * 31 + 5);
  const kept = board.entries.filter((e) => !excluded.has(e.player));
  const gone = board.entries.filter((e) => excluded.has(e.player));
  const absentIds = ["", "a", "p0000", "p0100x", "p9999", "q", "zzz", "P0001"];
  const absent: Entry[] = absentIds.map((player) => ({ player, score: int(rnd, -5, 320) }));
  absent.push({ player: "p0001x", score: 100_000 }, { player: "", score: -1 }, { player: "", score: 0 }, { player: "zz", score: 5000 });
  const keptPos = [...sample(rnd, kept, 12), kept[0]!, kept[kept.length - 1]!];
  const gonePos = [...sample(rnd, gone, 10), gone[0]!, gone[gone.length - 1]!];
  const shifted = sample(rnd, kept, 4).map((e) => ({ player: e.player, score: e.score + 1 }));
  const positions = [...keptPos, ...gonePos, ...absent, ...shifted];
  const w = (e: Entry, radius: number): Read => ({ args: ["w", String(e.score), e.player, radius] });

  const groups: Array<[string, Read[]]> = [];
  groups.push(["top", [1, 10, 100, 5000].map((n): Read => ({ args: ["t", n] })).concat([{ board: "c", args: ["t", 20] }])]);
  groups.push([
    "window",
    positions.flatMap((e) => [0, 3, 25].map((r) => w(e, r))).concat([{ board: "c", args: ["w", "150", "c-p0001", 3] }]),
  ]);
  const standing: Read[] = [];
  for (const e of sample(rnd, kept, 10)) standing.push({ args: ["s", e.player, 0] }, { args: ["s", e.player, 5] });
  standing.push({ args: ["s", kept[0]!.player, 5] }, { args: ["s", kept[kept.length - 1]!.player, 5] });
  for (const e of [...sample(rnd, gone, 8), gone[0]!]) standing.push({ args: ["s", e.player, 0] }, { args: ["s", e.player, 5] });
  for (const e of absent.slice(0, 4)) standing.push({ args: ["s", e.player, 5] });
  groups.push(["standing", standing]);
  groups.push(["entry", [...sample(rnd, kept, 6), ...sample(rnd, gone, 6), ...absent.slice(0, 4)].map((e) => ({ args: ["e", e.player] }))]);
  const ranks = (kind: "r" | "P"): Read => {
    const own = [...sample(rnd, kept, 4), ...sample(rnd, gone, 3), absent[2]!, absent[5]!].map((e) => e.player);
    const pos = [...sample(rnd, kept, 3), ...sample(rnd, gone, 3), ...sample(rnd, absent, 3)];
    return { args: [kind, own.length, ...own, pos.length, ...pos.flatMap((e) => [String(e.score), e.player])] };
  };
  groups.push([
    "ranks",
    [ranks("r"), ranks("r"), ranks("P"), { args: ["r", 0, 0] }, { board: "c", args: ["r", 1, "c-p0002", 1, "100", "x"] }],
  ]);
  groups.push([
    "distinct",
    [
      [10, 1000, 100],
      [10, 15, 3],
      [10, 31, 5],
      [1, 100, 20],
      [1, 10, 3],
      [10, 1_000_000, 200],
      [100, 1_000_000, 10],
      [1, 1e9, 500],
    ].map(([u, b, c]) => ({ args: ["d", u!, b!, c!] })),
  ]);
  const after: Read[] = [];
  const afterPos = [...sample(rnd, keptPos, 4), ...sample(rnd, gonePos, 4), ...sample(rnd, absent, 4), kept[0]!, gone[0]!];
  for (const e of afterPos)
    for (const n of [1, 7, 40]) for (const back of [0, 1]) after.push({ args: ["a", String(e.score), e.player, n, back] });
  groups.push(["after", after]);
  const hist: Read[] = [{ args: ["h"] }, { board: "c", args: ["h"] }];
  for (let j = -1; j <= board.bounds.length; j++) hist.push({ args: ["H", j] });
  groups.push(["histogram", hist]);
  return groups;
}

/** Compares every read group, and each single-read script once or twice, on both prefixes. */
async function compareAll(label: string, moved: string, ref: string, board: Board, excluded: Set<string>, seed: number) {
  for (const [name, reads] of readGroups(board, excluded, seed)) {
    await same(`${label} ${name}`, moved, ref, (prefix) => batch(prefix, reads));
  }
  const kept = board.entries.filter((e) => !excluded.has(e.player));
  const gone = board.entries.filter((e) => excluded.has(e.player));
  const k = kept[Math.floor(kept.length / 2)]!;
  const g = gone.length > 0 ? gone[Math.floor(gone.length / 2)]! : k;
  const B = (prefix: string) => `${prefix}board:b`;
  const H = (prefix: string) => `${prefix}heartbeat`;
  await same(`${label} ladderTop`, moved, ref, (p) => settle(redis.ladderTop(B(p), H(p), STAMP, 30)));
  await same(`${label} ladderWindow kept`, moved, ref, (p) => settle(redis.ladderWindow(B(p), H(p), STAMP, String(k.score), k.player, 4)));
  await same(`${label} ladderWindow excluded`, moved, ref, (p) =>
    settle(redis.ladderWindow(B(p), H(p), STAMP, String(g.score), g.player, 4)),
  );
  await same(`${label} ladderStanding kept`, moved, ref, (p) => settle(redis.ladderStanding(B(p), H(p), STAMP, k.player, 4)));
  await same(`${label} ladderStanding excluded`, moved, ref, (p) => settle(redis.ladderStanding(B(p), H(p), STAMP, g.player, 4)));
  await same(`${label} ladderEntry kept`, moved, ref, (p) => settle(redis.ladderEntry(B(p), H(p), STAMP, k.player)));
  await same(`${label} ladderEntry excluded`, moved, ref, (p) => settle(redis.ladderEntry(B(p), H(p), STAMP, g.player)));
}

/** Sanity of the reference itself against the model: its size and first entries. */
async function checkReference(ref: string, board: Board, excluded: Set<string>) {
  const kept = board.entries.filter((e) => !excluded.has(e.player));
  const top = await redis.zrange(`${ref}board:b`, "0", "9", "WITHSCORES");
  expect(top).toEqual(kept.slice(0, 10).flatMap((e) => [e.player, String(e.score)]));
  expect(await redis.zcard(`${ref}board:b`)).toBe(kept.length);
}

interface Scenario {
  seed: number;
  shape: Shape;
  phase: "moving" | "undo" | "drain";
  suffix: "!arr" | "!dep";
}

const SCENARIOS: Scenario[] = [
  ...[11, 22, 33].flatMap((seed) =>
    (["uniform", "run", "top50", "tail17"] as const).map((shape) => ({ seed, shape, phase: "moving" as const, suffix: "!arr" as const })),
  ),
  { seed: 44, shape: "uniform", phase: "drain", suffix: "!dep" },
  { seed: 55, shape: "top50", phase: "drain", suffix: "!dep" },
  { seed: 66, shape: "run", phase: "undo", suffix: "!arr" },
  { seed: 77, shape: "uniform", phase: "undo", suffix: "!arr" },
];

describe("read scripts during a move: the board as if its exclusion were not there", () => {
  it.each(SCENARIOS)("seed $seed, $shape exclusion, phase $phase ($suffix)", async ({ seed, shape, phase, suffix }) => {
    const moved = freshNamespace("move-reads").keyPrefix;
    const ref = freshNamespace("move-reads-ref").keyPrefix;
    try {
      const board = makeBoard(seed);
      const excluded = exclusionOf(board, shape, seed);
      expect(excluded.size).toBeGreaterThan(0);
      await writeBoard(moved, board, { companion: { suffix, members: excluded } });
      await redis.hset(`${moved}move`, { phase });
      await writeBoard(ref, board, { keep: (p) => !excluded.has(p) });
      await checkReference(ref, board, excluded);
      await compareAll(`${phase}/${shape}/${seed}`, moved, ref, board, excluded, seed);
    } finally {
      await cleanup(moved, ref);
    }
  });

  it.each([
    { what: "no move key", phase: undefined, suffix: "!arr" },
    { what: "phase 'drain' with only a !arr companion", phase: "drain", suffix: "!arr" },
    { what: "phase 'moving' with only a !dep companion", phase: "moving", suffix: "!dep" },
  ])("leaves nothing out with $what", async ({ phase, suffix }) => {
    const moved = freshNamespace("move-reads").keyPrefix;
    const ref = freshNamespace("move-reads-ref").keyPrefix;
    try {
      const board = makeBoard(88);
      const companion = exclusionOf(board, "uniform", 88);
      await writeBoard(moved, board, { companion: { suffix, members: companion } });
      if (phase) await redis.hset(`${moved}move`, { phase });
      await writeBoard(ref, board);
      await checkReference(ref, board, new Set());
      // positions are still drawn from the companion's members: they are plain members here
      await compareAll(`no exclusion (${phase ?? "none"}${suffix})`, moved, ref, board, companion, 88);
    } finally {
      await cleanup(moved, ref);
    }
  });

  // Fails while read_histogram lists buckets by their counts before the exclusion is subtracted (see bucketOrder).
  it("lists a histogram's buckets in the reference's order ('h')", async () => {
    const moved = freshNamespace("move-reads").keyPrefix;
    const ref = freshNamespace("move-reads-ref").keyPrefix;
    try {
      const board = makeBoard(11);
      const excluded = exclusionOf(board, "run", 11);
      await writeBoard(moved, board, { companion: { suffix: "!arr", members: excluded } });
      await redis.hset(`${moved}move`, { phase: "moving" });
      await writeBoard(ref, board, { keep: (p) => !excluded.has(p) });
      await same("histogram order", moved, ref, (p) => batch(p, [{ args: ["h"] }], { histogramOrder: "as-replied" }));
    } finally {
      await cleanup(moved, ref);
    }
  });

  it("refuses reads without the reader's stamp, whatever the move", async () => {
    const moved = freshNamespace("move-reads").keyPrefix;
    try {
      const board = makeBoard(99);
      await writeBoard(moved, board, { companion: { suffix: "!arr", members: exclusionOf(board, "uniform", 99) } });
      await redis.hset(`${moved}move`, { phase: "moving" });
      expect(await redis.ladderBatch(2, `${moved}heartbeat`, `${moved}board:b`, "stamp-2", "h")).toEqual([-2]);
      await redis.del(`${moved}heartbeat`);
      expect(await redis.ladderBatch(2, `${moved}heartbeat`, `${moved}board:b`, STAMP, "h")).toEqual([-1]);
    } finally {
      await cleanup(moved);
    }
  });
});

describe("move-drain.lua: deleting the exclusion changes no read", () => {
  const drainChecks = (board: Board, excluded: Set<string>, seed: number): Read[] => {
    const rnd = mulberry32(seed + 1234);
    const kept = board.entries.filter((e) => !excluded.has(e.player));
    const gone = board.entries.filter((e) => excluded.has(e.player));
    const reads: Read[] = [{ args: ["t", 100] }, { args: ["h"] }, ...[0, 1, 3, 5].map((j): Read => ({ args: ["H", j] }))];
    for (const e of [...sample(rnd, kept, 3), ...sample(rnd, gone, 3), { player: "p0000", score: 150 }])
      reads.push({ args: ["w", String(e.score), e.player, 5] });
    for (const e of [...sample(rnd, kept, 3), ...sample(rnd, gone, 2)]) reads.push({ args: ["s", e.player, 3] });
    reads.push(
      { args: ["a", "100", "p1500", 40, 0] },
      { args: ["a", "100", "p1500", 40, 1] },
      { args: ["d", 10, 1000, 100] },
      { args: ["d", 1, 1e9, 500] },
    );
    return reads;
  };

  it.each([
    { seed: 101, shape: "uniform" as Shape, phase: "drain", suffix: "!dep", count: 100 },
    { seed: 102, shape: "run" as Shape, phase: "undo", suffix: "!arr", count: 100 },
    { seed: 103, shape: "top50" as Shape, phase: "drain", suffix: "!dep", count: 7 },
  ])("phase $phase ($suffix, $shape), $count at a time", async ({ seed, shape, phase, suffix, count }) => {
    const moved = freshNamespace("move-drain").keyPrefix;
    const ref = freshNamespace("move-drain-ref").keyPrefix;
    try {
      const board = makeBoard(seed);
      const excluded = exclusionOf(board, shape, seed);
      await writeBoard(moved, board, { companion: { suffix, members: excluded } });
      await writeBoard(ref, board, { keep: (p) => !excluded.has(p) });
      const B = `${moved}board:b`;
      const reads = drainChecks(board, excluded, seed);
      // the top 50 hold every entry of bucket 0 (keys 2..3): draining them must empty it
      if (shape === "top50") expect(await redis.zscore(`${ref}board:b!hist`, "0")).toBeNull();

      // not in a draining phase: nothing happens
      expect(await redis.ladderMoveDrain(`${moved}move`, B, count)).toEqual([-1, ""]);
      await redis.hset(`${moved}move`, { phase: "moving" });
      expect(await redis.ladderMoveDrain(`${moved}move`, B, count)).toEqual([-1, "moving"]);
      expect(await redis.zcard(`${B}${suffix}`)).toBe(excluded.size);
      await redis.hset(`${moved}move`, { phase });

      await same(`${phase} before draining`, moved, ref, (p) => batch(p, reads));
      let left = excluded.size;
      let calls = 0;
      while (left > 0) {
        const reply = (await redis.ladderMoveDrain(`${moved}move`, B, count)) as Reply;
        calls++;
        expect(reply[0]).toBe(0);
        expect(reply[1]).toBe(Math.min(count, left));
        expect(reply[2]).toBe(left - Math.min(count, left));
        left = reply[2] as number;
        await same(`${phase} after drain call ${calls} (${left} left)`, moved, ref, (p) => batch(p, reads));
        expect(calls).toBeLessThan(100);
      }
      expect(calls).toBe(Math.ceil(excluded.size / count));

      expect(await redis.zrange(B, "0", "-1", "WITHSCORES")).toEqual(await redis.zrange(`${ref}board:b`, "0", "-1", "WITHSCORES"));
      expect(await redis.exists(`${B}${suffix}`)).toBe(0);
      const meta = await redis.zrange(`${B}!meta`, "0", "-1");
      expect(meta.filter((m) => excluded.has(m.slice(0, m.indexOf("\n"))))).toEqual([]);
      expect(meta).toEqual(await redis.zrange(`${ref}board:b!meta`, "0", "-1"));
      expect(await redis.zrange(`${B}!hist`, "0", "-1", "WITHSCORES")).toEqual(
        await redis.zrange(`${ref}board:b!hist`, "0", "-1", "WITHSCORES"),
      );
      expect(await redis.zrange(`${B}!hbounds`, "0", "-1", "WITHSCORES")).toEqual(
        await redis.zrange(`${ref}board:b!hbounds`, "0", "-1", "WITHSCORES"),
      );
      // drained: one more call deletes nothing
      expect(await redis.ladderMoveDrain(`${moved}move`, B, count)).toEqual([0, 0, 0]);
      await same(`${phase} drained`, moved, ref, (p) => batch(p, reads));
    } finally {
      await cleanup(moved, ref);
    }
  });
});
