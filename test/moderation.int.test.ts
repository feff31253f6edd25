import { join } from "node:path";
import { status } from "@grpc/grpc-js";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { slotOf } from "@ladder/model/placement";
import { ModerationAction } from "@ladder/proto/leaderboard/v1/moderation_pb";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { AdminService, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { ScoreUpdateSchema } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { Operation, PeriodKind, SortOrder, WindowCombine, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { fileClusterOnOwnRedis, outcome, TEST_TOKENS, untilIngestKnows } from "./cluster-harness.js";
import { seeded } from "./moving-board.js";
import { dailyId } from "./period-oracle.js";
import { RulesOracle, type Rules, type RulesEntry } from "./rules-oracle.js";
import { CheckedReads } from "./moderation-reads.js";
import { windowRules } from "./window-oracle.js";
import { builtEntry } from "@ladder/deploy/built-entry";

/** The CLI as `npm run cli` runs it: its build (built-entry.ts). */
const CLI = builtEntry("cli/src/main.ts");

const run = promisify(execFile);
const cluster = fileClusterOnOwnRedis("moderation", {
  // snapshots taken often: the rebuilds start from one (hides, hidden entries and audit lines in it) and replay the rest
  LADDER_IMPLICIT_BOARDS: "0",
  LADDER_SNAPSHOT_RECORDS: "200",
  LADDER_SNAPSHOT_MIN_INTERVAL_MS: "500",
});

/** Rebuilds every shard; counts the rebuilds that started from a snapshot. */
let fromSnapshots = 0;
async function rebuild(admin: ClientOf<typeof AdminService>): Promise<void> {
  const used = new Set<string>();
  for await (const r of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>) if (r.snapshotId) used.add(r.shardId);
  fromSnapshots += used.size;
}
afterAll(() => console.log(`[moderation] ${fromSnapshots} shard rebuilds started from a snapshot`));

const RULES: Rules = { lowerIsBetter: false, tie: "earliest", minPoints: 0, maxPoints: 1_000_000, resolutionMs: 1000, epochMs: 0 };
const WINDOW = windowRules(RULES, "sum", 2);
const codeOf = async (p: Promise<unknown>) => {
  const o = await outcome(p);
  return "ok" in o ? "ok" : o.code;
};

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
    for (const b of [A, B, D]) await untilIngestKnows(c, b);
    const today = dailyId(Date.now(), "UTC");

    // the views read: two boards, the daily board's period of today, and its 2-day window ending
    // today (every write is of today: the window's score is the period's)
    const views = {
      a: { where: { board: A }, rules: RULES },
      b: { where: { board: B }, rules: RULES },
      day: { where: { board: D, period: today }, rules: RULES },
      win: { where: { board: D, period: today, window: "2d" }, rules: WINDOW, scoresOnly: true },
    };
    type View = keyof typeof views;
    const boardOf: Record<View, string> = { a: A, b: B, day: D, win: D };
    const scores = { a: new RulesOracle(RULES), b: new RulesOracle(RULES), day: new RulesOracle(RULES) };
    const oracleOf = (v: View) => scores[v === "win" ? "day" : v];
    const hiddenOn = new Map<string, Set<string>>(); // player -> boards ("" = every board)
    const isHidden = (p: string, board: string) => hiddenOn.get(p)?.has("") || hiddenOn.get(p)?.has(board) || false;
    const visible = (v: View): RulesEntry[] =>
      oracleOf(v)
        .sorted()
        .filter((e) => !isHidden(e.playerId, boardOf[v]))
        .map((e, i) => ({ ...e, rank: i + 1 }));
    const PLAYERS = Array.from({ length: 120 }, (_, i) => `mp-${i}`);
    const reads = new CheckedReads(c, views, PLAYERS, (p, v) =>
      isHidden(p, boardOf[v])
        ? undefined
        : oracleOf(v)
            .sorted()
            .find((e) => e.playerId === p)?.score,
    );
    reads.start();

    // the writer and the moderator: one step at a time, in log order per player
    const rand = seeded(7);
    const actions: string[] = [];
    const done = new Map<string, Array<{ action: ModerationAction; board: string; reason: string }>>(); // per player, oldest first
    const did = (p: string, action: ModerationAction, board: string, reason: string) =>
      (done.get(p) ?? done.set(p, []).get(p)!).push({ action, board, reason });
    const now = Date.now();
    // 40 rounds, more (up to 120) until the readers have answered well past the check below on a busy machine
    for (let round = 0; round < 40 || (round < 120 && reads.answers <= 200); round++) {
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
      await reads.step(async () => (await c.ingest.submitScores({ updates })).offsets, touched, false);

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
        did(p, ModerationAction.UNHIDE, lifted, reason);
        await reads.step(async () => [(await admin.unhidePlayer({ playerId: p, board: lifted, reason })).offset!], [p], true);
      } else {
        hides.add(board);
        actions.push(`hide ${p} ${board || "*"}`);
        did(p, ModerationAction.HIDE, board, reason);
        await reads.step(async () => [(await admin.hidePlayer({ playerId: p, board, reason })).offset!], [p], true);
      }
    }
    await reads.stop();
    expect(reads.problems.slice(0, 5)).toEqual([]);
    expect(reads.answers).toBeGreaterThan(100);
    const hiddenNow = [...hiddenOn].filter(([, s]) => s.size > 0).length;
    console.log(
      `[moderation] ${reads.answers} answers checked (${reads.notFound} NOT_FOUND of hidden players), ${actions.length} actions, ${hiddenNow} players hidden at the end`,
    );
    expect(actions.some((a) => a.startsWith("unhide"))).toBe(true);
    expect(hiddenNow).toBeGreaterThan(0);
    const offsets = reads.offsets;
    await c.waitApplied(offsets);
    const exact = (label: string) => reads.exact(label, visible, PLAYERS.slice(0, 60));
    await exact("at rest");

    // every hide lifted: every entry is back where its scores put it
    const lifted: PartitionOffset[] = [];
    for (const [p, hides] of hiddenOn)
      if (hides.size > 0) {
        lifted.push((await admin.unhidePlayer({ playerId: p, board: "", reason: "all clear" })).offset!);
        did(p, ModerationAction.UNHIDE, "", "all clear");
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
    did(x, ModerationAction.HIDE, "", "again");
    did(y, ModerationAction.HIDE, A, "again");
    const at = Date.now();
    const more = await c.ingest.submitScores({
      updates: [x, y].map((p) => ({ board: A, playerId: p, value: 500n, timestampMs: BigInt(at), alsoBoards: [B, D] })),
    });
    for (const p of [x, y]) for (const v of ["a", "b", "day"] as const) scores[v].apply(p, "inc", 500, at);
    await c.waitApplied([...again, ...more.offsets]);
    offsets.push(...again, ...more.offsets);
    await exact("hidden again, written while hidden");

    // the audit trail: each player's actions, newest first, with who and why, through the rpc and the CLI
    const trail = async (label: string) => {
      for (const [p, list] of done) {
        const got = await admin.listModerationActions({ playerId: p, limit: 1000 });
        expect(
          got.actions.map((a) => [a.action!.action, a.action!.board, a.action!.reason, a.action!.by, a.record!.partition]),
          `${label}: audit of ${p}`,
        ).toEqual([...list].reverse().map((x) => [x.action, x.board, x.reason, "test-admin", slotOf(p, 12)]));
      }
    };
    await trail("at rest");

    await rebuild(admin);
    expect(fromSnapshots, "shard rebuilds that started from a snapshot").toBeGreaterThan(0);
    await c.waitApplied(offsets);
    await exact("after a rebuild");
    await trail("after a rebuild");
    const cli = await run("node", [CLI, "audit", "--player", x, "--router", c.services.routerAddress, "--token", TEST_TOKENS.admin], {
      cwd: join(import.meta.dirname, ".."),
    });
    const lines = cli.stdout.trim().split("\n");
    expect(lines.length).toBe(done.get(x)!.length);
    expect(lines[0]).toMatch(
      new RegExp(`^\\d{4}-\\d\\d-\\d\\dT.* hide ${x} on every board by test-admin: again \\(partition ${slotOf(x, 12)} offset \\d+\\)$`),
    );
  });

  it("deletes an entry and wipes a period or a board: exact under writes and reads, at rest and after a rebuild", async () => {
    const { c, admin } = await cluster();
    const [Q, W] = ["mod-wipe-all", "mod-wipe-daily"];
    await admin.createBoard({ board: { name: Q, defaultOp: Operation.INCREMENT, rules: { maxPoints: 1_000_000n, resolutionMs: 1000 } } });
    await admin.createBoard({
      board: {
        name: W,
        defaultOp: Operation.INCREMENT,
        rules: { maxPoints: 1_000_000n, resolutionMs: 1000, period: PeriodKind.DAILY, keepPeriods: 3 },
      },
    });
    for (const b of [Q, W]) await untilIngestKnows(c, b);
    const today = dailyId(Date.now(), "UTC");
    const views = { q: { where: { board: Q }, rules: RULES }, w: { where: { board: W, period: today }, rules: RULES } };
    type View = keyof typeof views;
    const scores = { q: new RulesOracle(RULES), w: new RulesOracle(RULES) };
    const PLAYERS = Array.from({ length: 100 }, (_, i) => `mw-${i}`);
    const hidden = PLAYERS[3]!; // hidden on the daily board: its hidden entry is wiped and deleted too
    let stillHidden = true;
    const shownOn = (p: string, v: View) => !(stillHidden && p === hidden && v === "w");
    const reads = new CheckedReads(c, views, PLAYERS, (p, v) =>
      shownOn(p, v) ? scores[v].sorted().find((e) => e.playerId === p)?.score : undefined,
    );
    await reads.step(async () => [(await admin.hidePlayer({ playerId: hidden, board: W, reason: "hidden" })).offset!], [hidden], true);
    reads.start();
    const rand = seeded(11);
    const now = Date.now();
    const counts = { deleted: 0, wipes: 0 };
    const onW: ModerationAction[] = [ModerationAction.HIDE]; // the actions on W, oldest first
    // 30 rounds, more (up to 90) until the readers have answered well past the check below on a busy machine
    for (let round = 0; round < 30 || (round < 90 && reads.answers <= 200); round++) {
      const updates: Array<MessageInitShape<typeof ScoreUpdateSchema>> = [];
      const touched = new Set<string>();
      for (let i = 0; i < 30; i++) {
        const p = PLAYERS[rand.randInt(0, PLAYERS.length - 1)]!;
        if (touched.has(p)) continue;
        touched.add(p);
        const value = rand.randInt(1, 20);
        const at = now - rand.randInt(0, 5) * 1000;
        updates.push({ board: Q, playerId: p, value: BigInt(value), timestampMs: BigInt(at), alsoBoards: [W] });
        scores.q.apply(p, "inc", value, at);
        scores.w.apply(p, "inc", value, at);
      }
      await reads.step(async () => (await c.ingest.submitScores({ updates })).offsets, touched, false);
      const pick = rand.randInt(0, 9);
      if (pick < 6) {
        const p = PLAYERS[rand.randInt(0, PLAYERS.length - 1)]!;
        const board = pick % 2 ? Q : W;
        scores[board === Q ? "q" : "w"].remove(p);
        counts.deleted++;
        if (board === W) onW.push(ModerationAction.DELETE_ENTRY);
        await reads.step(async () => [(await admin.deleteEntry({ playerId: p, board, reason: `round ${round}` })).offset!], [p], true);
      } else if (pick < 8) {
        const board = pick === 6 ? Q : W;
        for (const p of PLAYERS) scores[board === Q ? "q" : "w"].remove(p);
        counts.wipes++;
        if (board === W) onW.push(ModerationAction.WIPE);
        await reads.step(async () => (await admin.wipeBoard({ board, period: "", reason: `round ${round}` })).markers, PLAYERS, true);
      }
    }
    await reads.stop();
    expect(reads.problems.slice(0, 5)).toEqual([]);
    expect(reads.answers).toBeGreaterThan(100);
    console.log(`[moderation] ${reads.answers} answers checked, ${counts.deleted} entries deleted, ${counts.wipes} wipes`);
    expect(counts.deleted > 0 && counts.wipes > 0).toBe(true);
    await c.waitApplied(reads.offsets);
    // the hidden player's hidden entry went with the wipes and deletions: shown again, it has only what it wrote since
    expect(scores.w.sorted().some((e) => e.playerId === hidden)).toBe(true);
    const shown = await admin.unhidePlayer({ playerId: hidden, board: W, reason: "shown" });
    await c.waitApplied([shown.offset!]);
    stillHidden = false;
    onW.push(ModerationAction.UNHIDE);
    const want = (v: View) =>
      scores[v]
        .sorted()
        .filter((e) => shownOn(e.playerId, v))
        .map((e, i) => ({ ...e, rank: i + 1 }));
    await reads.exact("at rest", want, PLAYERS.slice(0, 60));

    await rebuild(admin);
    await c.waitApplied([...reads.offsets, shown.offset!]);
    await reads.exact("after a rebuild", want, PLAYERS.slice(0, 60));
    // the audit trail of the board: each wipe once (its partition 0 record), each deletion, the hide and its end
    const trail = (await admin.listModerationActions({ board: W, limit: 1000 })).actions.map((a) => a.action!);
    expect(trail.map((a) => a.action)).toEqual(onW.reverse());
    expect(trail.filter((a) => a.action === ModerationAction.WIPE).every((a) => a.period === today)).toBe(true);

    // refused: windows, an unknown period, a period on a board without periods; nothing written
    await admin.createBoard({
      board: {
        name: "mod-wipe-windows",
        rules: { period: PeriodKind.DAILY, keepPeriods: 3, windows: [{ name: "2d", periods: 2, combine: WindowCombine.SUM }] },
      },
    });
    expect(await codeOf(admin.wipeBoard({ board: "mod-wipe-windows", period: "", reason: "x" }))).toBe(status.FAILED_PRECONDITION);
    expect(await codeOf(admin.wipeBoard({ board: W, period: "not-a-day", reason: "x" }))).toBe(status.NOT_FOUND);
    expect(await codeOf(admin.wipeBoard({ board: Q, period: today, reason: "x" }))).toBe(status.INVALID_ARGUMENT);
    expect(await codeOf(admin.deleteEntry({ playerId: "mw-1", board: "", reason: "x" }))).toBe(status.INVALID_ARGUMENT);
  });

  it("refuses writes above a board's score ceiling and hides the entries above it: exact under writes and reads, at rest and after a rebuild", async () => {
    const { c, admin } = await cluster();
    const [CA, CP] = ["mod-ceiling", "mod-ceiling-daily"];
    const rules = { maxPoints: 1_000_000n, resolutionMs: 1000 };
    await admin.createBoard({ board: { name: CA, defaultOp: Operation.INCREMENT, rules } });
    await admin.createBoard({
      board: { name: CP, defaultOp: Operation.INCREMENT, rules: { ...rules, period: PeriodKind.DAILY, keepPeriods: 3 } },
    });
    for (const b of [CA, CP]) await untilIngestKnows(c, b);
    const today = dailyId(Date.now(), "UTC");
    const views = { ca: { where: { board: CA }, rules: RULES }, cp: { where: { board: CP, period: today }, rules: RULES } };
    type View = keyof typeof views;
    const boardOf: Record<View, string> = { ca: CA, cp: CP };
    const scores = { ca: new RulesOracle(RULES), cp: new RulesOracle(RULES) };
    const hidden: Record<View, Set<string>> = { ca: new Set(), cp: new Set() };
    const scoreOf = (p: string, v: View) => scores[v].sorted().find((e) => e.playerId === p)?.score;
    const PLAYERS = Array.from({ length: 80 }, (_, i) => `mc-${i}`);
    const reads = new CheckedReads(c, views, PLAYERS, (p, v) => (hidden[v].has(p) ? undefined : scoreOf(p, v)));
    const rand = seeded(23);
    const now = Date.now();
    const round = async () => {
      const updates: Array<MessageInitShape<typeof ScoreUpdateSchema>> = [];
      const touched = new Set<string>();
      for (let i = 0; i < 25; i++) {
        const p = PLAYERS[rand.randInt(0, PLAYERS.length - 1)]!;
        if (touched.has(p)) continue;
        touched.add(p);
        const value = rand.randInt(1, 300);
        const at = now - rand.randInt(0, 5) * 1000;
        updates.push({ board: CA, playerId: p, value: BigInt(value), timestampMs: BigInt(at), alsoBoards: [CP] });
        for (const v of ["ca", "cp"] as const) scores[v].apply(p, "inc", value, at);
      }
      await reads.step(async () => (await c.ingest.submitScores({ updates })).offsets, touched, false);
    };
    for (let r = 0; r < 12; r++) await round();

    // the ceiling: a write above it is refused, naming it, and nothing is written
    const CEILING = 1000;
    for (const b of [CA, CP]) {
      const def = (await admin.getBoard({ name: b })).board!;
      await admin.updateBoard({ board: { ...def, scoreCeiling: BigInt(CEILING) } });
    }
    const probe = PLAYERS[0]!;
    // each board's new definition reaches ingest in its own time (the definitions topic is followed,
    // not read per call): a write accepted before it did is a write like any other
    for (const v of ["ca", "cp"] as const) {
      for (const from = Date.now(); ; ) {
        const got = await outcome(c.ingest.submitScores({ updates: [{ board: boardOf[v], playerId: probe, value: BigInt(CEILING + 1) }] }));
        if ("code" in got) {
          expect([got.code, got.details]).toEqual([
            status.INVALID_ARGUMENT,
            expect.stringContaining(`score ceiling of board "${boardOf[v]}", ${CEILING}`),
          ]);
          break;
        }
        scores[v].apply(probe, "inc", CEILING + 1, Date.now()); // taken before ingest knew the ceiling
        await reads.step(async () => got.ok.offsets, [probe], false);
        if (Date.now() - from > 10_000) throw new Error(`ingest does not refuse writes above the ceiling of ${boardOf[v]}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    // the entries above it hidden, board by board, while writes and reads go on
    reads.start();
    const hideAbove = async (v: View) => {
      const above = PLAYERS.filter((p) => (scoreOf(p, v) ?? 0) > CEILING);
      for (const p of above) hidden[v].add(p);
      await reads.step(async () => (await admin.hideAboveCeiling({ board: boardOf[v], reason: "above the ceiling" })).markers, above, true);
      return above.length;
    };
    const counts: number[] = [];
    // 16 rounds, more (up to 48) until the readers have answered well past the check below on a busy machine
    for (let r = 0; r < 16 || (r < 48 && reads.answers <= 60); r++) {
      await round();
      if (r === 3) counts.push(await hideAbove("ca"));
      if (r === 8) counts.push(await hideAbove("cp"));
      if (r === 12) {
        // an appeal: one shown again, its entry where its scores (written while hidden too) put it
        const p = [...hidden.ca][0]!;
        hidden.ca.delete(p);
        await reads.step(async () => [(await admin.unhidePlayer({ playerId: p, board: CA, reason: "appeal" })).offset!], [p], true);
      }
    }
    await reads.stop();
    expect(reads.problems.slice(0, 5)).toEqual([]);
    console.log(`[moderation] ceiling: ${counts.join(" and ")} players hidden above it; ${reads.answers} answers checked`);
    expect(reads.answers).toBeGreaterThan(30);
    expect(counts.every((n) => n > 2)).toBe(true);
    const want = (v: View) =>
      scores[v]
        .sorted()
        .filter((e) => !hidden[v].has(e.playerId))
        .map((e, i) => ({ ...e, rank: i + 1 }));
    await c.waitApplied(reads.offsets);
    await reads.exact("at rest", want, PLAYERS);
    await rebuild(admin);
    await c.waitApplied(reads.offsets);
    await reads.exact("after a rebuild", want, PLAYERS);

    // refused: a board without a ceiling, a ceiling outside the range or on a lower-is-better board
    await admin.createBoard({ board: { name: "mod-no-ceiling", rules } });
    expect(await codeOf(admin.hideAboveCeiling({ board: "mod-no-ceiling", reason: "x" }))).toBe(status.FAILED_PRECONDITION);
    const def = (await admin.getBoard({ name: "mod-no-ceiling" })).board!;
    expect(await codeOf(admin.updateBoard({ board: { ...def, scoreCeiling: 2_000_000n } }))).toBe(status.INVALID_ARGUMENT);
    expect(
      await codeOf(
        admin.createBoard({ board: { name: "mod-low-ceiling", scoreCeiling: 5n, rules: { ...rules, order: SortOrder.LOWER_IS_BETTER } } }),
      ),
    ).toBe(status.INVALID_ARGUMENT);
  });

  it("refuses a bad player, board or reason, and a token without the admin role, writing nothing", async () => {
    const { c, admin } = await cluster();
    await admin.createBoard({ board: { name: "mod-refusals", defaultOp: Operation.INCREMENT } });
    await untilIngestKnows(c, "mod-refusals");
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
