// Board definitions (issue #9, item 1) against the real processes: boards defined through AdminService
// with their own sort order, tie rule, points range and default operation, written and read while
// readers check every answer, then compared exactly with a brute-force oracle (rules-oracle.ts), then
// again after every shard was rebuilt from the log (records carry the rules and the operation they
// were written with, so a definition changed since does not change the replay). Also: what is refused
// and how (undefined boards with LADDER_IMPLICIT_BOARDS off, overrides, bad and conflicting
// definitions, a definition over a board written without one).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { status } from "@grpc/grpc-js";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { silentLogger } from "@ladder/platform/logger";
import { startRedisServer } from "@ladder/deploy/redis-server";
import { AdminService, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import {
  Operation,
  PeriodKind,
  SortOrder,
  TieRule,
  WindowCombine,
  type Entry,
  type PartitionOffset,
} from "@ladder/proto/leaderboard/v1/common_pb";
import { outcome, served, startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";
import { dailyId, monthlyId, weeklyAtStart, weeklyId } from "./period-oracle.js";
import { rulesPageProblems, RulesOracle, type Op, type Rules, type RulesEntry } from "./rules-oracle.js";
import { periodSequence, windowEntries, windowRules, type Combine } from "./window-oracle.js";

const log = silentLogger();
const cleanups: Array<() => Promise<unknown>> = [];
let dataDir: string | undefined;
// the tests share one cluster per setting (each uses boards of its own): starting clusters is most of their time
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});
const clusters = new Map<boolean, ReturnType<typeof startCluster>>();
const cluster = (_label: string, implicit: boolean) => {
  if (!clusters.has(implicit)) clusters.set(implicit, startCluster(implicit ? "boards-implicit" : "boards", implicit));
  return clusters.get(implicit)!;
};

async function startCluster(
  label: string,
  implicit: boolean,
): Promise<{ c: TestCluster; admin: ClientOf<typeof AdminService>; redisUrls: string[] }> {
  dataDir ??= await mkdtemp(join(tmpdir(), "ladder-boards-"));
  // own Redis servers: the rebuild swaps whole databases
  const redis = await Promise.all(
    [0, 1, 2].map((i) => startRedisServer({ dataDir: join(dataDir!, `${label}-${i}`), persist: false, log })),
  );
  cleanups.push(() => Promise.all(redis.map((r) => r.stop())));
  const c = await startTestCluster(label, {
    redisUrls: redis.map((r) => r.url),
    settings: { LADDER_IMPLICIT_BOARDS: implicit ? "1" : "0", LADDER_SNAPSHOTS: "0" },
  });
  cleanups.push(() => c.stop());
  const admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
  cleanups.push(async () => admin.close());
  return { c, admin, redisUrls: redis.map((r) => r.url) };
}

const EPOCH = Date.UTC(2026, 0, 1);
const plain = (e: Entry): RulesEntry => ({
  playerId: e.playerId,
  score: Number(e.score),
  reachedAtMs: Number(e.reachedAtMs),
  rank: Number(e.rank),
});
const codeOf = async (p: Promise<unknown>) => {
  const o = await outcome(p);
  return "ok" in o ? "ok" : o.code;
};

/**
 * How long after CreateBoard answered ingest took writes to the board (ms): asks with a value above the
 * board's range, NOT_FOUND while ingest does not know the board, INVALID_ARGUMENT once it does; writes nothing.
 */
