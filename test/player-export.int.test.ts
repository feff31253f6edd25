// A player's data on request (issue #29, item 5: AdminService.ExportPlayerData) against the real
// processes: every entry of one player (a board, a period, a window, a board it is hidden on) with its
// rank and metadata, and the count of its records in the log. Exports are checked while writers move
// the player and the others (each answer's entries are states the player was in, ranks within the
// board, the count between what was applied and what was sent), then equal the oracle exactly at rest,
// after a rebuild from the log, and through the CLI.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { ScoreUpdateSchema } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { Operation, PeriodKind, WindowCombine, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { fileClusterOnOwnRedis, outcome, served, TEST_TOKENS } from "./cluster-harness.js";
import { seeded } from "./moving-board.js";
import { dailyId } from "./period-oracle.js";
import { RulesOracle, type Rules } from "./rules-oracle.js";
import { builtEntry } from "@ladder/deploy/built-entry";

/** The CLI as `npm run cli` runs it: its build (built-entry.ts). */
const CLI = builtEntry("cli/src/main.ts");

const run = promisify(execFile);
const cluster = fileClusterOnOwnRedis("export", { LADDER_IMPLICIT_BOARDS: "0", LADDER_SNAPSHOTS: "0" });

const RULES: Rules = { lowerIsBetter: false, tie: "earliest", minPoints: 0, maxPoints: 1_000_000, resolutionMs: 1000, epochMs: 0 };

