// A board with three 64-bit sort columns (docs/columns.md) on the real processes: 3 shards, a router,
// an ingest. Static players hold values past 2^53 with ties on the first columns; hot players move
// all three columns with INCREMENT batches while readers ask GetTop (offsets), cursor pages,
// GetAround, GetRank and GetRanks. Every answer must hold at every instant:
//   - no player twice; ranks consecutive; entries strictly in the board's order; total = the board's
//     size; 1 <= rank <= total;
//   - a static entry shows exactly the oracle's values and time, and its rank lies within
//     [1 + the static players ahead of it, that + the hot players other than it]; a hot entry's too;
//   - the asked player is in its own neighbourhood, with `radius` entries each side unless clipped.
// At rest, and again after every shard is rebuilt, every read equals the oracle exactly. The shards take
// snapshots every 500 records while the players move (a snapshot's reads stay right while records are
// applied: writer/snapshot.ts), and the rebuild starts from the latest one and replays the log after it.
// The board's order is written out here (each column by its own direction, then the time reached,
// then the player id's bytes), not imported from the implementation; the values are kept with BigInt.
import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { AdminService, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, SortOrder, type Entry, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { RankMode } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { outcome, served, startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";

const BOARD = "arena3";
const STATIC = 240;
const HOT = 12;
const TOTAL = STATIC + HOT;
const RADIUS = 4;
const READERS = 8;
const READ_MIN_MS = 8_000;
const MIN_ANSWERS = 800;
/** Records the writers write at least (4 snapshots' worth of LADDER_SNAPSHOT_RECORDS over 3 shards), however slow the machine. */
const MIN_WRITTEN = 2_000;
const RESOLUTION_MS = 1000;
const LOWER = [false, true, false]; // points (higher first), time (lower first), kills (higher first)
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

const staticId = (i: number) => `s${String(i).padStart(3, "0")}`;
const hotId = (i: number) => `h${String(i).padStart(2, "0")}`;
const isHot = (p: string) => p.startsWith("h");

let seed = 3_2026;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;

interface Held {
  playerId: string;
  values: bigint[];
  reachedAtMs: number;
}

/** -1 when a ranks ahead of b: each column by its direction, then earlier time, then id bytes. */
function order(a: Held, b: Held): number {
  for (let i = 0; i < LOWER.length; i++) {
    if (a.values[i] === b.values[i]) continue;
    return (LOWER[i] ? a.values[i]! < b.values[i]! : a.values[i]! > b.values[i]!) ? -1 : 1;
  }
  if (a.reachedAtMs !== b.reachedAtMs) return a.reachedAtMs < b.reachedAtMs ? -1 : 1;
  return Buffer.compare(Buffer.from(a.playerId), Buffer.from(b.playerId));
}

const heldOf = (e: Entry): Held => ({ playerId: e.playerId, values: e.columns, reachedAtMs: Number(e.reachedAtMs) });
const clamp = (x: bigint) => (x > INT64_MAX ? INT64_MAX : x < INT64_MIN ? INT64_MIN : x);
const unit = (ms: number) => Math.floor(ms / RESOLUTION_MS) * RESOLUTION_MS;

let c: TestCluster;
let admin: ClientOf<typeof AdminService>;
const oracle = new Map<string, Held>();
const written: PartitionOffset[] = [];
let statics: Held[] = [];

beforeAll(async () => {
  c = await startTestCluster("columns", {
    ownRedis: true,
    settings: { LADDER_SNAPSHOT_RECORDS: "500", LADDER_SNAPSHOT_MIN_INTERVAL_MS: "2000" },
  });
  admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
  await admin.createBoard({
    board: {
      name: BOARD,
      defaultOp: Operation.SET,
      allowOpOverride: true,
      rules: {
        resolutionMs: RESOLUTION_MS,
        columns: [
          { name: "points", order: SortOrder.HIGHER_IS_BETTER },
          { name: "time", order: SortOrder.LOWER_IS_BETTER },
          { name: "kills", order: SortOrder.HIGHER_IS_BETTER },
        ],
      },
    },
  });
  // ingest follows the definitions: wait until it takes the board
  for (const from = Date.now(); ; await new Promise((r) => setTimeout(r, 100))) {
    const got = await outcome(
      c.ingest.submitScores({ updates: [{ board: BOARD, playerId: "probe", op: Operation.SET, columns: [0n, 0n, 0n] }] }),
    );
    if ("ok" in got) {
      written.push(...got.ok.offsets);
      oracle.set("probe", { playerId: "probe", values: [0n, 0n, 0n], reachedAtMs: -1 }); // time set below
      break;
    }
    if (Date.now() - from > 30_000) throw new Error(`ingest does not take board ${BOARD}: ${JSON.stringify(got)}`);
  }
  // the probe's own time is the ingest's clock: read it back once applied
  await c.waitApplied(written);
  const probe = await c.router.getRank({ board: BOARD, playerId: "probe" });
  oracle.get("probe")!.reachedAtMs = Number(probe.entry!.reachedAtMs);

  // static players: values past 2^53, ties on the first column and on the first two
  const now = Date.now() - 60_000;
  const points = [(1n << 62n) + 1n, 1n << 62n, (1n << 53n) + 1n, 1n << 53n, 5n, 0n, -(1n << 60n)];
  const times = [999n, 1000n, 1n << 60n];
  for (let i = 0; i < STATIC; i += 40) {
    const updates = Array.from({ length: 40 }, (_, j) => {
      const k = i + j;
      const values = [pick(points), pick(times), BigInt(Math.floor(rand() * 4))];
      const at = now + Math.floor(rand() * 3) * RESOLUTION_MS; // equal times: the id decides
      oracle.set(staticId(k), { playerId: staticId(k), values, reachedAtMs: unit(at) });
      return { board: BOARD, playerId: staticId(k), op: Operation.SET, columns: values, timestampMs: BigInt(at) };
    });
    written.push(...(await c.ingest.submitScores({ updates })).offsets);
  }
  for (let i = 0; i < HOT; i++) {
    const values = [BigInt(i) << 55n, 1000n, 2n];
    oracle.set(hotId(i), { playerId: hotId(i), values, reachedAtMs: unit(now) });
    written.push(
      ...(
        await c.ingest.submitScores({
          updates: [{ board: BOARD, playerId: hotId(i), op: Operation.SET, columns: values, timestampMs: BigInt(now) }],
        })
      ).offsets,
    );
  }
  await c.waitApplied(written);
  statics = [...oracle.values()].filter((h) => !isHot(h.playerId)).sort(order);
}, 120_000);

afterAll(async () => {
  admin?.close();
  await c?.stop();
});

/** The static players strictly ahead of `h` (probe included: it never moves). */
function staticAhead(h: Held): number {
  let lo = 0;
  for (let hi = statics.length; lo < hi; ) {
    const mid = (lo + hi) >> 1;
    if (order(statics[mid]!, h) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const sameValues = (a: Held, b: Held) => a.values.every((v, i) => v === b.values[i]);

/** Whether values a rank ahead of values b: the first column that differs decides, by its direction. */
function betterValues(a: bigint[], b: bigint[]): boolean {
  for (let i = 0; i < LOWER.length; i++) if (a[i] !== b[i]) return LOWER[i] ? a[i]! < b[i]! : a[i]! > b[i]!;
  return false;
}

/** Of `among`, the players with strictly better values than `h`, and their distinct values. */
function betterThan(among: readonly Held[], h: Held): { entries: number; values: number } {
  const better = among.filter((s) => betterValues(s.values, h.values));
  return { entries: better.length, values: new Set(better.map((s) => s.values.join(","))).size };
}
const staticBetter = (h: Held) => betterThan(statics, h);

/** What must hold of any list of entries answered while the hot players move (tied ranks under `mode`). */
function checkEntries(what: string, entries: readonly Entry[], total: bigint, mode = RankMode.UNSPECIFIED): string[] {
  const problems: string[] = [];
  if (mode !== RankMode.UNSPECIFIED)
    entries.forEach((e, i) => {
      const h = heldOf(e);
      if (e.tiedRank < 1n || e.tiedRank > e.rank) problems.push(`${what}: ${e.playerId} tied rank ${e.tiedRank} at rank ${e.rank}`);
      const prev = entries[i - 1];
      if (prev && sameValues(heldOf(prev), h) && prev.tiedRank !== e.tiedRank)
        problems.push(`${what}: ${e.playerId} ties ${prev.playerId} apart`);
      if (prev && !sameValues(heldOf(prev), h)) {
        const want = mode === RankMode.COMPETITION ? e.rank : prev.tiedRank + 1n;
        if (e.tiedRank !== want) problems.push(`${what}: ${e.playerId} tied rank ${e.tiedRank} after ${prev.playerId}'s, not ${want}`);
      }
      const b = staticBetter(h);
      const floor = 1 + (mode === RankMode.COMPETITION ? b.entries : b.values);
      if (e.tiedRank < BigInt(floor) || e.tiedRank > BigInt(floor + HOT))
        problems.push(`${what}: ${e.playerId} tied rank ${e.tiedRank} outside [${floor}, ${floor + HOT}]`);
    });
  if (total !== BigInt(TOTAL + 1)) problems.push(`${what}: total ${total}, not ${TOTAL + 1}`);
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    const h = heldOf(e);
    if (seen.has(e.playerId)) problems.push(`${what}: ${e.playerId} twice`);
    seen.add(e.playerId);
    if (e.rank < 1n || e.rank > total) problems.push(`${what}: rank ${e.rank} outside 1..${total}`);
    if (i > 0 && e.rank !== entries[i - 1]!.rank + 1n) problems.push(`${what}: ranks ${entries[i - 1]!.rank}, ${e.rank}`);
    if (i > 0 && order(heldOf(entries[i - 1]!), h) >= 0)
      problems.push(`${what}: ${entries[i - 1]!.playerId} before ${e.playerId} out of order`);
    if (e.columns.length !== 3 || e.score !== e.columns[0]) problems.push(`${what}: ${e.playerId} columns ${e.columns} score ${e.score}`);
    if (!isHot(e.playerId)) {
      const o = oracle.get(e.playerId)!;
      if (order(o, h) !== 0 || o.reachedAtMs !== h.reachedAtMs)
        problems.push(`${what}: ${e.playerId} shows ${h.values} at ${h.reachedAtMs}`);
    }
    const ahead = staticAhead(h);
    const hotOthers = isHot(e.playerId) ? HOT - 1 : HOT;
    if (e.rank < BigInt(1 + ahead) || e.rank > BigInt(1 + ahead + hotOthers))
      problems.push(`${what}: ${e.playerId} at rank ${e.rank}, outside [${1 + ahead}, ${1 + ahead + hotOthers}]`);
  });
  return problems;
}

/** Every read equals the oracle exactly (nothing moves). */
async function expectExact(when: string): Promise<void> {
  const want = [...oracle.values()].sort(order);
  const strip = (e: Entry) => [e.playerId, e.columns.map(String), Number(e.reachedAtMs), Number(e.rank)];
  const expected = want.map((h, i) => [h.playerId, h.values.map(String), h.reachedAtMs, i + 1]);
  const top = await served(() => c.router.getTop({ board: BOARD, limit: 1000 }));
  expect(top.entries.map(strip), when).toEqual(expected);
  expect(Number(top.total)).toBe(want.length);
  // cursor pages, both ways
  const pages: Entry[] = [];
  let page = await served(() => c.router.getTop({ board: BOARD, limit: 37 }));
  pages.push(...page.entries);
  while (page.nextCursor) {
    const cursor = page.nextCursor;
    page = await served(() => c.router.getTop({ board: BOARD, limit: 37, cursor }));
    pages.push(...page.entries);
  }
  expect(pages.map(strip), `${when}: pages`).toEqual(expected);
  const back = await served(() => c.router.getTop({ board: BOARD, limit: 37, cursor: page.previousCursor }));
  expect(back.entries.map(strip), `${when}: a page back`).toEqual(
    expected.slice(Math.max(0, pages.length - page.entries.length - 37), pages.length - page.entries.length),
  );
  // every player's rank and neighbourhood
  for (const [i, h] of want.entries()) {
    const r = await served(() => c.router.getRank({ board: BOARD, playerId: h.playerId }));
    expect(strip(r.entry!), `${when}: rank of ${h.playerId}`).toEqual(expected[i]);
    if (i % 25 === 0 || isHot(h.playerId)) {
      const a = await served(() => c.router.getAround({ board: BOARD, playerId: h.playerId, radius: RADIUS }));
      expect(a.entries.map(strip), `${when}: around ${h.playerId}`).toEqual(expected.slice(Math.max(0, i - RADIUS), i + RADIUS + 1));
    }
  }
  // tied ranks: competition = 1 + the entries with better values, dense = 1 + their distinct values
  for (const [mode, of] of [
    [RankMode.COMPETITION, (h: Held) => 1 + betterThan(want, h).entries],
    [RankMode.DENSE, (h: Held) => 1 + betterThan(want, h).values],
  ] as const) {
    const tied = await served(() => c.router.getTop({ board: BOARD, limit: 1000, rankMode: mode }));
    expect(
      tied.entries.map((e) => [e.playerId, Number(e.tiedRank)]),
      `${when}: ${RankMode[mode]} top`,
    ).toEqual(want.map((h) => [h.playerId, of(h)]));
    const from = await served(() => c.router.getTop({ board: BOARD, limit: 40, offset: 100n, rankMode: mode }));
    const paged = await served(() => c.router.getTop({ board: BOARD, limit: 40, cursor: from.nextCursor, rankMode: mode }));
    expect(
      paged.entries.map((e) => [e.playerId, Number(e.tiedRank)]),
      `${when}: ${RankMode[mode]} page`,
    ).toEqual(want.slice(140, 180).map((h) => [h.playerId, of(h)]));
    for (const h of want.filter((_, i) => i % 40 === 7)) {
      const around = await served(() => c.router.getAround({ board: BOARD, playerId: h.playerId, radius: RADIUS, rankMode: mode }));
      const i = want.indexOf(h);
      expect(
        around.entries.map((e) => [e.playerId, Number(e.tiedRank)]),
        `${when}: ${RankMode[mode]} around ${h.playerId}`,
      ).toEqual(want.slice(Math.max(0, i - RADIUS), i + RADIUS + 1).map((x) => [x.playerId, of(x)]));
    }
    const some = want.filter((_, i) => i % 5 === 1);
    const ranks = await served(() => c.router.getRanks({ board: BOARD, playerIds: some.map((h) => h.playerId), rankMode: mode }));
    expect(
      ranks.entries.map((e) => [e.entry!.playerId, Number(e.entry!.tiedRank)]),
      `${when}: ${RankMode[mode]} GetRanks`,
    ).toEqual(some.map((h) => [h.playerId, of(h)]));
  }
  const asked = [...want.map((h) => h.playerId).filter((_, i) => i % 3 === 0), "nobody"];
  const ranks = await served(() => c.router.getRanks({ board: BOARD, playerIds: asked }));
  expect(
    ranks.entries.map((e) => strip(e.entry!)),
    `${when}: GetRanks`,
  ).toEqual(expected.filter((_, i) => i % 3 === 0));
  expect(ranks.missing).toEqual(["nobody"]);
  // a player's data on request carries its values and rank
  const h = want[17]!;
  const exported = await served(() => admin.exportPlayerData({ playerId: h.playerId }));
  expect(
    exported.entries.filter((e) => e.board === BOARD).map((e) => strip(e.entry!)),
    `${when}: ExportPlayerData`,
  ).toEqual([expected[17]]);
}

describe("a board with three 64-bit columns", () => {
  it("refuses what it cannot take, naming the field", async () => {
    const refusal = async (p: Promise<unknown>) => {
      const o = await outcome(p);
      return "code" in o ? [o.code, o.details] : ["ok"];
    };
    expect(
      await refusal(
        admin.createBoard({ board: { name: "five", rules: { columns: ["a", "b", "c", "d", "e"].map((name) => ({ name })) } } }),
      ),
    ).toEqual([status.INVALID_ARGUMENT, "rules.columns: a board with columns has 2 to 4 of them, got 5"]);
    expect(
      await refusal(c.ingest.submitScores({ updates: [{ board: BOARD, playerId: "x", op: Operation.SET, columns: [1n, 2n] }] })),
    ).toEqual([status.INVALID_ARGUMENT, "updates[0]: columns: the board has 3 columns, got 2 values"]);
    expect(
      await refusal(
        c.ingest.submitScores({ updates: [{ board: BOARD, playerId: "x", op: Operation.SET, value: 3n, columns: [1n, 2n, 3n] }] }),
      ),
    ).toEqual([status.INVALID_ARGUMENT, "updates[0]: value: a board with columns takes its values in columns, so value must be 0, got 3"]);
    expect(await refusal(c.router.getCount({ board: BOARD, minScore: 5n }))).toEqual([
      status.INVALID_ARGUMENT,
      `min_score, max_score: board "${BOARD}" has columns (points, time, kills), whose entries have no single score to bound; without them GetCount gives its size`,
    ]);
    expect(await refusal(c.router.getRank({ board: BOARD, playerId: "x" }))).toEqual([
      status.NOT_FOUND,
      `player "x" has no score on board "${BOARD}"`,
    ]);
  });

  it("answers every read exactly while players move, at rest and after a rebuild", async () => {
    await expectExact("before the writes");
    const problems: string[] = [];
    let answers = 0;
    let stop = false;
    // writers: each hot player's INCREMENTs in order (the oracle follows what was acknowledged)
    const writers = Array.from({ length: HOT }, async (_, i) => {
      const p = hotId(i);
      for (let n = 0; !stop; n++) {
        const deltas: bigint[] = [
          BigInt(Math.floor(rand() * 2 ** 20) - 2 ** 19) << 36n,
          BigInt(Math.floor(rand() * 201) - 100),
          BigInt(n % 3) - 1n,
        ];
        if (!deltas.some((d) => d !== 0n)) deltas[2] = 1n;
        const at = Date.now();
        const got = await outcome(
          c.ingest.submitScores({
            updates: [{ board: BOARD, playerId: p, op: Operation.INCREMENT, columns: deltas, timestampMs: BigInt(at) }],
          }),
        );
        if ("code" in got) {
          if (got.code === status.UNAVAILABLE || got.code === status.RESOURCE_EXHAUSTED) continue;
          problems.push(`write ${p}: ${got.code} ${got.details}`);
          return;
        }
        written.push(...got.ok.offsets);
        const h = oracle.get(p)!;
        oracle.set(p, { playerId: p, values: h.values.map((v, j) => clamp(v + deltas[j]!)), reachedAtMs: unit(at) });
      }
    });
    const everyone = [...oracle.keys()];
    const readers = Array.from({ length: READERS }, async (_, r) => {
      for (let n = r; !stop; n++) {
        const kind = n % 5;
        const rankMode = [RankMode.UNSPECIFIED, RankMode.COMPETITION, RankMode.DENSE][Math.floor(n / 5) % 3]!;
        const got = await outcome<unknown>(
          kind === 0
            ? c.router.getTop({ board: BOARD, limit: 50, offset: BigInt(Math.floor(rand() * 200)), rankMode })
            : kind === 1
              ? (async () => {
                  const first = await c.router.getTop({ board: BOARD, limit: 30, offset: BigInt(Math.floor(rand() * 150)), rankMode });
                  const next = first.nextCursor
                    ? await c.router.getTop({ board: BOARD, limit: 30, cursor: first.nextCursor, rankMode })
                    : undefined;
                  return { first, next };
                })()
              : kind === 2
                ? c.router.getAround({ board: BOARD, playerId: pick(everyone), radius: RADIUS, rankMode })
                : kind === 3
                  ? c.router.getRank({ board: BOARD, playerId: pick(everyone), rankMode })
                  : c.router.getRanks({
                      rankMode,
                      board: BOARD,
                      playerIds: Array.from({ length: 20 }, () => pick(everyone)).filter((p, i, a) => a.indexOf(p) === i),
                    }),
        );
        if ("code" in got) {
          if (got.code !== status.UNAVAILABLE) problems.push(`read ${kind}: ${got.code} ${got.details}`);
          continue;
        }
        answers++;
        const a = got.ok as Record<string, unknown>;
        if (kind === 0)
          problems.push(...checkEntries("top", (a as { entries: Entry[] }).entries, (a as { total: bigint }).total, rankMode));
        else if (kind === 1) {
          const { first, next } = a as { first: { entries: Entry[]; total: bigint }; next?: { entries: Entry[]; total: bigint } };
          problems.push(...checkEntries("page", first.entries, first.total, rankMode));
          if (next) problems.push(...checkEntries("next page", next.entries, next.total, rankMode));
        } else if (kind === 2) {
          const around = a as { entries: Entry[]; total: bigint };
          problems.push(...checkEntries("around", around.entries, around.total, rankMode));
          if (around.entries.length < RADIUS + 1) problems.push(`around: ${around.entries.length} entries`);
        } else if (kind === 3) {
          const rank = a as { entry: Entry; total: bigint };
          problems.push(...checkEntries("rank", [rank.entry], rank.total, rankMode));
        } else {
          const ranks = a as { entries: Array<{ entry: Entry; rankAmong: number }>; total: bigint };
          for (const e of ranks.entries) problems.push(...checkEntries("ranks", [e.entry], ranks.total, rankMode));
          for (let i = 1; i < ranks.entries.length; i++)
            if (
              order(heldOf(ranks.entries[i - 1]!.entry), heldOf(ranks.entries[i]!.entry)) >= 0 ||
              ranks.entries[i - 1]!.entry.rank >= ranks.entries[i]!.entry.rank
            )
              problems.push("ranks: out of order");
        }
        if (problems.length > 20) stop = true;
      }
    });
    const from = Date.now();
    while (!stop && (Date.now() - from < READ_MIN_MS || answers < MIN_ANSWERS || written.length < MIN_WRITTEN)) {
      if (Date.now() - from > 90_000) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    stop = true;
    await Promise.all([...writers, ...readers]);
    expect(problems.slice(0, 10)).toEqual([]);
    expect(answers).toBeGreaterThanOrEqual(MIN_ANSWERS);
    expect(written.length, "records written: enough for the shards' snapshots").toBeGreaterThanOrEqual(MIN_WRITTEN);
    console.log(`columns: ${answers} answers checked while ${written.length} offsets were written`);

    await c.waitApplied(written);
    await expectExact("at rest");
    // every shard rebuilt from its latest snapshot and the log after it: the same board
    const fromSnapshot = new Set<string>();
    for await (const r of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>) if (r.snapshotId) fromSnapshot.add(r.shardId);
    expect(fromSnapshot.size, "shards rebuilt from a snapshot").toBeGreaterThan(0);
    await c.waitApplied(written);
    await expectExact("after a rebuild");
  }, 300_000);
});