async function knownToIngest(c: TestCluster, board: string, aboveRange: bigint): Promise<number> {
  const from = Date.now();
  for (;;) {
    const code = await codeOf(c.ingest.submitScores({ updates: [{ board, playerId: "probe", value: aboveRange }] }));
    if (code === status.INVALID_ARGUMENT) return Date.now() - from;
    if (code !== status.NOT_FOUND || Date.now() - from > 10_000)
      throw new Error(`ingest answered ${code} for board ${board} ${Date.now() - from} ms after it was defined`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The three boards and what their writes look like: small ranges and coarse times, so ties abound. */
const BOARDS: Array<{ name: string; rules: Rules; defaultOp: Op; allowOverride: boolean; ops: Op[]; value: (r: () => number) => number }> =
  [
    {
      name: "speedrun",
      rules: { lowerIsBetter: true, tie: "earliest", minPoints: 0, maxPoints: 100_000, resolutionMs: 1000, epochMs: EPOCH },
      defaultOp: "best",
      allowOverride: false,
      ops: ["best"],
      value: (r) => 1000 + Math.floor(r() * 40) * 100,
    },
    {
      name: "kills",
      rules: { lowerIsBetter: false, tie: "latest", minPoints: 0, maxPoints: 50, resolutionMs: 1000, epochMs: EPOCH },
      defaultOp: "inc",
      allowOverride: true,
      ops: ["inc", "inc", "dec", "set", "best"],
      value: (r) => Math.floor(r() * 6),
    },
    {
      name: "alpha",
      rules: { lowerIsBetter: false, tie: "id", minPoints: -20, maxPoints: 20, resolutionMs: 60_000, epochMs: EPOCH },
      defaultOp: "set",
      allowOverride: true,
      ops: ["set", "inc", "dec"],
      value: (r) => Math.floor(r() * 9) - 2,
    },
  ];
const OP_OF: Record<Op, Operation> = { set: Operation.SET, inc: Operation.INCREMENT, dec: Operation.DECREMENT, best: Operation.BEST };
const ORDER = (r: Rules) => (r.lowerIsBetter ? SortOrder.LOWER_IS_BETTER : SortOrder.HIGHER_IS_BETTER);
const TIE = { earliest: TieRule.EARLIEST_FIRST, latest: TieRule.LATEST_FIRST, id: TieRule.PLAYER_ID } as const;

/** A small deterministic random source (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("board definitions", () => {
  it("defined boards order, tie and combine as defined: every answer checked while written, exact at rest, the same after a rebuild from the log", async () => {
    const { c, admin } = await cluster("boards", false);
    for (const b of BOARDS) {
      const res = await admin.createBoard({
        board: {
          name: b.name,
          defaultOp: OP_OF[b.defaultOp],
          allowOpOverride: b.allowOverride,
          rules: {
            order: ORDER(b.rules),
            tie: TIE[b.rules.tie],
            minPoints: BigInt(b.rules.minPoints),
            maxPoints: BigInt(b.rules.maxPoints),
            resolutionMs: b.rules.resolutionMs,
          },
        },
      });
      expect(res.board!.rules!.generation).toBeGreaterThan(0n);
      expect(res.board!.rules!.epochMs).toBe(BigInt(EPOCH)); // the default filled in
    }
    const knownAfterMs = [];
    for (const b of BOARDS) knownAfterMs.push(await knownToIngest(c, b.name, BigInt(b.rules.maxPoints + 1)));
    console.log(`[boards] ingest took writes to a new board ${knownAfterMs.join(", ")} ms after CreateBoard answered`);
    expect((await admin.listBoards({})).boards.map((b) => b.name)).toEqual(["alpha", "kills", "speedrun"]);
    expect((await admin.listBoards({ prefix: "k" })).boards.map((b) => b.name)).toEqual(["kills"]);
    for (const prefix of ["*", "k?", "x".repeat(100_000)]) {
      const err = await admin.listBoards({ prefix }).then(
        () => undefined,
        (e: { code: number; details: string }) => e,
      );
      expect(err?.code, `ListBoards prefix ${prefix.slice(0, 10)}`).toBe(status.INVALID_ARGUMENT);
      expect(err!.details).toMatch(/^prefix (may contain only A-Z a-z 0-9 _ - \. :, got "|is \d+ characters long, more than 64$)/);
    }

    const oracles = new Map(BOARDS.map((b) => [b.name, new RulesOracle(b.rules)]));
    const defaultOps = new Map(BOARDS.map((b) => [b.name, b.defaultOp]));
    const rand = random(9);
    const players = 400;
    const offsets: PartitionOffset[] = [];
    const base = Date.now() - 20 * 60_000;
    const write = async (batches: number, from: number) => {
      for (let n = from; n < from + batches; n++) {
        const updates = [];
        const applied: Array<[string, string, Op, number, number]> = [];
        for (let i = 0; i < 150; i++) {
          const b = BOARDS[Math.floor(rand() * BOARDS.length)]!;
          const playerId = `p-${Math.floor(rand() * players)}`;
          const named = b.allowOverride && rand() < 0.6 ? b.ops[Math.floor(rand() * b.ops.length)]! : undefined; // else the board's default
          const value = b.value(rand);
          const timestampMs = base + n * 2000 + Math.floor(rand() * 4) * 500; // coarse: many in one second
          updates.push({
            board: b.name,
            playerId,
            op: named ? OP_OF[named] : Operation.UNSPECIFIED,
            value: BigInt(value),
            timestampMs: BigInt(timestampMs),
            eventId: `${n}-${i}`,
          });
          applied.push([b.name, playerId, named ?? defaultOps.get(b.name)!, value, timestampMs]);
        }
        const res = await c.ingest.submitScores({ updates });
        offsets.push(...res.offsets);
        for (const [board, playerId, op, value, ts] of applied) oracles.get(board)!.apply(playerId, op, value, ts);
      }
    };

    // readers check every answer while the writes go on
    let stop = false;
    const problems: string[] = [];
    let answers = 0;
    const readers = Array.from({ length: 2 }, async (_, r) => {
      const rr = random(100 + r);
      while (!stop) {
        const b = BOARDS[Math.floor(rr() * BOARDS.length)]!;
        const kind = Math.floor(rr() * 3);
        const got =
          kind === 0
            ? await outcome(c.router.getTop({ board: b.name, offset: BigInt(Math.floor(rr() * 100)), limit: 50 }))
            : kind === 1
              ? await outcome(c.router.getAround({ board: b.name, playerId: `p-${Math.floor(rr() * players)}`, radius: 4 }))
              : await outcome(c.router.getRank({ board: b.name, playerId: `p-${Math.floor(rr() * players)}` }));
        if ("code" in got) {
          if (got.code !== status.NOT_FOUND && got.code !== status.UNAVAILABLE) problems.push(`${b.name}: code ${got.code} ${got.details}`);
          continue;
        }
        answers++;
        const page = got.ok as { entries?: Entry[]; entry?: Entry; total: bigint };
        const entries = (page.entries ?? [page.entry!]).map(plain);
        problems.push(...rulesPageProblems(b.rules, entries, Number(page.total)).map((p) => `${b.name}: ${p}`));
      }
    });
    await write(25, 0);
    // a definition changed on the way: kills' default becomes SET; records written before keep INCREMENT
    const updated = await admin.updateBoard({ board: { name: "kills", defaultOp: Operation.SET, allowOpOverride: true } });
    expect(updated.board!.defaultOp).toBe(Operation.SET);
    await new Promise((r) => setTimeout(r, 1500)); // ingest's follower has it (bound: 1 s)
    defaultOps.set("kills", "set");
    await write(25, 25);
    stop = true;
    await Promise.all(readers);
    expect(problems.slice(0, 5)).toEqual([]);
    expect(answers).toBeGreaterThan(50);

    await c.waitApplied(offsets);
    const exact = async (label: string) => {
      const wrong: string[] = [];
      for (const b of BOARDS) {
        const want = oracles.get(b.name)!.sorted();
        const top = await c.router.getTop({ board: b.name, limit: 1000 });
        expect(Number(top.total), `${label} ${b.name} total`).toBe(want.length);
        expect(top.entries.map(plain), `${label} ${b.name} top`).toEqual(want);
        // every player's rank in one GetRanks, a sample by GetRank
        const all = await c.router.getRanks({ board: b.name, playerIds: want.map((e) => e.playerId) });
        expect(
          all.entries.map((e) => plain(e.entry!)),
          `${label} ${b.name} ranks`,
        ).toEqual(want);
        for (const e of want.filter((_, i) => i % 10 === 0)) {
          const got = await c.router.getRank({ board: b.name, playerId: e.playerId });
          if (JSON.stringify(plain(got.entry!)) !== JSON.stringify(e))
            wrong.push(`${label} ${b.name} rank of ${e.playerId}: ${JSON.stringify(plain(got.entry!))} != ${JSON.stringify(e)}`);
        }
        for (const e of want.filter((_, i) => i % 37 === 0)) {
          const got = await c.router.getAround({ board: b.name, playerId: e.playerId, radius: 3 });
          expect(got.entries.map(plain), `${label} ${b.name} around ${e.playerId}`).toEqual(
            want.slice(Math.max(0, e.rank - 4), e.rank + 3),
          );
        }
      }
      expect(wrong.slice(0, 5)).toEqual([]);
    };
    await exact("at rest");
    // ties really were exercised: equal points on several shards
    const speed = oracles.get("speedrun")!.sorted();
    expect(new Set(speed.map((e) => e.score)).size).toBeLessThan(speed.length / 4);

    for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
    await c.waitApplied(offsets);
    await exact("after a rebuild");
  });

  it("refuses what it must, with the status that says why, and writes nothing refused", async () => {
    const { c, admin } = await cluster("boards-refusals", false);
    await admin.createBoard({
      board: {
        name: "golf",
        rules: { order: SortOrder.LOWER_IS_BETTER, minPoints: 18n, maxPoints: 200n },
        defaultOp: Operation.BEST,
        allowOpOverride: false,
      },
    });
    await knownToIngest(c, "golf", 201n);
    // a board that is not defined, with boards without a definition off
    expect(await codeOf(c.ingest.submitScores({ updates: [{ board: "nope", playerId: "a", op: Operation.SET, value: 1n }] }))).toBe(
      status.NOT_FOUND,
    );
    expect(await codeOf(c.router.getTop({ board: "nope" }))).toBe(status.NOT_FOUND);
    expect(await codeOf(c.router.getRank({ board: "nope", playerId: "a" }))).toBe(status.NOT_FOUND);
    // the default only, outside the range, and a batch with one bad update writes nothing
    expect(await codeOf(c.ingest.submitScores({ updates: [{ board: "golf", playerId: "a", op: Operation.SET, value: 70n }] }))).toBe(
      status.FAILED_PRECONDITION,
    );
    expect(await codeOf(c.ingest.submitScores({ updates: [{ board: "golf", playerId: "a", value: 7n }] }))).toBe(status.INVALID_ARGUMENT);
    expect(
      await codeOf(
        c.ingest.submitScores({
          updates: [
            { board: "golf", playerId: "a", value: 70n },
            { board: "nope", playerId: "b", op: Operation.SET, value: 1n },
          ],
        }),
      ),
    ).toBe(status.NOT_FOUND);
    const ok = await c.ingest.submitScores({
      updates: [
        { board: "golf", playerId: "b", value: 72n },
        { board: "golf", playerId: "b", value: 75n },
        { board: "golf", playerId: "c", value: 68n },
      ],
    });
    await c.waitApplied(ok.offsets);
    const top = await c.router.getTop({ board: "golf" });
    expect(top.entries.map((e) => [e.playerId, Number(e.score)])).toEqual([
      ["c", 68],
      ["b", 72],
    ]); // "a" was never written; b kept its best (lowest)
    // definitions that cannot be, or conflict
    expect(await codeOf(admin.createBoard({ board: { name: "golf" } }))).toBe(status.ALREADY_EXISTS);
    expect(await codeOf(admin.createBoard({ board: { name: "bad name" } }))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(admin.createBoard({ board: { name: "inverted", rules: { minPoints: 10n, maxPoints: 5n } } }))).toBe(
      status.INVALID_ARGUMENT,
    );
    expect(await codeOf(admin.createBoard({ board: { name: "too-wide", rules: { minPoints: 0n, maxPoints: 2n ** 53n - 1n } } }))).toBe(
      status.INVALID_ARGUMENT,
    );
    expect(
      await codeOf(
        admin.updateBoard({ board: { name: "golf", rules: { order: SortOrder.HIGHER_IS_BETTER, minPoints: 18n, maxPoints: 200n } } }),
      ),
    ).toBe(status.FAILED_PRECONDITION);
    expect(await codeOf(admin.updateBoard({ board: { name: "nope" } }))).toBe(status.NOT_FOUND);
    expect(await codeOf(admin.getBoard({ name: "nope" }))).toBe(status.NOT_FOUND);
    // only the admin role defines boards
    const writer = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.write);
    expect(await codeOf(writer.createBoard({ board: { name: "mine" } }))).toBe(status.PERMISSION_DENIED);
    writer.close();
    const names = (await admin.listBoards({})).boards.map((b) => b.name);
    expect(names).toContain("golf");
    for (const refused of ["inverted", "too-wide", "mine", "bad name"]) expect(names).not.toContain(refused);
  });

  it("with boards without a definition allowed: those still work, a definition over one is refused, a new one is used at once", async () => {
    const { c, admin } = await cluster("boards-implicit", true);
    const legacy = await c.ingest.submitScores({
      updates: [
        { board: "legacy", playerId: "a", op: Operation.INCREMENT, value: 5n },
        { board: "legacy", playerId: "a", op: Operation.INCREMENT, value: 5n },
      ],
    });
    await c.waitApplied(legacy.offsets);
    expect(Number((await c.router.getRank({ board: "legacy", playerId: "a" })).entry!.score)).toBe(10);
    expect(await codeOf(admin.createBoard({ board: { name: "legacy" } }))).toBe(status.FAILED_PRECONDITION);
    // a board written without a definition needs an operation; a defined one takes its default
    expect(await codeOf(c.ingest.submitScores({ updates: [{ board: "legacy", playerId: "a", value: 1n }] }))).toBe(status.INVALID_ARGUMENT);
    const created = await admin.createBoard({
      board: { name: "laps", rules: { order: SortOrder.LOWER_IS_BETTER, minPoints: 1n, maxPoints: 10_000n }, defaultOp: Operation.BEST },
    });
    const res = await c.ingest.submitScores({
      updates: [
        { board: "laps", playerId: "a", value: 900n },
        { board: "laps", playerId: "a", value: 950n },
        { board: "laps", playerId: "b", value: 800n },
      ],
    });
    await c.waitApplied(res.offsets);
    const top = await c.router.getTop({ board: "laps" });
    expect(top.entries.map((e) => [e.playerId, Number(e.score), Number(e.rank)])).toEqual([
      ["b", 800, 1],
      ["a", 900, 2],
    ]);
    expect(created.board!.rules!.generation).toBeGreaterThan(0n);
    expect(Number((await c.router.getRank({ board: "legacy", playerId: "a" })).entry!.score)).toBe(10); // untouched
  });
});

describe("board periods", () => {
  // four boards with periods in four time zones; events placed around their boundaries, daylight-saving
  // changes included (Paris and Berlin 2026-10-25, New York 2026-11-01), weeks ago (late events) and now
  const PERIODIC = [
    {
      name: "daily-paris",
      kind: PeriodKind.DAILY,
      zone: "Europe/Paris",
      cron: "",
      keep: 60,
      rules: { lowerIsBetter: false, tie: "earliest" as const, minPoints: 0, maxPoints: 1000, resolutionMs: 1000, epochMs: EPOCH },
      op: "inc" as Op,
      idOf: (ms: number) => dailyId(ms, "Europe/Paris"),
    },
    {
      name: "weekly-ny",
      kind: PeriodKind.WEEKLY,
      zone: "America/New_York",
      cron: "",
      keep: 10,
      rules: { lowerIsBetter: true, tie: "earliest" as const, minPoints: 0, maxPoints: 100_000, resolutionMs: 1000, epochMs: EPOCH },
      op: "best" as Op,
      idOf: (ms: number) => weeklyId(ms, "America/New_York"),
    },
    {
      name: "monthly-tokyo",
      kind: PeriodKind.MONTHLY,
      zone: "Asia/Tokyo",
      cron: "",
      keep: 3,
      rules: { lowerIsBetter: false, tie: "latest" as const, minPoints: 0, maxPoints: 50, resolutionMs: 1000, epochMs: EPOCH },
      op: "set" as Op,
      idOf: (ms: number) => monthlyId(ms, "Asia/Tokyo"),
    },
    {
      name: "fridays-berlin",
      kind: PeriodKind.CRON,
      zone: "Europe/Berlin",
      cron: "0 18 * * 5",
      keep: 8,
      rules: { lowerIsBetter: false, tie: "earliest" as const, minPoints: 0, maxPoints: 1000, resolutionMs: 1000, epochMs: EPOCH },
      op: "inc" as Op,
      idOf: (ms: number) => new Date(weeklyAtStart(ms, "Europe/Berlin", 5, 18)).toISOString(),
    },
  ];
  const ANCHORS = [
    "2026-10-24T22:00:00Z",
    "2026-10-25T01:00:00Z",
    "2026-10-25T23:00:00Z",
    "2026-10-23T16:00:00Z",
    "2026-10-30T17:00:00Z",
    "2026-11-01T05:00:00Z",
    "2026-11-02T05:00:00Z",
    "2026-10-31T15:00:00Z",
    "2026-11-27T17:00:00Z",
    "2026-11-30T15:00:00Z",
  ].map(Date.parse);

  it("every event lands in the period of its own time in the board's zone; each period equals the oracle, while written, at rest and after a rebuild", async () => {
    const { c, admin } = await cluster("periods", false);
    for (const b of PERIODIC) {
      await admin.createBoard({
        board: {
          name: b.name,
          defaultOp: OP_OF[b.op],
          rules: {
            order: ORDER(b.rules),
            tie: TIE[b.rules.tie],
            minPoints: BigInt(b.rules.minPoints),
            maxPoints: BigInt(b.rules.maxPoints),
            resolutionMs: b.rules.resolutionMs,
            period: b.kind,
            timeZone: b.zone,
            cron: b.cron,
            keepPeriods: b.keep,
          },
        },
      });
      await knownToIngest(c, b.name, BigInt(b.rules.maxPoints + 1));
    }
    const oracles = new Map<string, RulesOracle>(); // board + "|" + period id
    const oracleOf = (board: (typeof PERIODIC)[number], id: string) => {
      const key = `${board.name}|${id}`;
      if (!oracles.has(key)) oracles.set(key, new RulesOracle(board.rules));
      return oracles.get(key)!;
    };
    const rand = random(21);
    const offsets: PartitionOffset[] = [];
    let stop = false;
    const problems: string[] = [];
    let answers = 0;
    const readers = Array.from({ length: 2 }, async () => {
      while (!stop) {
        const keys = [...oracles.keys()];
        if (keys.length === 0) {
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        const [name, period] = keys[Math.floor(rand() * keys.length)]!.split("|") as [string, string];
        const b = PERIODIC.find((x) => x.name === name)!;
        const ask: Promise<{ entries: Entry[]; total: bigint }> =
          rand() < 0.5
            ? c.router.getTop({ board: name, period, limit: 40 })
            : c.router.getAround({ board: name, period, playerId: `q-${Math.floor(rand() * 150)}`, radius: 3 });
        const got = await outcome(ask);
        if ("code" in got) {
          if (got.code !== status.NOT_FOUND && got.code !== status.UNAVAILABLE)
            problems.push(`${name} ${period}: code ${got.code} ${got.details}`);
          continue;
        }
        answers++;
        problems.push(...rulesPageProblems(b.rules, got.ok.entries.map(plain), Number(got.ok.total)).map((p) => `${name} ${period}: ${p}`));
      }
    });
    const now = Date.now();
    // 14 batches at least, and more (with the same players and periods) until the readers checked 20
    // answers while they were written: a busy machine reads slower, the count must not depend on it
    for (let n = 0; n < 14 || (answers <= 20 && n < 200); n++) {
      const updates = [];
      const applied: Array<[(typeof PERIODIC)[number], string, number, number]> = [];
      for (let i = 0; i < 150; i++) {
        const b = PERIODIC[Math.floor(rand() * PERIODIC.length)]!;
        // around a boundary (±90 min), or in the last hour
        const at =
          rand() < 0.8
            ? ANCHORS[Math.floor(rand() * ANCHORS.length)]! + Math.floor((rand() - 0.5) * 3 * 3600) * 1000
            : now - Math.floor(rand() * 3600) * 1000;
        const playerId = `q-${Math.floor(rand() * 150)}`;
        const value = b.op === "best" ? 500 + Math.floor(rand() * 20) * 50 : Math.floor(rand() * 5) + 1;
        updates.push({ board: b.name, playerId, value: BigInt(value), timestampMs: BigInt(at), eventId: `${n}-${i}` });
        applied.push([b, playerId, value, at]);
      }
      const res = await c.ingest.submitScores({ updates });
      offsets.push(...res.offsets);
      for (const [b, playerId, value, at] of applied) oracleOf(b, b.idOf(at)).apply(playerId, b.op, value, at);
    }
    stop = true;
    await Promise.all(readers);
    expect(problems.slice(0, 5)).toEqual([]);
    expect(answers).toBeGreaterThan(20);
    await c.waitApplied(offsets);

    const exact = async (label: string) => {
      for (const [key, oracle] of oracles) {
        const [name, period] = key.split("|") as [string, string];
        const want = oracle.sorted();
        const top = await c.router.getTop({ board: name, period, limit: 1000 });
        expect({ total: Number(top.total), entries: top.entries.map(plain) }, `${label}: ${key}`).toEqual({
          total: want.length,
          entries: want,
        });
        for (const e of want.filter((_, i) => i % 5 === 0)) {
          const got = await c.router.getRank({ board: name, period, playerId: e.playerId });
          expect(plain(got.entry!), `${label}: ${key} rank of ${e.playerId}`).toEqual(e);
        }
      }
    };
    await exact("at rest");
    // the boundaries split the events: e.g. Paris's 25-hour day and the days around it are three periods
    const parisDays = [...oracles.keys()].filter((k) => k.startsWith("daily-paris|2026-10-2"));
    expect(parisDays.length).toBeGreaterThanOrEqual(3);
    console.log(`[boards] periods written: ${[...oracles.keys()].join(", ")}`);
    // the current period is the default
    for (const b of PERIODIC) {
      const current = b.idOf(Date.now());
      const top = await c.router.getTop({ board: b.name, limit: 1000 });
      expect(top.entries.map(plain), `${b.name} current`).toEqual(oracles.get(`${b.name}|${current}`)?.sorted() ?? []);
      const listed = (await c.router.listPeriods({ board: b.name })).periods;
      expect(listed.length).toBe(b.keep + 1);
      expect(new Date(Number(listed[0]!.startMs)).getTime()).toBeLessThanOrEqual(Date.now());
      expect(Number(listed[0]!.endMs)).toBeGreaterThan(Date.now());
      expect(Number(listed[1]!.endMs)).toBe(Number(listed[0]!.startMs)); // consecutive
      if (b.kind !== PeriodKind.CRON) expect(listed[0]!.id).toBe(current);
      else expect(Number(listed[0]!.startMs)).toBe(Date.parse(current));
    }

    for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
    await c.waitApplied(offsets);
    await exact("after a rebuild");
  });

  it("refuses late events past retention, periods not kept or not named right, and periods of all-time boards", async () => {
    const { c, admin } = await cluster("periods-refusals", false);
    await admin.createBoard({
      board: { name: "daily-short", defaultOp: Operation.INCREMENT, rules: { period: PeriodKind.DAILY, keepPeriods: 1 } },
    });
    await admin.createBoard({ board: { name: "forever", defaultOp: Operation.INCREMENT } });
    await knownToIngest(c, "daily-short", 2n ** 32n);
    const day = 86_400_000;
    const yesterday = Date.now() - day;
    expect(
      await codeOf(
        c.ingest.submitScores({ updates: [{ board: "daily-short", playerId: "a", value: 1n, timestampMs: BigInt(Date.now() - 3 * day) }] }),
      ),
    ).toBe(status.FAILED_PRECONDITION);
    const ok = await c.ingest.submitScores({
      updates: [
        { board: "daily-short", playerId: "a", value: 4n, timestampMs: BigInt(yesterday) },
        { board: "daily-short", playerId: "a", value: 2n },
      ],
    });
    await c.waitApplied(ok.offsets);
    const y = dailyId(yesterday, "UTC");
    expect(Number((await c.router.getRank({ board: "daily-short", period: y, playerId: "a" })).entry!.score)).toBe(4);
    expect(Number((await c.router.getRank({ board: "daily-short", playerId: "a" })).entry!.score)).toBe(2); // today: its own period
    expect(await codeOf(c.router.getTop({ board: "daily-short", period: dailyId(Date.now() - 3 * day, "UTC") }))).toBe(status.NOT_FOUND);
    for (const bad of ["2026-13-01", "2026-W49", "yesterday"])
      expect(await codeOf(c.router.getTop({ board: "daily-short", period: bad }))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(c.router.getTop({ board: "forever", period: y }))).toBe(status.INVALID_ARGUMENT);
    expect((await c.router.listPeriods({ board: "forever" })).periods).toEqual([]);
    expect((await c.router.listPeriods({ board: "daily-short" })).periods.map((p) => p.id)).toEqual([dailyId(Date.now(), "UTC"), y]);
    for (const bad of [
      { period: PeriodKind.DAILY, timeZone: "Mars/Olympus" },
      { period: PeriodKind.CRON, cron: "61 * * * *" },
      { period: PeriodKind.CRON },
      { period: PeriodKind.DAILY, keepPeriods: 5000 },
    ]) {
      expect(await codeOf(admin.createBoard({ board: { name: "bad-period", rules: bad } })), JSON.stringify(bad)).toBe(
        status.INVALID_ARGUMENT,
      );
    }
  });
});

describe("board windows", () => {
  // three boards with windows over their periods: a daily board in Paris (a 3-day SUM, a 4-day BEST),
  // a lower-is-better weekly board in New York with latest-first ties, and a Friday-18:00 cron board in
  // Berlin with ties by player id; events around the October and November 2026 daylight-saving changes,
  // weeks late, and now
  const WINDOWED = [
    {
      name: "win-daily-paris",
      kind: PeriodKind.DAILY,
      zone: "Europe/Paris",
      cron: "",
      keep: 60,
      ops: ["inc", "inc", "dec", "set"] as Op[],
      rules: { lowerIsBetter: false, tie: "earliest" as const, minPoints: 0, maxPoints: 1000, resolutionMs: 1000, epochMs: EPOCH },
      value: (r: () => number) => Math.floor(r() * 5) + 1,
      idOf: (ms: number) => dailyId(ms, "Europe/Paris"),
      windows: [
        { name: "3d", periods: 3, combine: "sum" as Combine },
        { name: "best4", periods: 4, combine: "best" as Combine },
      ],
    },
    {
      name: "win-weekly-ny",
      kind: PeriodKind.WEEKLY,
      zone: "America/New_York",
      cron: "",
      keep: 12,
      ops: ["best"] as Op[],
      rules: { lowerIsBetter: true, tie: "latest" as const, minPoints: 0, maxPoints: 100_000, resolutionMs: 1000, epochMs: EPOCH },
      value: (r: () => number) => 500 + Math.floor(r() * 10) * 50,
      idOf: (ms: number) => weeklyId(ms, "America/New_York"),
      windows: [
        { name: "2w", periods: 2, combine: "sum" as Combine },
        { name: "best3", periods: 3, combine: "best" as Combine },
      ],
    },
    {
      name: "win-fridays",
      kind: PeriodKind.CRON,
      zone: "Europe/Berlin",
      cron: "0 18 * * 5",
      keep: 10,
      ops: ["set", "inc"] as Op[],
      rules: { lowerIsBetter: false, tie: "id" as const, minPoints: -20, maxPoints: 50, resolutionMs: 1000, epochMs: EPOCH },
      value: (r: () => number) => Math.floor(r() * 9) - 3,
      idOf: (ms: number) => new Date(weeklyAtStart(ms, "Europe/Berlin", 5, 18)).toISOString(),
      windows: [{ name: "2f", periods: 2, combine: "sum" as Combine }],
    },
  ];
  const ANCHORS = [
    "2026-10-24T22:00:00Z",
    "2026-10-25T01:00:00Z",
    "2026-10-25T23:00:00Z",
    "2026-10-26T22:30:00Z",
    "2026-10-30T17:00:00Z",
    "2026-11-01T05:00:00Z",
    "2026-11-02T05:00:00Z",
    "2026-11-08T05:00:00Z",
    "2026-11-27T17:00:00Z",
  ].map(Date.parse);
  const COMBINE = { sum: WindowCombine.SUM, best: WindowCombine.BEST } as const;

  it("top, rank and around of SUM and BEST windows equal the oracle, while written, at rest and after a rebuild", async () => {
    const { c, admin, redisUrls } = await cluster("windows", false);
    const generations = new Map<string, bigint>();
    for (const b of WINDOWED) {
      const created = await admin.createBoard({
        board: {
          name: b.name,
          defaultOp: OP_OF[b.ops[0]!],
          allowOpOverride: true,
          rules: {
            order: ORDER(b.rules),
            tie: TIE[b.rules.tie],
            minPoints: BigInt(b.rules.minPoints),
            maxPoints: BigInt(b.rules.maxPoints),
            resolutionMs: b.rules.resolutionMs,
            period: b.kind,
            timeZone: b.zone,
            cron: b.cron,
            keepPeriods: b.keep,
            windows: b.windows.map((w) => ({ name: w.name, periods: w.periods, combine: COMBINE[w.combine] })),
          },
        },
      });
      generations.set(b.name, created.board!.rules!.generation);
      await knownToIngest(c, b.name, BigInt(b.rules.maxPoints + 1));
    }
    const periods = new Map<string, RulesOracle>(); // board + "|" + period id
    const periodOf = (b: (typeof WINDOWED)[number], id: string) => {
      const key = `${b.name}|${id}`;
      if (!periods.has(key)) periods.set(key, new RulesOracle(b.rules));
      return periods.get(key)!;
    };
    const rand = random(41);
    const now = Date.now();
    const offsets: PartitionOffset[] = [];
    let stop = false;
    const problems: string[] = [];
    let answers = 0;
    const readers = Array.from({ length: 2 }, async (_, r) => {
      const rr = random(200 + r);
      while (!stop) {
        const b = WINDOWED[Math.floor(rr() * WINDOWED.length)]!;
        const w = b.windows[Math.floor(rr() * b.windows.length)]!;
        const at = rr() < 0.7 ? ANCHORS[Math.floor(rr() * ANCHORS.length)]! + Math.floor(rr() * 3) * 86_400_000 : now;
        const period = b.idOf(at);
        const ask: Promise<{ entries?: Entry[]; entry?: Entry; total: bigint }> =
          rr() < 0.5
            ? c.router.getTop({ board: b.name, period, window: w.name, limit: 60 })
            : rr() < 0.5
              ? c.router.getAround({ board: b.name, period, window: w.name, playerId: `w-${Math.floor(rr() * 120)}`, radius: 3 })
              : c.router.getRank({ board: b.name, period, window: w.name, playerId: `w-${Math.floor(rr() * 120)}` });
        const got = await outcome(ask);
        if ("code" in got) {
          if (got.code !== status.NOT_FOUND && got.code !== status.UNAVAILABLE)
            problems.push(`${b.name} ${w.name}@${period}: code ${got.code} ${got.details}`);
          continue;
        }
        answers++;
        const entries = (got.ok.entries ?? [got.ok.entry!]).map(plain);
        problems.push(
          ...rulesPageProblems(windowRules(b.rules, w.combine, w.periods), entries, Number(got.ok.total)).map(
            (p) => `${b.name} ${w.name}@${period}: ${p}`,
          ),
        );
      }
    });
    // at least 10 batches, and more until the readers have answered while written (a busy machine slows them)
    for (let n = 0; n < 10 || (answers <= 20 && n < 200); n++) {
      const updates = [];
      const applied: Array<[(typeof WINDOWED)[number], string, Op, number, number]> = [];
      for (let i = 0; i < 150; i++) {
        const b = WINDOWED[Math.floor(rand() * WINDOWED.length)]!;
        // around a boundary (±36 h: a window spans several), or in the last hour
        const at =
          rand() < 0.85
            ? ANCHORS[Math.floor(rand() * ANCHORS.length)]! + Math.floor((rand() - 0.5) * 72 * 3600) * 1000
            : now - Math.floor(rand() * 3600) * 1000;
        const playerId = `w-${Math.floor(rand() * 120)}`;
        const op = b.ops[Math.floor(rand() * b.ops.length)]!;
        const value = b.value(rand);
        updates.push({ board: b.name, playerId, op: OP_OF[op], value: BigInt(value), timestampMs: BigInt(at), eventId: `${n}-${i}` });
        applied.push([b, playerId, op, value, at]);
      }
      const res = await c.ingest.submitScores({ updates });
      offsets.push(...res.offsets);
      for (const [b, playerId, op, value, at] of applied) periodOf(b, b.idOf(at)).apply(playerId, op, value, at);
    }
    stop = true;
    await Promise.all(readers);
    expect(problems.slice(0, 5)).toEqual([]);
    expect(answers).toBeGreaterThan(20);
    await c.waitApplied(offsets);

    // every window ending in a period from the first written to n - 1 past the last written
    const checks: Array<{
      b: (typeof WINDOWED)[number];
      w: (typeof WINDOWED)[number]["windows"][number];
      period: string;
      want: RulesEntry[];
    }> = [];
    for (const b of WINDOWED) {
      const sequence = periodSequence(b.idOf, Math.min(...ANCHORS) - 3 * 86_400_000, now + 30 * 86_400_000);
      const written = sequence.map((id, i) => (periods.has(`${b.name}|${id}`) ? i : -1)).filter((i) => i >= 0);
      for (const w of b.windows) {
        for (let i = written[0]!; i <= Math.min(sequence.length - 1, written[written.length - 1]! + w.periods - 1); i++) {
          const parts = sequence.slice(Math.max(0, i - w.periods + 1), i + 1).map((id) => periods.get(`${b.name}|${id}`)?.sorted());
          checks.push({ b, w, period: sequence[i]!, want: windowEntries(windowRules(b.rules, w.combine, w.periods), w.combine, parts) });
        }
      }
    }
    const exact = async (label: string) => {
      for (const { b, w, period, want } of checks) {
        const where = `${label}: ${b.name} ${w.name}@${period}`;
        const top = await served(() => c.router.getTop({ board: b.name, period, window: w.name, limit: 1000 }));
        expect({ total: Number(top.total), entries: top.entries.map(plain) }, where).toEqual({ total: want.length, entries: want });
        for (const e of want.filter((_, i) => i % 25 === 0)) {
          expect(
            plain((await served(() => c.router.getRank({ board: b.name, period, window: w.name, playerId: e.playerId }))).entry!),
            `${where} rank of ${e.playerId}`,
          ).toEqual(e);
          const around = await served(() => c.router.getAround({ board: b.name, period, window: w.name, playerId: e.playerId, radius: 2 }));
          expect(around.entries.map(plain), `${where} around ${e.playerId}`).toEqual(want.slice(Math.max(0, e.rank - 3), e.rank + 2));
        }
      }
    };
    await exact("at rest");
    // the windows did combine: some players' SUMs span several periods, with equal sums and ties
    const sums = checks.filter((x) => x.w.combine === "sum" && x.b.name === "win-daily-paris").flatMap((x) => x.want);
    expect(sums.some((e) => e.score > 5)).toBe(true);
    console.log(
      `[boards] windows checked: ${checks.length} (board, window, period), ${checks.reduce((n, x) => n + x.want.length, 0)} entries`,
    );
    // retention: a window ending in P expires when P does (keep_periods + 1 periods after its start); P's own key
    // lives n - 1 periods longer (n = 4, the board's longest window), for the windows after it that include it
    const daily = WINDOWED[0]!;
    const lastDay = periodSequence(daily.idOf, now - 3 * 86_400_000, now)
      .filter((id) => periods.has(`${daily.name}|${id}`))
      .pop()!;
    const ahead = periodSequence(daily.idOf, now - 3 * 86_400_000, now + (daily.keep + 8) * 86_400_000);
    const startOf = (id: string) => {
      for (let t = Math.floor((now - 3 * 86_400_000) / 3_600_000) * 3_600_000; ; t += 3_600_000) if (daily.idOf(t) === id) return t;
    };
    const expiries = { period: new Set<number>(), window: new Set<number>() };
    for (const url of redisUrls) {
      const r = new Redis(url);
      const stored = `${c.ns.keyPrefix}board:${daily.name}#${generations.get(daily.name)}`;
      const [period, window] = await Promise.all([r.pexpiretime(`${stored}@${lastDay}`), r.pexpiretime(`${stored}~3d@${lastDay}`)]);
      r.disconnect();
      if (period > 0) expiries.period.add(period);
      if (window > 0) expiries.window.add(window);
    }
    const i0 = ahead.indexOf(lastDay);
    expect([...expiries.window], `window 3d@${lastDay} expires`).toEqual([startOf(ahead[i0 + daily.keep + 1]!)]);
    expect([...expiries.period], `period ${lastDay} expires`).toEqual([startOf(ahead[i0 + daily.keep + 4]!)]);

    // the current period's window is the default
    for (const b of WINDOWED) {
      const top = await served(() => c.router.getTop({ board: b.name, window: b.windows[0]!.name, limit: 1000 }));
      const current = checks.find((x) => x.b === b && x.w === b.windows[0] && x.period === b.idOf(Date.now()));
      expect(top.entries.map(plain), `${b.name} current window`).toEqual(current?.want ?? []);
    }

    for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
    await c.waitApplied(offsets);
    await exact("after a rebuild");

    // refusals
    expect(await codeOf(c.router.getTop({ board: "win-daily-paris", window: "nope" }))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(c.router.getRank({ board: "win-weekly-ny", window: "3d", playerId: "w-1" }))).toBe(status.INVALID_ARGUMENT);
    expect(
      await codeOf(
        c.router.getTop({ board: "win-daily-paris", window: "3d", period: dailyId(Date.now() - 70 * 86_400_000, "Europe/Paris") }),
      ),
    ).toBe(status.NOT_FOUND);
    await admin.createBoard({ board: { name: "win-forever", defaultOp: Operation.INCREMENT } });
    expect(await codeOf(c.router.getTop({ board: "win-forever", window: "3d" }))).toBe(status.INVALID_ARGUMENT);
    const bad = (rules: object) => codeOf(admin.createBoard({ board: { name: "win-bad", rules } }));
    expect(await bad({ windows: [{ name: "w", periods: 3 }] })).toBe(status.INVALID_ARGUMENT); // an all-time board
    expect(await bad({ period: PeriodKind.DAILY, windows: [{ name: "w", periods: 1 }] })).toBe(status.INVALID_ARGUMENT);
    expect(
      await bad({
        period: PeriodKind.DAILY,
        windows: [
          { name: "w", periods: 3 },
          { name: "w", periods: 4 },
        ],
      }),
    ).toBe(status.INVALID_ARGUMENT);
    expect(await bad({ period: PeriodKind.DAILY, maxPoints: 2n ** 40n, resolutionMs: 1, windows: [{ name: "w", periods: 3 }] })).toBe(
      status.INVALID_ARGUMENT,
    );
    expect((await admin.listBoards({ prefix: "win-bad" })).boards).toEqual([]);
  });
});

describe("several boards in one write: divisions", () => {
  it("an update feeds the league and the player's division together; a move leaves the old division in the same step; exact while written, at rest and after a rebuild", async () => {
    const { c, admin } = await cluster("divisions", false);
    const DIVISIONS = ["division:bronze", "division:silver", "division:gold"];
    const rules: Rules = { lowerIsBetter: false, tie: "earliest", minPoints: 0, maxPoints: 10_000, resolutionMs: 1000, epochMs: EPOCH };
    for (const name of ["league", ...DIVISIONS]) {
      await admin.createBoard({ board: { name, defaultOp: Operation.INCREMENT, rules: { maxPoints: 10_000n, resolutionMs: 1000 } } });
      await knownToIngest(c, name, 10_001n);
    }
    expect((await admin.listBoards({ prefix: "division:" })).boards.map((b) => b.name)).toEqual([
      "division:bronze",
      "division:gold",
      "division:silver",
    ]);
    const oracles = new Map(["league", ...DIVISIONS].map((n) => [n, new RulesOracle(rules)]));
    const divisionOf = new Map<string, string>();
    const rand = random(33);
    const offsets: PartitionOffset[] = [];
    let stop = false;
    const problems: string[] = [];
    let answers = 0;
    const readers = Array.from({ length: 2 }, async () => {
      while (!stop) {
        const board = ["league", ...DIVISIONS][Math.floor(rand() * 4)]!;
        const got = await outcome(c.router.getTop({ board, limit: 100 }));
        if ("code" in got) {
          problems.push(`${board}: code ${got.code} ${got.details}`);
          continue;
        }
        answers++;
        problems.push(...rulesPageProblems(rules, got.ok.entries.map(plain), Number(got.ok.total), 1).map((p) => `${board}: ${p}`));
      }
    });
    const base = Date.now() - 10 * 60_000;
    let moves = 0;
    // at least 20 batches, and more until the readers have answered while written; event times stay in the past
    for (let n = 0; n < 20 || (answers <= 20 && n < 50); n++) {
      const updates = [];
      const seen = new Set<string>(); // one update per player per batch: each batch's moves are decided on the state before it
      for (let i = 0; i < 150; i++) {
        const playerId = `d-${Math.floor(rand() * 300)}`;
        if (seen.has(playerId)) continue;
        seen.add(playerId);
        const value = 1 + Math.floor(rand() * 5);
        const at = base + n * 10_000 + Math.floor(rand() * 4) * 1000;
        const from = divisionOf.get(playerId);
        const to =
          from === undefined
            ? "division:bronze"
            : rand() < 0.15
              ? DIVISIONS[(DIVISIONS.indexOf(from) + (rand() < 0.5 ? 1 : 2)) % 3]!
              : from;
        updates.push({
          board: "league",
          playerId,
          value: BigInt(value),
          timestampMs: BigInt(at),
          eventId: `${n}-${i}`,
          alsoBoards: [to],
          ...(from && from !== to ? { leaveBoard: from } : {}),
        });
        oracles.get("league")!.apply(playerId, "inc", value, at);
        oracles.get(to)!.apply(playerId, "inc", value, at);
        if (from && from !== to) {
          oracles.get(from)!.remove(playerId);
          moves++;
        }
        divisionOf.set(playerId, to);
      }
      const res = await c.ingest.submitScores({ updates });
      offsets.push(...res.offsets);
    }
    stop = true;
    await Promise.all(readers);
    expect(problems.slice(0, 5)).toEqual([]);
    expect(answers).toBeGreaterThan(20);
    expect(moves).toBeGreaterThan(50);
    await c.waitApplied(offsets);
    const exact = async (label: string) => {
      const members = new Map<string, string[]>();
      for (const [board, oracle] of oracles) {
        const top = await c.router.getTop({ board, limit: 1000 });
        expect(top.entries.map(plain), `${label}: ${board}`).toEqual(oracle.sorted());
        if (board !== "league") for (const e of top.entries) members.set(e.playerId, [...(members.get(e.playerId) ?? []), board]);
      }
      // every player in exactly one division, the one it moved to last
      for (const [player, division] of divisionOf) expect(members.get(player), `${label}: ${player}`).toEqual([division]);
    };
    await exact("at rest");
    for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
    await c.waitApplied(offsets);
    await exact("after a rebuild");

    // refused as a whole, nothing written
    const code = (u: object) => codeOf(c.ingest.submitScores({ updates: [{ board: "league", playerId: "z-new", value: 1n, ...u }] }));
    expect(await code({ alsoBoards: ["division:gold", "division:gold"] })).toBe(status.INVALID_ARGUMENT);
    expect(await code({ alsoBoards: ["league"] })).toBe(status.INVALID_ARGUMENT);
    expect(await code({ alsoBoards: Array.from({ length: 9 }, (_, i) => `division:x${i}`) })).toBe(status.INVALID_ARGUMENT);
    expect(await code({ alsoBoards: ["division:gold"], leaveBoard: "division:nope" })).toBe(status.NOT_FOUND);
    expect(await code({ alsoBoards: ["division:gold"], leaveBoard: "division:gold" })).toBe(status.INVALID_ARGUMENT);
    expect(await code({ alsoBoards: ["division:gold"], value: 20_000n })).toBe(status.INVALID_ARGUMENT);
    const last = await c.ingest.submitScores({
      updates: [{ board: "league", playerId: "d-0", value: 1n, alsoBoards: [divisionOf.get("d-0") ?? "division:bronze"] }],
    });
    await c.waitApplied(last.offsets);
    expect(await codeOf(c.router.getRank({ board: "league", playerId: "z-new" }))).toBe(status.NOT_FOUND);
    expect(await codeOf(c.router.getRank({ board: "division:gold", playerId: "z-new" }))).toBe(status.NOT_FOUND);
  });
});

describe("erasure", () => {
  it("DeletePlayer erases a player from the boards named or from all, every period included, through the log: a rebuild keeps it erased, later scores count again", async () => {
    const { c, admin, redisUrls } = await cluster("erasure", false);
    // the boards (by name) whose remembered event ids of `player` the shards' dedup sets hold
    const rememberedFor = async (player: string) => {
      const boards = new Set<string>();
      for (const url of redisUrls) {
        const r = new Redis(url);
        for (const key of await r.keys(`${c.ns.keyPrefix}dedup:*`)) {
          for (const m of await r.zrange(key, "0", "-1"))
            if (m.endsWith(`\n${player}`)) boards.add(m.split("\n")[1]!.replace(`${c.ns.keyPrefix}board:`, "").replace(/#.*/, ""));
        }
        r.disconnect();
      }
      return [...boards].sort();
    };
    await admin.createBoard({ board: { name: "er-global", defaultOp: Operation.INCREMENT } });
    await admin.createBoard({
      board: { name: "er-daily", defaultOp: Operation.INCREMENT, rules: { period: PeriodKind.DAILY, keepPeriods: 3 } },
    });
    await admin.createBoard({ board: { name: "er-other", defaultOp: Operation.INCREMENT } });
    for (const b of ["er-global", "er-daily", "er-other"]) await knownToIngest(c, b, 2n ** 32n);
    const day = 86_400_000;
    const write = async (players: string[], extra: object = {}) => {
      const res = await c.ingest.submitScores({
        updates: players.flatMap((p) => [
          { board: "er-global", playerId: p, value: 5n, alsoBoards: ["er-other"], eventId: `${p}-g`, ...extra },
          { board: "er-daily", playerId: p, value: 2n, eventId: `${p}-d` },
          { board: "er-daily", playerId: p, value: 3n, timestampMs: BigInt(Date.now() - 2 * day), eventId: `${p}-d2` },
        ]),
      });
      return res.offsets;
    };
    const players = Array.from({ length: 40 }, (_, i) => `e-${i}`);
    const offsets = await write(players);
    await c.waitApplied(offsets);
    const past = dailyId(Date.now() - 2 * day, "UTC");
    const where = async (player: string) => {
      const found: string[] = [];
      for (const [board, period] of [
        ["er-global", ""],
        ["er-other", ""],
        ["er-daily", ""],
        ["er-daily", past],
      ] as const) {
        if ((await codeOf(c.router.getRank({ board, period, playerId: player }))) === "ok")
          found.push(period ? `${board}@${period}` : board);
      }
      return found;
    };
    expect(await where("e-1")).toEqual(["er-global", "er-other", "er-daily", `er-daily@${past}`]);
    // erased from every board, and from one board only
    const all = await c.ingest.deletePlayer({ playerId: "e-1" });
    const one = await c.ingest.deletePlayer({ playerId: "e-2", boards: ["er-daily"] });
    await c.waitApplied([all.offset!, one.offset!]);
    expect(await where("e-1")).toEqual([]);
    expect(await where("e-2")).toEqual(["er-global", "er-other"]);
    // and so do their remembered event ids (the dedup window's), of the boards erased only
    expect(await rememberedFor("e-1")).toEqual([]);
    expect(await rememberedFor("e-2")).toEqual(["er-global", "er-other"]);
    expect(await rememberedFor("e-3")).toEqual(["er-daily", "er-global", "er-other"]);
    expect(await where("e-3")).toEqual(["er-global", "er-other", "er-daily", `er-daily@${past}`]);
    expect(Number((await c.router.getTop({ board: "er-global", limit: 1 })).total)).toBe(39);
    // a read with the tombstone's token waits for the erasure
    expect(await codeOf(c.router.getRank({ board: "er-global", playerId: "e-1", consistencyToken: all.consistencyToken }))).toBe(
      status.NOT_FOUND,
    );
    // refusals write nothing
    expect(await codeOf(c.ingest.deletePlayer({ playerId: "" }))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(c.ingest.deletePlayer({ playerId: "e-3", boards: ["nope"] }))).toBe(status.NOT_FOUND);
    expect(await codeOf(c.ingest.deletePlayer({ playerId: "e-3", boards: ["bad name"] }))).toBe(status.INVALID_ARGUMENT);
    // through the log: a rebuild replays the tombstones; a score after the erasure counts again
    const again = await c.ingest.submitScores({ updates: [{ board: "er-global", playerId: "e-1", value: 7n }] });
    await c.waitApplied(again.offsets);
    for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
    await c.waitApplied([...offsets, ...again.offsets, all.offset!, one.offset!]);
    expect(await where("e-1")).toEqual(["er-global"]);
    expect(Number((await c.router.getRank({ board: "er-global", playerId: "e-1" })).entry!.score)).toBe(7);
    expect(await where("e-2")).toEqual(["er-global", "er-other"]);
    expect(await where("e-3")).toEqual(["er-global", "er-other", "er-daily", `er-daily@${past}`]);
  });
});
