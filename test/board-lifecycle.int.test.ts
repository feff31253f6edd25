// Entry metadata and board deletion (issue #9, items 5 and 1) against the real processes.
// Metadata: written with the scores of a league, a division (moves included) and a daily board with
// a window, returned with every entry by top, rank and around; readers check every answer while it is
// written (each entry's metadata is one its player wrote to that board, or none), then everything
// equals a brute-force oracle, again after a rebuild from the log; leaving a board and erasure drop
// it. Deletion: DeleteBoard removes the definition and, through markers in every partition of the
// log, every key of the board on every shard; a record of the deleted generation that lands after
// the markers is ignored; the name can be defined again; a rebuild replays the deletion.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { status } from "@grpc/grpc-js";
import { Redis } from "ioredis";
import { LogClient } from "@ladder/log/log-client";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { silentLogger } from "@ladder/platform/logger";
import { specOfRules } from "@ladder/model/board-definitions";
import { periodAt } from "@ladder/model/periods";
import { slotOf } from "@ladder/model/placement";
import { windowPlan } from "@ladder/model/windows";
import { encodeScoreEvent } from "@ladder/model/score-event";
import { startRedisServer } from "@ladder/deploy/redis-server";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { AdminService, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { ScoreUpdateSchema } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { Operation, PeriodKind, WindowCombine, type Entry, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { outcome, startTestCluster, type TestCluster, TEST_TOKENS } from "./cluster-harness.js";
import { dailyId } from "./period-oracle.js";
import { rulesPageProblems, RulesOracle, type Rules } from "./rules-oracle.js";
import { windowEntries, windowRules } from "./window-oracle.js";

const log = silentLogger();
const cleanups: Array<() => Promise<unknown>> = [];
let dataDir: string | undefined;
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

let shared: Promise<{ c: TestCluster; admin: ClientOf<typeof AdminService>; redisUrls: string[] }> | undefined;
const cluster = () =>
  (shared ??= (async () => {
    dataDir = await mkdtemp(join(tmpdir(), "ladder-lifecycle-"));
    // own Redis servers: the rebuild swaps whole databases
    const redis = await Promise.all([0, 1, 2].map((i) => startRedisServer({ dataDir: join(dataDir!, `r-${i}`), persist: false, log })));
    cleanups.push(() => Promise.all(redis.map((r) => r.stop())));
    const c = await startTestCluster("lifecycle", {
      redisUrls: redis.map((r) => r.url),
      settings: { LADDER_IMPLICIT_BOARDS: "0", LADDER_SNAPSHOTS: "0" },
    });
    cleanups.push(() => c.stop());
    const admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
    cleanups.push(async () => admin.close());
    return { c, admin, redisUrls: redis.map((r) => r.url) };
  })());

const EPOCH = Date.UTC(2026, 0, 1);
const RULES: Rules = { lowerIsBetter: false, tie: "earliest", minPoints: 0, maxPoints: 10_000, resolutionMs: 1000, epochMs: EPOCH };
const DAY = 86_400_000;
const codeOf = async (p: Promise<unknown>) => {
  const o = await outcome(p);
  return "ok" in o ? "ok" : o.code;
};
const withMeta = (e: Entry) => ({
  playerId: e.playerId,
  score: Number(e.score),
  reachedAtMs: Number(e.reachedAtMs),
  rank: Number(e.rank),
  metadata: e.metadata,
});

/** Until ingest refuses (NOT_FOUND) or takes (INVALID_ARGUMENT, for a value above the range) writes to `board`, as `want` says. */
async function ingestSees(c: TestCluster, board: string, want: "defined" | "gone"): Promise<void> {
  const from = Date.now();
  for (;;) {
    const code = await codeOf(c.ingest.submitScores({ updates: [{ board, playerId: "probe", value: 2n ** 40n }] }));
    if (code === (want === "defined" ? status.INVALID_ARGUMENT : status.NOT_FOUND)) return;
    if (Date.now() - from > 10_000) throw new Error(`ingest still answers ${code} for ${board}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The keys of a board's generation on every shard. */
async function keysOf(redisUrls: string[], prefix: string, board: string, generation: bigint): Promise<string[]> {
  const found: string[] = [];
  for (const url of redisUrls) {
    const r = new Redis(url);
    found.push(...(await r.keys(`${prefix}board:${board}#${generation}*`)));
    r.disconnect();
  }
  return found.sort();
}

describe("entry metadata", () => {
  it("is kept with every board, period and window an update feeds, returned with every entry; exact while written, at rest and after a rebuild; a board left and an erasure drop it", async () => {
    const { c, admin } = await cluster();
    const DIVISIONS = ["meta-div:a", "meta-div:b"];
    for (const name of ["meta-league", ...DIVISIONS])
      await admin.createBoard({
        board: { name, defaultOp: Operation.INCREMENT, maxMetadataBytes: 64, rules: { maxPoints: 10_000n, resolutionMs: 1000 } },
      });
    await admin.createBoard({
      board: {
        name: "meta-daily",
        defaultOp: Operation.INCREMENT,
        maxMetadataBytes: 64,
        rules: {
          maxPoints: 10_000n,
          resolutionMs: 1000,
          period: PeriodKind.DAILY,
          keepPeriods: 5,
          windows: [{ name: "2d", periods: 2, combine: WindowCombine.SUM }],
        },
      },
    });
    await admin.createBoard({ board: { name: "meta-none", defaultOp: Operation.INCREMENT } });
    for (const b of ["meta-league", ...DIVISIONS, "meta-daily", "meta-none"]) await ingestSees(c, b, "defined");

    // the oracle: scores per board (a period is a board), and per board the metadata each write left, in order
    const scores = new Map<string, RulesOracle>();
    const scoreOf = (board: string) => scores.get(board) ?? scores.set(board, new RulesOracle(RULES)).get(board)!;
    const meta = new Map<string, Map<string, string>>(); // board -> player -> metadata
    const written = new Map<string, Set<string>>(); // board|player -> every metadata written
    const setMeta = (board: string, player: string, md: string) => {
      if (md === "") return;
      (meta.get(board) ?? meta.set(board, new Map()).get(board)!).set(player, md);
      (written.get(`${board}|${player}`) ?? written.set(`${board}|${player}`, new Set()).get(`${board}|${player}`)!).add(md);
    };
    const now = Date.now();
    const days = [dailyId(now - DAY, "UTC"), dailyId(now, "UTC")];
    const divisionOf = new Map<string, string>();
    let stop = false;
    const problems: string[] = [];
    let answers = 0;
    const ask = async (board: string, period: string, window: string, player: string, kind: number) => {
      const where = { board, period, window };
      const got = await outcome<{ entries?: Entry[]; entry?: Entry; total: bigint }>(
        kind === 0
          ? c.router.getTop({ ...where, limit: 100 })
          : kind === 1
            ? c.router.getAround({ ...where, playerId: player, radius: 3 })
            : c.router.getRank({ ...where, playerId: player }),
      );
      if ("code" in got) {
        if (got.code !== status.NOT_FOUND && got.code !== status.UNAVAILABLE) problems.push(`${board}: code ${got.code} ${got.details}`);
        return;
      }
      answers++;
      const entries = got.ok.entries ?? [got.ok.entry!];
      const key = window ? `${board}~${window}@${period}` : period ? `${board}@${period}` : board;
      const rules = window ? windowRules(RULES, "sum", 2) : RULES;
      problems.push(...rulesPageProblems(rules, entries.map(withMeta), Number(got.ok.total)).map((p) => `${key}: ${p}`));
      for (const e of entries) {
        // a window's metadata comes from writes to its periods; a period's and a board's from writes to it
        const sources = window ? days.map((d) => `meta-daily@${d}`) : [key];
        if (e.metadata !== "" && !sources.some((s) => written.get(`${s}|${e.playerId}`)?.has(e.metadata)))
          problems.push(`${key}: ${e.playerId} with metadata ${e.metadata} it never wrote there`);
      }
    };
    const readers = Array.from({ length: 2 }, async (_, r) => {
      let n = r;
      while (!stop) {
        n++;
        const player = `m-${n % 150}`;
        const pick = n % 5;
        if (pick === 0) await ask("meta-league", "", "", player, n % 3);
        else if (pick === 1) await ask(DIVISIONS[n % 2]!, "", "", player, n % 3);
        else if (pick === 2) await ask("meta-daily", days[n % 2]!, "", player, n % 3);
        else await ask("meta-daily", days[1]!, "2d", player, n % 3);
      }
    });
    const offsets: PartitionOffset[] = [];
    // at least 12 rounds, and more until the readers have answered while written (a busy machine slows them)
    for (let round = 0; round < 12 || (answers <= 30 && round < 60); round++) {
      const updates: Array<MessageInitShape<typeof ScoreUpdateSchema>> = [];
      for (let i = 0; i < 100; i++) {
        const player = `m-${(round * 37 + i * 7) % 150}`;
        if (updates.some((u) => u.playerId === player)) continue; // one update per player per batch: moves decided on the state before it
        const md = (round + i) % 3 === 0 ? "" : JSON.stringify({ name: `${player}-v${round}`, country: ["fr", "jp", "br"][i % 3] });
        const value = 1 + ((round + i) % 4);
        const at = round < 6 ? now - DAY - 60_000 * i : now - 1000 * i;
        const period = dailyId(at, "UTC");
        const from = divisionOf.get(player);
        const to = from === undefined ? DIVISIONS[0]! : (round + i) % 5 === 0 ? DIVISIONS[1 - DIVISIONS.indexOf(from)]! : from;
        updates.push({
          board: "meta-league",
          playerId: player,
          value: BigInt(value),
          timestampMs: BigInt(at),
          metadata: md,
          alsoBoards: [to, "meta-daily"],
          ...(from && from !== to ? { leaveBoard: from } : {}),
        });
        for (const b of ["meta-league", to]) {
          scoreOf(b).apply(player, "inc", value, at);
          setMeta(b, player, md);
        }
        scoreOf(`meta-daily@${period}`).apply(player, "inc", value, at);
        setMeta(`meta-daily@${period}`, player, md);
        setMeta(`meta-daily~2d@${days[1]}`, player, md); // both days are in the 2-day window ending today
        if (from && from !== to) {
          scoreOf(from).remove(player);
          meta.get(from)?.delete(player); // left: its metadata goes with the entry
        }
        divisionOf.set(player, to);
      }
      const res = await c.ingest.submitScores({ updates });
      offsets.push(...res.offsets);
    }
    stop = true;
    await Promise.all(readers);
    expect(problems.slice(0, 5)).toEqual([]);
    expect(answers).toBeGreaterThan(30);
    await c.waitApplied(offsets);

    const expected = (stored: string) => {
      const want = stored.includes("~")
        ? windowEntries(
            windowRules(RULES, "sum", 2),
            "sum",
            days.map((d) => scores.get(`meta-daily@${d}`)?.sorted()),
          )
        : scores.get(stored)!.sorted();
      return want.map((e) => ({ ...e, metadata: meta.get(stored)?.get(e.playerId) ?? "" }));
    };
    const reads: Array<[string, { board: string; period?: string; window?: string }]> = [
      ["meta-league", { board: "meta-league" }],
      ...DIVISIONS.map((d): [string, { board: string }] => [d, { board: d }]),
      ...days.map((d): [string, { board: string; period: string }] => [`meta-daily@${d}`, { board: "meta-daily", period: d }]),
      [`meta-daily~2d@${days[1]}`, { board: "meta-daily", period: days[1]!, window: "2d" }],
    ];
    const exact = async (label: string) => {
      for (const [stored, where] of reads) {
        const want = expected(stored);
        expect((await c.router.getTop({ ...where, limit: 1000 })).entries.map(withMeta), `${label} ${stored}`).toEqual(want);
        for (const e of want.filter((_, i) => i % 11 === 0)) {
          expect(
            withMeta((await c.router.getRank({ ...where, playerId: e.playerId })).entry!),
            `${label} ${stored} rank of ${e.playerId}`,
          ).toEqual(e);
          expect(
            (await c.router.getAround({ ...where, playerId: e.playerId, radius: 2 })).entries.map(withMeta),
            `${label} ${stored} around ${e.playerId}`,
          ).toEqual(want.slice(Math.max(0, e.rank - 3), e.rank + 2));
        }
      }
    };
    await exact("at rest");
    const league = expected("meta-league");
    expect(league.filter((e) => e.metadata !== "").length).toBeGreaterThan(50);
    const moved = [...divisionOf].filter(([p, d]) => d === DIVISIONS[1] && !meta.get(DIVISIONS[1]!)?.has(p));
    console.log(`[lifecycle] ${league.length} players; ${moved.length} moved to ${DIVISIONS[1]} without metadata there`);

    // a division left loses the player's metadata there: back in it without metadata, it has none
    const mover = "m-mover";
    const step = async (u: object) =>
      c.waitApplied((await c.ingest.submitScores({ updates: [{ board: "meta-league", playerId: mover, value: 1n, ...u }] })).offsets);
    await step({ alsoBoards: [DIVISIONS[0]], metadata: "in-a" });
    expect((await c.router.getRank({ board: DIVISIONS[0]!, playerId: mover })).entry!.metadata).toBe("in-a");
    await step({ alsoBoards: [DIVISIONS[1]], leaveBoard: DIVISIONS[0] });
    await step({ alsoBoards: [DIVISIONS[0]], leaveBoard: DIVISIONS[1] });
    expect((await c.router.getRank({ board: DIVISIONS[0]!, playerId: mover })).entry!.metadata).toBe("");
    expect((await c.router.getRank({ board: "meta-league", playerId: mover })).entry!.metadata).toBe("in-a"); // never left
    const moverGone = await c.ingest.deletePlayer({ playerId: mover }); // out of the oracle's way
    await c.waitApplied([moverGone.offset!]);
    offsets.push(moverGone.offset!);

    // an erasure drops the metadata with the entries; a later score starts without any
    const erased = league[0]!.playerId;
    const gone = await c.ingest.deletePlayer({ playerId: erased });
    const againAt = Date.now();
    const again = await c.ingest.submitScores({
      updates: [{ board: "meta-league", playerId: erased, value: 1n, timestampMs: BigInt(againAt) }],
    });
    await c.waitApplied([gone.offset!, ...again.offsets]);
    expect((await c.router.getRank({ board: "meta-league", playerId: erased })).entry!.metadata).toBe("");
    scoreOf("meta-league").remove(erased);
    scoreOf("meta-league").apply(erased, "inc", 1, againAt);
    meta.get("meta-league")!.delete(erased);
    for (const [stored] of reads.slice(1)) {
      scores.get(stored)?.remove(erased);
      meta.get(stored)?.delete(erased);
    }
    await exact("after an erasure");

    for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
    await c.waitApplied([...offsets, gone.offset!, ...again.offsets]);
    await exact("after a rebuild");

    // refused, nothing written
    const bad = (board: string, metadata: string) =>
      codeOf(c.ingest.submitScores({ updates: [{ board, playerId: "m-new", value: 1n, metadata }] }));
    expect(await bad("meta-none", "x")).toBe(status.INVALID_ARGUMENT); // keeps no metadata
    expect(await bad("meta-league", "x".repeat(65))).toBe(status.INVALID_ARGUMENT);
    expect(
      await codeOf(
        c.ingest.submitScores({
          updates: [{ board: "meta-none", playerId: "m-new", value: 1n, alsoBoards: ["meta-league"], metadata: "x" }],
        }),
      ),
    ).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(admin.createBoard({ board: { name: "meta-huge", maxMetadataBytes: 5000 } }))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(c.router.getRank({ board: "meta-league", playerId: "m-new" }))).toBe(status.NOT_FOUND);
    // the limit may change: entries keep what they hold
    const updated = await admin.updateBoard({ board: { name: "meta-none", defaultOp: Operation.INCREMENT, maxMetadataBytes: 8 } });
    expect(updated.board!.maxMetadataBytes).toBe(8);
  });
});

describe("board deletion", () => {
  it("DeleteBoard removes the definition and, through the log, every key of the board on every shard; late records of it are ignored; the name can be defined again; a rebuild keeps it deleted", async () => {
    const { c, admin, redisUrls } = await cluster();
    const prefix = c.ns.keyPrefix;
    const define = async () => {
      const res = await admin.createBoard({
        board: {
          name: "del-me",
          defaultOp: Operation.INCREMENT,
          maxMetadataBytes: 32,
          rules: { period: PeriodKind.DAILY, keepPeriods: 3, windows: [{ name: "3d", periods: 3, combine: WindowCombine.BEST }] },
        },
      });
      await ingestSees(c, "del-me", "defined");
      return res.board!;
    };
    const first = await define();
    await admin.createBoard({ board: { name: "del-keep", defaultOp: Operation.INCREMENT, maxMetadataBytes: 32 } });
    await ingestSees(c, "del-keep", "defined");
    const now = Date.now();
    const write = async (players: number, tag: string) => {
      const res = await c.ingest.submitScores({
        updates: Array.from({ length: players }, (_, i) => ({
          board: "del-me",
          playerId: `${tag}-${i}`,
          value: BigInt(i + 1),
          timestampMs: BigInt(now - (i % 3) * DAY),
          metadata: `${tag}${i}`,
          alsoBoards: ["del-keep"],
        })),
      });
      return res.offsets;
    };
    const before = await write(200, "old");
    await c.waitApplied(before);
    const oldKeys = await keysOf(redisUrls, prefix, "del-me", first.rules!.generation);
    expect(oldKeys.length).toBeGreaterThan(3 * 3); // periods, windows and their metadata on three shards
    expect(Number((await c.router.getTop({ board: "del-me", window: "3d" })).total)).toBe(200);

    const deleted = await admin.deleteBoard({ name: "del-me" });
    expect(deleted.markers.length).toBe(12); // LADDER_SLOTS in the tests
    expect(await codeOf(c.router.getTop({ board: "del-me" }))).toBe(status.NOT_FOUND);
    expect(await codeOf(admin.getBoard({ name: "del-me" }))).toBe(status.NOT_FOUND);
    await ingestSees(c, "del-me", "gone");
    await c.waitApplied(deleted.markers);
    expect(await keysOf(redisUrls, prefix, "del-me", first.rules!.generation)).toEqual([]);
    expect(Number((await c.router.getTop({ board: "del-keep" })).total)).toBe(200); // the other board of those writes is untouched

    // a record of the deleted generation written after the markers (an ingest that did not know yet) is ignored
    const producer = await LogClient.unconnected(inject("kafkaBrokers"), "test-late", log).producer();
    // (built as ingest builds a record of that board: its rules, its period and the periods its window needs)
    const spec = specOfRules("del-me", first.rules!).spec!;
    const plan = windowPlan(spec, periodAt(spec.period, now));
    const late = encodeScoreEvent(
      { board: "del-me", playerId: "late", op: Operation.INCREMENT, value: 5n, timestampMs: BigInt(now), eventId: "" },
      Date.now(),
      { rules: first.rules!, period: { id: dailyId(now, "UTC"), expireAtMs: plan.periodExpireAtMs }, windows: plan },
    );
    const [sent] = await producer.send(c.ns.topic, [{ key: "late", value: late, partition: slotOf("late", 12) }]);
    await producer.disconnect();
    await c.waitApplied([{ partition: sent!.partition, offset: BigInt(sent!.baseOffset) } as PartitionOffset]);
    expect(await keysOf(redisUrls, prefix, "del-me", first.rules!.generation)).toEqual([]);

    // defined again: a new generation, empty, its own keys
    const second = await define();
    expect(second.rules!.generation).toBeGreaterThan(first.rules!.generation);
    expect(Number((await c.router.getTop({ board: "del-me" })).total)).toBe(0);
    const after = await write(20, "new");
    await c.waitApplied(after);
    const fresh = await c.router.getTop({ board: "del-me", window: "3d", limit: 100 });
    expect(fresh.entries.map((e) => e.playerId).every((p) => p.startsWith("new-"))).toBe(true);
    expect(Number(fresh.total)).toBe(20);

    // a rebuild replays the deletion: the old generation stays gone, the new one as it was
    for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
    await c.waitApplied([...before, ...deleted.markers, ...after]);
    expect(await keysOf(redisUrls, prefix, "del-me", first.rules!.generation)).toEqual([]);
    expect((await c.router.getTop({ board: "del-me", window: "3d", limit: 100 })).entries).toEqual(fresh.entries);
    expect(Number((await c.router.getTop({ board: "del-keep" })).total)).toBe(220);

    expect(await codeOf(admin.deleteBoard({ name: "nope" }))).toBe(status.NOT_FOUND);
    const writer = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.write);
    expect(await codeOf(writer.deleteBoard({ name: "del-keep" }))).toBe(status.PERMISSION_DENIED);
    writer.close();
  });
});
