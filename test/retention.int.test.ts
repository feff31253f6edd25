import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { join } from "node:path";
import { status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import type { ClientOf } from "@ladder/client/grpc-stub";
import type { AdminService, RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { ModerationAction } from "@ladder/proto/leaderboard/v1/moderation_pb";
import { Operation, WindowCombine, PeriodKind, type Entry, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { fileClusterOnOwnRedis, outcome, type TestCluster, TEST_TOKENS, untilIngestKnows } from "./cluster-harness.js";
import { seeded } from "./moving-board.js";
import { RulesOracle, rulesOrder, rulesPageProblems, type Rules, type RulesEntry } from "./rules-oracle.js";
import { RankMode } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { builtEntry } from "@ladder/deploy/built-entry";

/** The CLI as `npm run cli` runs it: its build (built-entry.ts). */
const CLI = builtEntry("cli/src/main.ts");

const run = promisify(execFile);
const cluster = fileClusterOnOwnRedis("retention", { LADDER_IMPLICIT_BOARDS: "0", LADDER_RETENTION_INTERVAL_MS: "300" });

async function rebuild(admin: ClientOf<typeof AdminService>): Promise<number> {
  const shards = new Set<string>();
  for await (const r of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>) shards.add(r.shardId);
  return shards.size;
}

const RULES: Rules = { lowerIsBetter: false, tie: "earliest", minPoints: 0, maxPoints: 1_000_000, resolutionMs: 1000, epochMs: 0 };
const asEntry = (e: Entry): RulesEntry => ({
  playerId: e.playerId,
  score: Number(e.score),
  reachedAtMs: Number(e.reachedAtMs),
  rank: Number(e.rank),
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const codeOf = async (p: Promise<unknown>) => {
  const o = await outcome(p);
  return "ok" in o ? { code: 0, details: "" } : o;
};

/** The highest floor the board's shards hold now (GetBoard), as an entry; undefined before any trim. */
async function floorNow(admin: ClientOf<typeof AdminService>, board: string): Promise<Omit<RulesEntry, "rank"> | undefined> {
  const f = (await admin.getBoard({ name: board })).board!.retentionFloor;
  return f && { playerId: f.playerId, score: Number(f.score), reachedAtMs: Number(f.reachedAtMs) };
}

/**
 * Readers that check every answer of a board while it changes: tops by offset and by cursor, ranks,
 * around windows, ranks of many players (unique or competition) and standings; each answer also
 * against the floor read before it was asked.
 */
function checkingReaders(c: TestCluster, admin: ClientOf<typeof AdminService>, board: string, players: readonly string[], n: number) {
  const problems: string[] = [];
  let answers = 0;
  let notFound = 0;
  let stop = false;
  const rand = seeded(99);
  let recent: string[] = []; // the players of the latest top page: ranks and around asked of kept players too
  let cursor = ""; // the latest top page's next cursor
  let floor: Omit<RulesEntry, "rank"> | undefined;
  const ranked = (what: string, entries: RulesEntry[]) => {
    for (const e of entries)
      if (floor && rulesOrder(RULES, e, floor) > 0)
        problems.push(`${what}: ${e.playerId} at ${e.score} ranked ${e.rank}, below the floor ${floor.playerId}`);
  };
  const page = (what: string, entries: Entry[], total: bigint, firstRank?: number) => {
    answers++;
    for (const p of rulesPageProblems(RULES, entries.map(asEntry), Number(total), firstRank)) problems.push(`${what}: ${p}`);
    ranked(what, entries.map(asEntry));
  };
  const one = async () => {
    while (!stop) {
      const at = cursor;
      const drawn = rand.randInt(0, 5);
      const kind = drawn === 3 && at === "" ? 2 : drawn; // no cursor yet: around instead
      const pick = recent.length > 0 && rand.randInt(0, 1) === 0;
      const player = pick ? recent[rand.randInt(0, recent.length - 1)]! : players[rand.randInt(0, players.length - 1)]!;
      try {
        floor = await floorNow(admin, board);
        if (kind === 0) {
          const offset = rand.randInt(0, 120);
          const r = await c.router.getTop({ board, limit: 40, offset: BigInt(offset) });
          page(`top at ${offset}`, r.entries, r.total, r.entries.length ? offset + 1 : undefined);
          if (r.entries.length) [recent, cursor] = [r.entries.map((e) => e.playerId), r.nextCursor];
        } else if (kind === 3) {
          const r = await c.router.getTop({ board, limit: 40, cursor: at });
          page("cursor page", r.entries, r.total);
        } else if (kind === 4) {
          const asked = [
            ...new Set([player, ...recent.slice(0, 5), ...Array.from({ length: 5 }, () => players[rand.randInt(0, players.length - 1)]!)]),
          ];
          const mode = rand.randInt(0, 1) === 0 ? RankMode.UNSPECIFIED : RankMode.COMPETITION;
          const r = await c.router.getRanks({ board, playerIds: asked, rankMode: mode });
          answers++;
          const found = r.entries.map((e) => asEntry(e.entry!));
          const total = Number(r.total);
          const ids = [...found.map((e) => e.playerId), ...r.missing];
          if (ids.length !== asked.length || new Set(ids).size !== asked.length || !asked.every((p) => ids.includes(p)))
            problems.push(`ranks of ${asked.join(",")}: found ${found.map((e) => e.playerId).join(",")}, missing ${r.missing.join(",")}`);
          found.forEach((e, i) => {
            if (e.rank < 1 || e.rank > total) problems.push(`ranks: ${e.playerId} ranked ${e.rank} outside 1..${total}`);
            if (r.entries[i]!.rankAmong !== i + 1)
              problems.push(`ranks: ${e.playerId} ${r.entries[i]!.rankAmong}th among, expected ${i + 1}`);
            if (i > 0 && (e.rank <= found[i - 1]!.rank || rulesOrder(RULES, found[i - 1]!, e) >= 0))
              problems.push(`ranks: ${e.playerId} at ${e.rank} after ${found[i - 1]!.playerId} at ${found[i - 1]!.rank}`);
          });
          ranked("ranks", found);
        } else if (kind === 5) {
          const r = await c.router.getStanding({ playerId: player, boards: [{ board }] });
          answers++;
          const s = r.standings[0]!;
          if (s.found) page(`standing of ${player}`, [s.entry!], s.total);
          else notFound++;
          if (s.found && s.entry!.playerId !== player) problems.push(`standing of ${player} answered ${s.entry!.playerId}`);
        } else if (kind === 1) {
          const r = await c.router.getRank({ board, playerId: player });
          page(`rank of ${player}`, [r.entry!], r.total);
          if (r.entry!.playerId !== player) problems.push(`rank of ${player} answered ${r.entry!.playerId}`);
        } else {
          const r = await c.router.getAround({ board, playerId: player, radius: 5 });
          page(`around ${player}`, r.entries, r.total);
          if (!r.entries.some((e) => e.playerId === player)) problems.push(`around ${player} leaves it out`);
        }
      } catch (err) {
        const e = err as { code: number; details: string };
        if (e.code === status.NOT_FOUND && (kind === 1 || kind === 2)) notFound++;
        else if (e.code !== status.UNAVAILABLE) problems.push(`${e.code}: ${e.details}`);
      }
    }
  };
  const running = Array.from({ length: n }, one);
  return {
    problems,
    counts: () => ({ answers, notFound }),
    async stop() {
      stop = true;
      await Promise.all(running);
    },
  };
}

/** The board's whole retained standing, through GetTop pages. */
async function standing(c: TestCluster, board: string): Promise<{ entries: RulesEntry[]; total: number }> {
  const first = await c.router.getTop({ board, limit: 1000 });
  return { entries: first.entries.map(asEntry), total: Number(first.total) };
}

describe("retention", () => {
  it("keeps the top 50 (+ 50) of 3000 players under writes and reads: the oracle's top 50 at rest and after a rebuild", async () => {
    const { c, admin } = await cluster();
    const board = "ret-top";
    const KEEP = 50;
    await admin.createBoard({
      board: {
        name: board,
        defaultOp: Operation.BEST,
        rules: { maxPoints: 1_000_000n, resolutionMs: 1000, keepTop: KEEP, keepMargin: KEEP },
      },
    });
    await untilIngestKnows(c, board);
    const PLAYERS = Array.from({ length: 3000 }, (_, i) => `rt-${i}`);
    const oracle = new RulesOracle(RULES);
    const acked: PartitionOffset[] = [];
    const readers = checkingReaders(c, admin, board, PLAYERS, 3);

    // two writers, each with its own players (a player's writes acknowledged in order), 45 batches of 100,
    // and more (up to 90) until the readers have answered while written: a busy machine slows them
    const writer = async (w: number) => {
      const rand = seeded(11 + w);
      const mine = PLAYERS.filter((_, i) => i % 2 === w);
      for (let round = 0; round < 45 || (readers.counts().answers <= 100 && round < 90); round++) {
        const ts = Date.now();
        const updates = Array.from({ length: 100 }, () => {
          const playerId = mine[rand.randInt(0, mine.length - 1)]!;
          // scores rise through the run: the floor keeps rising, and late writes below it are not kept
          return { playerId, value: rand.randInt(0, 10_000 + Math.min(round, 44) * 20_000), timestampMs: BigInt(ts) }; // < max_points
        });
        const res = await c.ingest.submitScores({ updates: updates.map((u) => ({ board, ...u, value: BigInt(u.value) })) });
        for (const u of updates) oracle.apply(u.playerId, "best", u.value, Number(u.timestampMs));
        acked.push(...res.offsets);
        await sleep(20);
      }
    };
    await Promise.all([writer(0), writer(1)]);
    await c.waitApplied(acked);
    // the retainer's last trim: the board back to exactly keep_top + keep_margin
    for (const from = Date.now(); (await standing(c, board)).total !== 2 * KEEP; await sleep(200))
      if (Date.now() - from > 30_000) throw new Error(`board still holds ${(await standing(c, board)).total} entries`);
    await readers.stop();
    const { answers, notFound } = readers.counts();
    console.log(`[retention] top: ${answers} answers checked while written and trimmed, ${notFound} NOT_FOUND (trimmed)`);
    expect(readers.problems.slice(0, 5)).toEqual([]);
    expect(answers).toBeGreaterThan(100);

    const all = oracle.sorted();
    expect(all.length).toBeGreaterThan(2500);
    const exact = async (when: string) => {
      const held = await standing(c, board);
      expect(held.total, when).toBe(2 * KEEP);
      expect(held.entries.slice(0, KEEP), `${when}: the top ${KEEP}`).toEqual(all.slice(0, KEEP));
      // every retained entry is at its rank among all writes (nothing better was trimmed)
      expect(held.entries, `${when}: the retained ${2 * KEEP}`).toEqual(all.slice(0, 2 * KEEP));
      for (const e of all.slice(0, 2 * KEEP).filter((_, i) => i % 7 === 0)) {
        const r = await c.router.getRank({ board, playerId: e.playerId });
        expect(asEntry(r.entry!), when).toEqual(e);
        const a = await c.router.getAround({ board, playerId: e.playerId, radius: 3 });
        expect(a.entries.map(asEntry), when).toEqual(all.slice(Math.max(0, e.rank - 4), Math.min(2 * KEEP, e.rank + 3)));
      }
      // cursor pages through the board, GetRanks and GetStanding: the oracle's entries, the trimmed players not ranked
      const paged: RulesEntry[] = [];
      for (let r = await c.router.getTop({ board, limit: 30 }); ; r = await c.router.getTop({ board, limit: 30, cursor: r.nextCursor })) {
        paged.push(...r.entries.map(asEntry));
        if (r.nextCursor === "") break;
      }
      expect(paged, `${when}: by cursor`).toEqual(all.slice(0, 2 * KEEP));
      const kept = all.slice(0, 2 * KEEP).filter((_, i) => i % 9 === 0);
      const gone = all.slice(2 * KEEP).filter((_, i) => i % 300 === 0);
      const many = await c.router.getRanks({ board, playerIds: [...gone, ...kept].map((e) => e.playerId) });
      expect(
        many.entries.map((e) => asEntry(e.entry!)),
        `${when}: GetRanks`,
      ).toEqual(kept);
      expect(many.missing, `${when}: GetRanks`).toEqual(gone.map((e) => e.playerId));
      const standings = await c.router.getStanding({ playerId: kept[3]!.playerId, boards: [{ board }] });
      expect(asEntry(standings.standings[0]!.entry!), `${when}: GetStanding`).toEqual(kept[3]);
      expect((await c.router.getStanding({ playerId: gone[0]!.playerId, boards: [{ board }] })).standings[0]!.found).toBe(false);
      for (const e of all.slice(2 * KEEP).filter((_, i) => i % 400 === 0)) {
        const got = await outcome(c.router.getRank({ board, playerId: e.playerId }));
        expect("code" in got && [got.code, got.details.includes("keeps its top 50")], `${when}: ${e.playerId}`).toEqual([
          status.NOT_FOUND,
          true,
        ]);
      }
      // GetBoard: the retained size and the highest floor, the last entry kept
      const info = (await admin.getBoard({ name: board })).board!;
      expect(Number(info.retainedEntries), when).toBe(2 * KEEP);
      const floor = info.retentionFloor!;
      expect({ playerId: floor.playerId, score: Number(floor.score), reachedAtMs: Number(floor.reachedAtMs) }, when).toEqual({
        playerId: all[2 * KEEP - 1]!.playerId,
        score: all[2 * KEEP - 1]!.score,
        reachedAtMs: all[2 * KEEP - 1]!.reachedAtMs,
      });
      return held.entries;
    };
    const atRest = await exact("at rest");
    const trims = (await admin.listModerationActions({ board, limit: 1000 })).actions.filter(
      (a) => a.action!.action === ModerationAction.TRIM,
    );
    console.log(`[retention] top: ${trims.length} trims; the last: ${trims[0]?.action?.reason}`);
    expect(trims.length).toBeGreaterThan(0);
    for (const t of trims) {
      expect(t.action!.by).toBe("retention");
      expect(Number(t.action!.count)).toBeGreaterThan(2 * KEEP);
    }
    expect(await rebuild(admin)).toBe(3);
    await c.waitApplied(acked);
    expect(await exact("after a rebuild")).toEqual(atRest);

    // the CLI: the board with its retention, the trims in the audit trail
    const cli = (...args: string[]) =>
      run("node", [CLI, ...args, "--router", c.services.routerAddress, "--token", TEST_TOKENS.admin], {
        cwd: join(import.meta.dirname, ".."),
      });
    const last = all[2 * KEEP - 1]!;
    expect((await cli("boards", "get", "--board", board)).stdout).toContain(
      `, keeps the top ${KEEP} (+ ${KEEP}), holds ${2 * KEEP} entries (floor ${last.playerId} at ${last.score}),`,
    );
    const audit = (await cli("audit", "--board", board, "--limit", "1")).stdout.trim();
    expect(audit).toMatch(
      new RegExp(
        `^\\d{4}-.* trim on ${board} by retention: keep_top 50 \\+ keep_margin 50: \\d+ entries trimmed to 100, floor \\S+ \\(sort key \\d+\\) \\(partition 0 offset \\d+\\)$`,
      ),
    );
  });

  it("trims every kept period of a daily board, late events in yesterday's included", async () => {
    const { c, admin } = await cluster();
    const board = "ret-daily";
    await admin.createBoard({
      board: {
        name: board,
        defaultOp: Operation.BEST,
        rules: { maxPoints: 1_000_000n, resolutionMs: 1000, period: PeriodKind.DAILY, keepPeriods: 2, keepTop: 5, keepMargin: 5 },
      },
    });
    await untilIngestKnows(c, board);
    const now = Date.now();
    const today = new Date(now).toISOString().slice(0, 10);
    const yesterdayAt = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate()) - 12 * 3_600_000;
    const yesterday = new Date(yesterdayAt).toISOString().slice(0, 10);
    const oracles = new Map([
      [today, new RulesOracle(RULES)],
      [yesterday, new RulesOracle(RULES)],
    ]);
    const acked: PartitionOffset[] = [];
    for (const [period, at] of [
      [yesterday, yesterdayAt],
      [today, now],
    ] as const) {
      const updates = Array.from({ length: 40 }, (_, i) => ({ playerId: `rd-${i}`, value: 100 + ((i * 37) % 40), at }));
      const res = await c.ingest.submitScores({
        updates: updates.map((u) => ({ board, playerId: u.playerId, value: BigInt(u.value), timestampMs: BigInt(u.at) })),
      });
      acked.push(...res.offsets);
      for (const u of updates) oracles.get(period)!.apply(u.playerId, "best", u.value, u.at);
    }
    await c.waitApplied(acked);
    for (const [period, oracle] of oracles) {
      const held = async () => c.router.getTop({ board, period, limit: 100 });
      for (const from = Date.now(); Number((await held()).total) !== 10; await sleep(200))
        if (Date.now() - from > 30_000) throw new Error(`period ${period} still holds ${(await held()).total} entries`);
      expect((await held()).entries.map(asEntry), period).toEqual(oracle.sorted().slice(0, 10));
    }
  });

  it("expires the players whose latest event is older than expire_inactive_ms, at rest and after a rebuild", async () => {
    const { c, admin } = await cluster();
    const board = "ret-idle";
    const HOUR = 3_600_000;
    await admin.createBoard({
      board: {
        name: board,
        defaultOp: Operation.SET,
        rules: { maxPoints: 1_000_000n, resolutionMs: 1000, expireInactiveMs: BigInt(HOUR) },
      },
    });
    await untilIngestKnows(c, board);
    const now = Date.now();
    const stale = Array.from({ length: 120 }, (_, i) => `idle-${i}`); // only a write 2 h ago: expire
    const fresh = Array.from({ length: 120 }, (_, i) => `busy-${i}`); // a write now: kept
    const back = Array.from({ length: 60 }, (_, i) => `back-${i}`); // a write 3 h ago, then one now: kept, with the later score
    const kept = new RulesOracle(RULES);
    const acked: PartitionOffset[] = [];
    const send = async (updates: Array<{ playerId: string; value: number; at: number }>) => {
      const res = await c.ingest.submitScores({
        updates: updates.map((u) => ({ board, playerId: u.playerId, value: BigInt(u.value), timestampMs: BigInt(u.at) })),
      });
      acked.push(...res.offsets);
    };
    const readers = checkingReaders(c, admin, board, [...stale, ...fresh, ...back], 2);
    await send(stale.map((playerId, i) => ({ playerId, value: 1000 + i, at: now - 2 * HOUR })));
    await send(back.map((playerId, i) => ({ playerId, value: 500 + i, at: now - 3 * HOUR })));
    await sleep(1000); // the retainer looks meanwhile
    await send(fresh.map((playerId, i) => ({ playerId, value: 2000 + i, at: now })));
    await send(back.map((playerId, i) => ({ playerId, value: 3000 + i, at: now })));
    fresh.forEach((p, i) => kept.apply(p, "set", 2000 + i, now));
    back.forEach((p, i) => kept.apply(p, "set", 3000 + i, now));
    await c.waitApplied(acked);
    for (const from = Date.now(); (await standing(c, board)).total !== fresh.length + back.length; await sleep(200))
      if (Date.now() - from > 30_000) throw new Error(`board still holds ${(await standing(c, board)).total} entries`);
    await readers.stop();
    expect(readers.problems.slice(0, 5)).toEqual([]);
    const want = kept.sorted();
    expect((await standing(c, board)).entries).toEqual(want);
    const info = (await admin.getBoard({ name: board })).board!;
    expect([Number(info.retainedEntries), info.retentionFloor]).toEqual([want.length, undefined]);
    const expiries = (await admin.listModerationActions({ board, limit: 1000 })).actions.filter(
      (a) => a.action!.action === ModerationAction.EXPIRE,
    );
    console.log(`[retention] expiry: ${expiries.length} expiries, counts ${expiries.map((a) => a.action!.count).join(", ")}`);
    expect(expiries.length).toBeGreaterThan(0);
    // each counts the inactive players it saw; a stale write applied between the count and its record goes uncounted
    expect(expiries.every((a) => a.action!.by === "retention" && a.action!.count > 0n && a.action!.cutoffMs > 0n)).toBe(true);
    for (const p of stale.slice(0, 5)) expect((await codeOf(c.router.getRank({ board, playerId: p }))).code).toBe(status.NOT_FOUND);
    await rebuild(admin);
    await c.waitApplied(acked);
    expect((await standing(c, board)).entries).toEqual(want);
  });

  it("refuses bad retention rules, naming the field and the limit, and increments on a trimmed board", async () => {
    const { c, admin } = await cluster();
    const refused = async (name: string, board: object, words: string[]) => {
      const got = await codeOf(admin.createBoard({ board: { name, ...board } }));
      expect(got.code, name).toBe(status.INVALID_ARGUMENT);
      for (const w of words) expect(got.details, name).toContain(w);
      expect((await codeOf(admin.getBoard({ name }))).code, `${name} was not created`).toBe(status.NOT_FOUND);
    };
    await refused("ret-bad-1", { rules: { keepTop: 10_001 } }, ["rules.keep_top", "10000", "10001"]);
    await refused("ret-bad-2", { rules: { keepTop: 10, keepMargin: 10_001 } }, ["rules.keep_margin", "10000"]);
    await refused("ret-bad-3", { rules: { keepMargin: 5 } }, ["rules.keep_margin", "without rules.keep_top"]);
    await refused("ret-bad-4", { rules: { expireInactiveMs: 1000n } }, ["rules.expire_inactive_ms", "60000", "got 1000"]);
    await refused("ret-bad-5", { defaultOp: Operation.INCREMENT, rules: { keepTop: 10 } }, ["rules.keep_top", "INCREMENT", "honestly"]);
    await refused(
      "ret-bad-6",
      { rules: { keepTop: 10, period: PeriodKind.DAILY, windows: [{ name: "2d", periods: 2, combine: WindowCombine.SUM }] } },
      ["rules.keep_top", "windows"],
    );
    // a trimmed board with overrides: an increment refused, naming the op; the default op cannot become one
    await admin.createBoard({ board: { name: "ret-ops", defaultOp: Operation.BEST, allowOpOverride: true, rules: { keepTop: 5 } } });
    await untilIngestKnows(c, "ret-ops");
    const inc = await codeOf(c.ingest.submitScores({ updates: [{ board: "ret-ops", playerId: "x", value: 1n, op: Operation.INCREMENT }] }));
    expect(inc.code).toBe(status.INVALID_ARGUMENT);
    expect(inc.details).toContain("op INCREMENT");
    const def = (await admin.getBoard({ name: "ret-ops" })).board!;
    const update = await codeOf(admin.updateBoard({ board: { ...def, defaultOp: Operation.INCREMENT } }));
    expect([update.code, update.details.includes("default_op")]).toEqual([status.INVALID_ARGUMENT, true]);
    const ok = await c.ingest.submitScores({ updates: [{ board: "ret-ops", playerId: "x", value: 1n, op: Operation.SET }] });
    await c.waitApplied(ok.offsets);
    expect(Number((await c.router.getRank({ board: "ret-ops", playerId: "x" })).entry!.score)).toBe(1);
  });
});