describe("player export", () => {
  it("answers every entry of a player with its rank and metadata and its records in the log: checked under writes, exact at rest, after a rebuild and through the CLI", async () => {
    const { c, admin } = await cluster();

    const [L, D, H] = ["ex-league", "ex-daily", "ex-hidden"];
    const rules = { maxPoints: 1_000_000n, resolutionMs: 1000 };
    await admin.createBoard({ board: { name: L, defaultOp: Operation.INCREMENT, maxMetadataBytes: 64, rules } });
    await admin.createBoard({ board: { name: H, defaultOp: Operation.INCREMENT, maxMetadataBytes: 64, rules } });
    await admin.createBoard({
      board: {
        name: D,
        defaultOp: Operation.INCREMENT,
        maxMetadataBytes: 64,
        rules: { ...rules, period: PeriodKind.DAILY, keepPeriods: 3, windows: [{ name: "2d", periods: 2, combine: WindowCombine.SUM }] },
      },
    });
    for (const b of [L, D, H])
      for (const from = Date.now(); ; ) {
        const got = await outcome(c.ingest.submitScores({ updates: [{ board: b, playerId: "probe", value: 2n ** 40n }] }));
        if ("code" in got && got.code === status.INVALID_ARGUMENT) break;
        if (Date.now() - from > 10_000) throw new Error(`ingest does not take ${b}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    const today = dailyId(Date.now(), "UTC");
    const tomorrow = dailyId(Date.now() + 86_400_000, "UTC"); // the 2-day window ending tomorrow holds today's scores too
    const me = "ex-me";
    const others = Array.from({ length: 60 }, (_, i) => `ex-${i}`);
    // the views of the player's entries, in the export's order (board, period, window)
    const views = [
      { board: D, period: today, window: "" },
      { board: D, period: today, window: "2d" },
      { board: D, period: tomorrow, window: "2d" },
      { board: H, period: "", window: "" },
      { board: L, period: "", window: "" },
    ];
    const oracle = new Map<string, RulesOracle>([L, D, H].map((b) => [b, new RulesOracle(RULES)])); // D: today's period (and its window)
    let metadata = "";
    const myScores = new Map<string, Set<number>>([L, D, H].map((b) => [b, new Set()]));
    let sent = 0; // my records sent (acknowledged or in flight)
    let applied = 0; // my records known applied
    const hide = await admin.hidePlayer({ playerId: me, board: H, reason: "export test" });
    sent++;
    await c.waitApplied([hide.offset!]);
    applied = sent;

    let stop = false;
    const problems: string[] = [];
    let exports = 0;
    const exporter = (async () => {
      while (!stop) {
        const low = applied;
        const got = await served(() => admin.exportPlayerData({ playerId: me }));
        const high = sent;
        exports++;
        const records = Number(got.records);
        if (records < low || records > high) problems.push(`records ${records} outside [${low}, ${high}]`);
        const keys = got.entries.map((e) => `${e.board}@${e.period}~${e.window}`);
        if (new Set(keys).size !== keys.length) problems.push(`an entry twice: ${keys.join(", ")}`);
        for (const e of got.entries) {
          const known = views.some((v) => v.board === e.board && v.period === e.period && v.window === e.window);
          if (!known) problems.push(`an entry of ${e.board}@${e.period}~${e.window}`);
          if (e.hidden !== (e.board === H)) problems.push(`${e.board} hidden: ${e.hidden}`);
          if (e.hidden ? e.entry!.rank !== 0n : e.entry!.rank < 1n || e.entry!.rank > BigInt(others.length + 1))
            problems.push(`${e.board}~${e.window}: rank ${e.entry!.rank}`);
          if (!e.window && !myScores.get(e.board)!.has(Number(e.entry!.score)))
            problems.push(`${e.board}: score ${e.entry!.score} never held`);
        }
      }
    })();

    const rand = seeded(3);
    const offsets: PartitionOffset[] = [hide.offset!];
    const now = Date.now();
    for (let round = 0; round < 20; round++) {
      const updates: Array<MessageInitShape<typeof ScoreUpdateSchema>> = [];
      const md = round % 3 === 2 ? "" : JSON.stringify({ round });
      const value = rand.randInt(1, 20);
      const at = now - rand.randInt(0, 5) * 1000;
      updates.push({ board: L, playerId: me, value: BigInt(value), timestampMs: BigInt(at), metadata: md, alsoBoards: [D, H] });
      for (const b of [L, D, H]) {
        oracle.get(b)!.apply(me, "inc", value, at);
        myScores.get(b)!.add(
          oracle
            .get(b)!
            .sorted()
            .find((e) => e.playerId === me)!.score,
        );
      }
      if (md) metadata = md;
      for (const p of others.filter(() => rand.randInt(0, 2) === 0)) {
        const v = rand.randInt(1, 40);
        updates.push({ board: L, playerId: p, value: BigInt(v), timestampMs: BigInt(at), alsoBoards: [D, H] });
        for (const b of [L, D, H]) oracle.get(b)!.apply(p, "inc", v, at);
      }
      sent++;
      const res = await c.ingest.submitScores({ updates });
      offsets.push(...res.offsets);
      if (round % 5 === 4) {
        await c.waitApplied(res.offsets);
        applied = sent;
      }
    }
    stop = true;
    await exporter;
    expect(problems.slice(0, 5)).toEqual([]);
    expect(exports).toBeGreaterThan(10);
    await c.waitApplied(offsets);

    const expected = () =>
      views.map((v) => {
        const o = oracle.get(v.board)!;
        const e = o.sorted().find((x) => x.playerId === me)!; // on H: its score; a hidden entry has no rank
        return {
          ...v,
          hidden: v.board === H,
          score: e.score,
          rank: v.board === H ? 0 : e.rank,
          metadata,
        };
      });
    const exact = async (label: string) => {
      const got = await served(() => admin.exportPlayerData({ playerId: me }));
      expect(Number(got.records), `${label}: records`).toBe(sent);
      expect(
        got.entries.map((e) => ({
          board: e.board,
          period: e.period,
          window: e.window,
          hidden: e.hidden,
          score: Number(e.entry!.score),
          rank: Number(e.entry!.rank),
          metadata: e.entry!.metadata,
        })),
        label,
      ).toEqual(expected());
      // each visible entry as GetRank answers it
      for (const e of got.entries.filter((x) => !x.hidden)) {
        const r = await served(() => c.router.getRank({ board: e.board, period: e.period, window: e.window, playerId: me }));
        expect(r.entry, `${label}: ${e.board}~${e.window} as GetRank`).toEqual(e.entry);
      }
    };
    await exact("at rest");
    console.log(`[export] ${exports} exports checked under writes; ${sent} records of ${me}`);

    for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
    await c.waitApplied(offsets);
    await exact("after a rebuild");

    const cli = await run("node", [CLI, "export", "--player", me, "--router", c.services.routerAddress, "--token", TEST_TOKENS.admin], {
      cwd: join(import.meta.dirname, ".."),
    });
    const doc = JSON.parse(cli.stdout) as {
      playerId: string;
      records: number;
      entries: Array<{ board: string; rank?: number; hidden?: boolean }>;
    };
    expect([doc.playerId, doc.records, doc.entries.map((e) => [e.board, e.rank, e.hidden])]).toEqual([
      me,
      sent,
      expected().map((e) => [e.board, e.hidden ? undefined : e.rank, e.hidden ? true : undefined]),
    ]);

    // a player the cluster holds nothing of: an empty answer; a bad id: refused
    const nobody = await served(() => admin.exportPlayerData({ playerId: "ex-nobody" }));
    expect([nobody.records, nobody.entries.length]).toEqual([0n, 0]);
    const bad = await outcome(admin.exportPlayerData({ playerId: "" }));
    expect("code" in bad && bad.code).toBe(status.INVALID_ARGUMENT);
  });
});
