// Moderation (issue #29, item 2) against the real processes: players hidden and shown again on a
// board or on every board, through the log, while a writer writes and readers read.
//
// The oracle keeps every player's scores on every board (writes of hidden players included) and its
// hides, and a history of each player's states: every read is checked against it while the writer
// and the moderator run (ranks consecutive, in order, no player twice; each entry is a state its
// player was in since its last moderation applied before the read began, visible there; a NOT_FOUND
// only when the player was hidden or absent), then at rest each board equals the oracle's visible
// board exactly (top, rank of every player, around), and again after a rebuild from the log.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { status } from "@grpc/grpc-js";
import { afterAll, describe, expect, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { silentLogger } from "@ladder/platform/logger";
import { startRedisServer } from "@ladder/deploy/redis-server";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { AdminService, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { ScoreUpdateSchema } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { Operation, PeriodKind, WindowCombine, type Entry, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { outcome, startTestCluster, type TestCluster, TEST_TOKENS } from "./cluster-harness.js";
import { seeded } from "./moving-board.js";
import { dailyId } from "./period-oracle.js";
import { rulesPageProblems, RulesOracle, type Rules, type RulesEntry } from "./rules-oracle.js";
import { windowRules } from "./window-oracle.js";

const log = silentLogger();
const cleanups: Array<() => Promise<unknown>> = [];
let dataDir: string | undefined;
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

let shared: Promise<{ c: TestCluster; admin: ClientOf<typeof AdminService> }> | undefined;
const cluster = () =>
  (shared ??= (async () => {
    dataDir = await mkdtemp(join(tmpdir(), "ladder-moderation-"));
    // own Redis servers: the rebuild swaps whole databases
    const redis = await Promise.all([0, 1, 2].map((i) => startRedisServer({ dataDir: join(dataDir!, `r-${i}`), persist: false, log })));
    cleanups.push(() => Promise.all(redis.map((r) => r.stop())));
    const c = await startTestCluster("moderation", {
      redisUrls: redis.map((r) => r.url),
      settings: { LADDER_IMPLICIT_BOARDS: "0", LADDER_SNAPSHOTS: "0" },
    });
    cleanups.push(() => c.stop());
    const admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
    cleanups.push(async () => admin.close());
    return { c, admin };
  })());

const RULES: Rules = { lowerIsBetter: false, tie: "earliest", minPoints: 0, maxPoints: 1_000_000, resolutionMs: 1000, epochMs: 0 };
const WINDOW = windowRules(RULES, "sum", 2);
const codeOf = async (p: Promise<unknown>) => {
  const o = await outcome(p);
  return "ok" in o ? "ok" : o.code;
};
const plain = (e: Entry): RulesEntry => ({
  playerId: e.playerId,
  score: Number(e.score),
  reachedAtMs: Number(e.reachedAtMs),
  rank: Number(e.rank),
});

/** Until ingest takes writes to `board` (it refuses a board it does not know with NOT_FOUND). */
async function ingestSees(c: TestCluster, board: string): Promise<void> {
  const from = Date.now();
  for (;;) {
    const code = await codeOf(c.ingest.submitScores({ updates: [{ board, playerId: "probe", value: 2n ** 40n }] }));
    if (code === status.INVALID_ARGUMENT) return;
    if (Date.now() - from > 10_000) throw new Error(`ingest still answers ${code} for ${board}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("moderation", () => {
  it("hides a player on a board or everywhere and shows it again: exact under writes and reads, at rest and after a rebuild", async () => {
    const { c, admin } = await cluster();
    const [A, B, D] = ["mod-a", "mod-b", "mod-daily"];
    for (const name of [A, B])
      await admin.createBoard({ board: { name, defaultOp: Operation.INCREMENT, rules: { maxPoints: 1_000_000n, resolutionMs: 1000 } } });
    await admin.createBoard({
      board: {
        name: D,
        defaultOp: Operation.INCREMENT,
        rules: {
          maxPoints: 1_000_000n,
          resolutionMs: 1000,
          period: PeriodKind.DAILY,
          keepPeriods: 3,
          windows: [{ name: "2d", periods: 2, combine: WindowCombine.SUM }],
        },
      },
    });
    for (const b of [A, B, D]) await ingestSees(c, b);
    const today = dailyId(Date.now(), "UTC");

    // the views read: a board, the daily board's period of today, and its 2-day window ending today
    // (every write is of today: the window's score is the period's)
    const views = {
      a: { where: { board: A }, board: A, rules: RULES },
      b: { where: { board: B }, board: B, rules: RULES },
      day: { where: { board: D, period: today }, board: D, rules: RULES },
      win: { where: { board: D, period: today, window: "2d" }, board: D, rules: WINDOW },
    } as const;
    type View = keyof typeof views;
    const scores: Record<"a" | "b" | "day", RulesOracle> = {
      a: new RulesOracle(RULES),
      b: new RulesOracle(RULES),
      day: new RulesOracle(RULES),
    };
    const hiddenOn = new Map<string, Set<string>>(); // player -> boards ("" = every board)
    const isHidden = (p: string, board: string) => hiddenOn.get(p)?.has("") || hiddenOn.get(p)?.has(board) || false;
    const visible = (v: View): RulesEntry[] =>
      scores[v === "win" ? "day" : v]
        .sorted()
        .filter((e) => !isHidden(e.playerId, views[v].board))
        .map((e, i) => ({ ...e, rank: i + 1 }));

    // each player's states: from `version` on (the step that made it), its score and visibility per view
    type State = { version: number; at: Record<View, number | undefined> };
    const history = new Map<string, State[]>();
    const PLAYERS = Array.from({ length: 120 }, (_, i) => `mp-${i}`);
    let version = 0; // steps applied (acknowledged, and moderation also applied)
    const floor = new Map<string, number>(); // player -> version of its last moderation applied
    for (const p of PLAYERS) history.set(p, [{ version: 0, at: { a: undefined, b: undefined, day: undefined, win: undefined } }]);
    const snapshot = (p: string, v: number) => {
      const at = {} as Record<View, number | undefined>;
      for (const view of Object.keys(views) as View[]) {
        const e = scores[view === "win" ? "day" : view].sorted().find((x) => x.playerId === p);
        at[view] = e && !isHidden(p, views[view].board) ? e.score : undefined;
      }
      history.get(p)!.push({ version: v, at });
    };

    let stop = false;
    const problems: string[] = [];
    let answers = 0;
    let notFound = 0;
    // states of `p` a read between versions [from, to] may see: those in force at some version in it
    const statesOf = (p: string, from: number, to: number) => {
      const all = history.get(p) ?? [];
      return all.filter((s, i) => s.version <= to && (all[i + 1]?.version ?? Infinity) > from);
    };
    const reader = async (r: number) => {
      const rand = seeded(100 + r);
      while (!stop) {
        const view = (["a", "b", "day", "win"] as const)[rand.randInt(0, 3)]!;
        const player = PLAYERS[rand.randInt(0, PLAYERS.length - 1)]!;
        const kind = rand.randInt(0, 2);
        // a write acknowledged may not be applied yet: a read sees at least each player's last
        // moderation waited for (its records before it are applied too: one partition)
        const floors = new Map(floor);
        const where = views[view].where;
        const got = await outcome<{ entries?: Entry[]; entry?: Entry; total: bigint }>(
          kind === 0
            ? c.router.getTop({ ...where, limit: 200 })
            : kind === 1
              ? c.router.getAround({ ...where, playerId: player, radius: 4 })
              : c.router.getRank({ ...where, playerId: player }),
        );
        const v1 = version + 1; // the step in flight may be applied already
        const seen = (p: string) => statesOf(p, floors.get(p) ?? 0, v1);
        if ("code" in got) {
          if (got.code !== status.NOT_FOUND) problems.push(`${view}: code ${got.code} ${got.details}`);
          else if (kind === 0 || !seen(player).some((s) => s.at[view] === undefined))
            problems.push(`${view}: NOT_FOUND for ${player}, visible in every state since ${floors.get(player) ?? 0}`);
          else notFound++;
          continue;
        }
        answers++;
        const entries = (got.ok.entries ?? [got.ok.entry!]).map(plain);
        const rules = views[view].rules;
        problems.push(...rulesPageProblems(rules, entries, Number(got.ok.total)).map((x) => `${view}: ${x}`));
        for (const e of entries)
          if (!seen(e.playerId).some((s) => s.at[view] === e.score))
            problems.push(
              `${view}: ${e.playerId} at ${e.score}, a state it was not in visibly since version ${floors.get(e.playerId) ?? 0}`,
            );
      }
    };
    const readers = [0, 1].map(reader);

    // the writer and the moderator: one step at a time, in log order per player
    const rand = seeded(7);
    const offsets: PartitionOffset[] = [];
    const actions: string[] = [];
    const step = async (send: () => Promise<PartitionOffset[]>, touched: string[], moderation: boolean) => {
      for (const p of touched) snapshot(p, version + 1);
      const written = await send();
      offsets.push(...written);
      if (moderation) {
        await c.waitApplied(written);
        for (const p of touched) floor.set(p, version + 1);
      }
      version++;
    };
    const now = Date.now();
    for (let round = 0; round < 40; round++) {
      const updates: Array<MessageInitShape<typeof ScoreUpdateSchema>> = [];
      const touched = new Set<string>();
      for (let i = 0; i < 30; i++) {
        const p = PLAYERS[rand.randInt(0, PLAYERS.length - 1)]!;
        if (touched.has(p)) continue;
        touched.add(p);
        const value = rand.randInt(1, 20);
        const at = now - rand.randInt(0, 5) * 1000;
        const boards = [A, ...(i % 2 ? [B] : []), ...(i % 3 ? [D] : [])];
        updates.push({ board: A, playerId: p, value: BigInt(value), timestampMs: BigInt(at), alsoBoards: boards.slice(1) });
        for (const b of boards) scores[b === A ? "a" : b === B ? "b" : "day"].apply(p, "inc", value, at);
      }
      await step(async () => (await c.ingest.submitScores({ updates })).offsets, [...touched], false);

      // a moderation action on a player among the first 40 (they come back often)
      const p = PLAYERS[rand.randInt(0, 39)]!;
      const hides = hiddenOn.get(p) ?? hiddenOn.set(p, new Set()).get(p)!;
      const pick = rand.randInt(0, 5);
      const board = pick === 0 ? "" : pick === 1 ? D : pick === 2 ? B : A;
      const reason = `round ${round}`;
      if (pick >= 4 && hides.size > 0) {
        const which = [...hides][rand.randInt(0, hides.size - 1)]!;
        const lifted = pick === 5 ? "" : which; // without a board: every hide of the player
        if (lifted === "") hides.clear();
        else hides.delete(lifted);
        actions.push(`unhide ${p} ${lifted || "*"}`);
        await step(async () => [(await admin.unhidePlayer({ playerId: p, board: lifted, reason })).offset!], [p], true);
      } else {
        hides.add(board);
        actions.push(`hide ${p} ${board || "*"}`);
        await step(async () => [(await admin.hidePlayer({ playerId: p, board, reason })).offset!], [p], true);
      }
    }
    stop = true;
    await Promise.all(readers);
    expect(problems.slice(0, 5)).toEqual([]);
    expect(answers).toBeGreaterThan(100);
    const hiddenNow = [...hiddenOn].filter(([, s]) => s.size > 0).length;
    console.log(
      `[moderation] ${answers} answers checked (${notFound} NOT_FOUND of hidden players), ${actions.length} actions, ${hiddenNow} players hidden at the end`,
    );
    expect(actions.some((a) => a.startsWith("unhide"))).toBe(true);
    expect(hiddenNow).toBeGreaterThan(0);
    await c.waitApplied(offsets);

    const exact = async (label: string) => {
      for (const view of Object.keys(views) as View[]) {
        const want = visible(view);
        const cmp = (es: RulesEntry[]) => (view === "win" ? es.map((e) => ({ ...e, reachedAtMs: 0 })) : es);
        const where = views[view].where;
        expect(cmp((await c.router.getTop({ ...where, limit: 1000 })).entries.map(plain)), `${label} ${view} top`).toEqual(cmp(want));
        const byPlayer = new Map(want.map((e) => [e.playerId, e]));
        for (const p of PLAYERS.slice(0, 60)) {
          const e = byPlayer.get(p);
          const got = await outcome(c.router.getRank({ ...where, playerId: p }));
          if (!e) expect("code" in got ? got.code : "ok", `${label} ${view} rank of hidden or absent ${p}`).toBe(status.NOT_FOUND);
          else {
            expect("ok" in got && cmp([plain(got.ok.entry!)]), `${label} ${view} rank of ${p}`).toEqual(cmp([e]));
            if (Number(e.rank) % 5 === 0)
              expect(
                cmp((await c.router.getAround({ ...where, playerId: p, radius: 2 })).entries.map(plain)),
                `${label} ${view} around ${p}`,
              ).toEqual(cmp(want.slice(Math.max(0, e.rank - 3), e.rank + 2)));
          }
        }
      }
    };
    await exact("at rest");

    // every hide lifted: every entry is back where its scores put it
    const lifted: PartitionOffset[] = [];
    for (const [p, hides] of hiddenOn)
      if (hides.size > 0) {
        lifted.push((await admin.unhidePlayer({ playerId: p, board: "", reason: "all clear" })).offset!);
        hides.clear();
      }
    await c.waitApplied(lifted);
    offsets.push(...lifted);
    await exact("every hide lifted");
    // hidden again, everywhere: a player's later writes stay hidden, and come back with it
    const [x, y] = [PLAYERS[0]!, PLAYERS[1]!];
    const again = [(await admin.hidePlayer({ playerId: x, board: "", reason: "again" })).offset!];
    again.push((await admin.hidePlayer({ playerId: y, board: A, reason: "again" })).offset!);
    hiddenOn.set(x, new Set([""]));
    hiddenOn.set(y, new Set([A]));
    const at = Date.now();
    const more = await c.ingest.submitScores({
      updates: [x, y].map((p) => ({ board: A, playerId: p, value: 500n, timestampMs: BigInt(at), alsoBoards: [B, D] })),
    });
    for (const p of [x, y]) for (const v of ["a", "b", "day"] as const) scores[v].apply(p, "inc", 500, at);
    await c.waitApplied([...again, ...more.offsets]);
    offsets.push(...again, ...more.offsets);
    await exact("hidden again, written while hidden");

    for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
    await c.waitApplied(offsets);
    await exact("after a rebuild");
  });

  it("refuses a bad player, board or reason, and a token without the admin role, writing nothing", async () => {
    const { c, admin } = await cluster();
    await admin.createBoard({ board: { name: "mod-refusals", defaultOp: Operation.INCREMENT } });
    await ingestSees(c, "mod-refusals");
    const w = await c.ingest.submitScores({ updates: [{ board: "mod-refusals", playerId: "r-1", value: 5n }] });
    await c.waitApplied(w.offsets);
    const refused = async (req: { playerId: string; board: string; reason: string }, code: number, words: string) => {
      const got = await outcome(admin.hidePlayer(req));
      expect("code" in got && [got.code, got.details.includes(words)], JSON.stringify(req)).toEqual([code, true]);
    };
    await refused({ playerId: "", board: "mod-refusals", reason: "x" }, status.INVALID_ARGUMENT, "player_id");
    await refused({ playerId: "r-1", board: "bad board", reason: "x" }, status.INVALID_ARGUMENT, "board");
    await refused({ playerId: "r-1", board: "mod-nowhere", reason: "x" }, status.NOT_FOUND, "mod-nowhere");
    await refused({ playerId: "r-1", board: "mod-refusals", reason: " " }, status.INVALID_ARGUMENT, "reason");
    await refused({ playerId: "r-1", board: "mod-refusals", reason: "x".repeat(501) }, status.INVALID_ARGUMENT, "500");
    const writer = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.write);
    expect(await codeOf(writer.hidePlayer({ playerId: "r-1", board: "mod-refusals", reason: "x" }))).toBe(status.PERMISSION_DENIED);
    writer.close();
    // a later write's token covers the partition: had any refusal been written, it would be applied by then
    const after = await c.ingest.submitScores({ updates: [{ board: "mod-refusals", playerId: "r-1", value: 1n }] });
    await c.waitApplied(after.offsets);
    expect(Number((await c.router.getRank({ board: "mod-refusals", playerId: "r-1" })).entry!.score)).toBe(6);
  });
});
