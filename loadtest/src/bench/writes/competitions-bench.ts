/**
 * Benchmark "competitions": what a write to a league, and to the source of a team board, costs the
 * whole cluster against the same write to a plain board. Method: competitions.md.
 */
import type { LadderClient } from "@ladder/client";
import { Operation, PeriodKind } from "@ladder/proto/leaderboard/v1/common_pb";
import { seededCount } from "../../seed/apply-watch.js";
import { playerId } from "../../workload/player-ids.js";
import { rngFor } from "../../workload/rng.js";
import type { Benchmark, BenchContext } from "../context.js";
import type { IngestCluster } from "../infra/ingest-cluster.js";
import { tableOf } from "../output/table.js";
import type { ClusterCpuFigures } from "./cluster-cpu.js";
import { measureWriteLoop, REST_SECONDS, startBenchCluster, type BenchCluster } from "./write-loop.js";

/** How long the team deriver may take to carry the last writes to the teams. */
const DERIVE_WAIT_MS = 120_000;

type Variant = "plain" | "league" | "team source";
const BOARDS: Record<Variant, string> = { plain: "bench-plain", league: "bench-league", "team source": "bench-solo" };
const TEAM_BOARD = "bench-clans";

interface VariantFigures {
  variant: Variant;
  ackedPerSec: number;
  drainMs: number;
  /** The team source: from the last write acknowledged until every team held its members' points. */
  deriveMs?: number;
  clusterCpu: ClusterCpuFigures;
}

export const competitionsBenchmark: Benchmark = {
  name: "competitions",
  method: "writes/competitions.md",
  title: "A league and a team board's source against a plain board: whole-cluster CPU per update",
  async run(ctx) {
    const p = ctx.plan.competitions;
    const b = await startBenchCluster(ctx, "ladder-bench-competitions");
    try {
      await defineBoards(ctx, b.cluster, b.admin);
      const players = Array.from({ length: p.players }, (_, i) => playerId(i));
      await prepare(ctx, b.cluster, players);
      const variants: VariantFigures[] = [];
      for (const variant of ["plain", "league", "team source"] as const) variants.push(await measureVariant(ctx, b, players, variant));
      return { figures: { plan: p, variants }, tables: [competitionsTable(variants)] };
    } finally {
      await b.close();
    }
  },
};

async function defineBoards(ctx: BenchContext, cluster: IngestCluster, admin: LadderClient): Promise<void> {
  const p = ctx.plan.competitions;
  const inc = { defaultOp: Operation.INCREMENT, rules: { maxPoints: 1_000_000_000n } };
  await admin.admin.createBoard({ board: { name: BOARDS.plain, ...inc } });
  await admin.admin.createBoard({ board: { name: BOARDS["team source"], ...inc } });
  await admin.admin.createBoard({
    board: {
      name: BOARDS.league,
      defaultOp: Operation.INCREMENT,
      rules: { maxPoints: 1_000_000_000n, period: PeriodKind.WEEKLY, keepPeriods: 1, league: { cohortSize: p.cohort } },
    },
  });
  await admin.admin.createBoard({
    board: { name: TEAM_BOARD, rules: { maxPoints: 1_000_000_000_000n, team: { source: BOARDS["team source"] } } },
  });
  for (const from = Date.now(); ; await new Promise((r) => setTimeout(r, 100))) {
    const known = await cluster.writer
      .ingest()
      .setTeam({ board: TEAM_BOARD, playerId: "probe", teamId: "" })
      .then(
        () => true,
        () => false,
      );
    if (known) return;
    if (Date.now() - from > 30_000) throw new Error("ingest did not learn the bench's boards within 30 s");
  }
}

/** Every player placed in the league's cohorts (its first write) and a member of a team, before anything is measured. */
async function prepare(ctx: BenchContext, cluster: IngestCluster, players: readonly string[]): Promise<void> {
  const p = ctx.plan.competitions;
  ctx.say(`placing ${players.length.toLocaleString("en-US")} players in the league's cohorts of ${p.cohort} and in ${p.teams} teams`);
  const CHUNK = 500;
  for (let i = 0; i < players.length; i += CHUNK) {
    const chunk = players.slice(i, i + CHUNK);
    await Promise.all([
      cluster.writer.ingest().submitScores({ updates: chunk.map((playerId) => ({ board: BOARDS.league, playerId, value: 1n })) }),
      ...chunk.map((playerId, j) => cluster.writer.ingest().setTeam({ board: TEAM_BOARD, playerId, teamId: `team-${(i + j) % p.teams}` })),
    ]);
  }
}

async function measureVariant(ctx: BenchContext, b: BenchCluster, players: readonly string[], variant: Variant): Promise<VariantFigures> {
  const p = ctx.plan.competitions;
  const board = BOARDS[variant];
  const rng = rngFor(ctx.plan.seed, variant.length);
  ctx.say(
    `${variant} (${board}): the cluster at rest over ${REST_SECONDS} s, then SubmitScores of ${p.batch} INCREMENTs, ${p.concurrency} in flight`,
  );
  let deriveMs: number | undefined;
  const start = await b.client.endOffsetsOnce(b.cluster.topic);
  const figures = await measureWriteLoop(b, {
    plan: p,
    batch: p.batch,
    updates: () =>
      Array.from({ length: p.batch }, () => ({
        board,
        playerId: players[rng.nextInt(players.length)]!,
        value: BigInt(1 + rng.nextInt(100)),
      })),
    ...(variant === "team source"
      ? {
          after: async (loadEnd: number) => {
            deriveMs = await untilDerived(b.cluster, loadEnd);
          },
        }
      : {}),
  });
  const end = await b.client.endOffsetsOnce(b.cluster.topic);
  ctx.say(`  ${seededCount(start, end).toLocaleString("en-US")} records in the log`);
  return { variant, ...figures, ...(deriveMs !== undefined ? { deriveMs } : {}) };
}

/**
 * Waits until the deriver carried every member's points to the teams: the teams' points together
 * equal the source board's points together (all players are members), both read from the router.
 * Its time from the end of the load, ms.
 */
async function untilDerived(cluster: IngestCluster, loadEnd: number): Promise<number> {
  const router = cluster.writer.router();
  const sumOf = async (board: string) => {
    let total = 0n;
    let cursor = "";
    do {
      const page = await router.getTop({ board, limit: 1000, ...(cursor ? { cursor } : {}) });
      for (const e of page.entries) total += e.score;
      cursor = page.entries.length ? page.nextCursor : "";
    } while (cursor !== "");
    return total;
  };
  for (const from = performance.now(); ; await new Promise((r) => setTimeout(r, 100))) {
    const [teams, members] = await Promise.all([sumOf(TEAM_BOARD), sumOf(BOARDS["team source"])]);
    if (teams === members) return Math.round(performance.now() - loadEnd);
    if (performance.now() - from > DERIVE_WAIT_MS)
      throw new Error(`the teams hold ${teams} points, their members ${members}, ${DERIVE_WAIT_MS} ms after the load`);
  }
}

function competitionsTable(variants: readonly VariantFigures[]) {
  const kinds = [...new Set(variants.flatMap((v) => v.clusterCpu.kinds.map((k) => k.kind)))];
  const plain = variants.find((v) => v.variant === "plain")!.clusterCpu.totalUsPerUpdate;
  return tableOf(
    "Whole-cluster CPU per acknowledged INCREMENT (µs), from the first write until every update was applied (and, for the team source, carried to the teams); rest rates taken out",
    variants,
    [
      ["board", (v) => v.variant],
      ["updates/s acknowledged", (v) => v.ackedPerSec.toLocaleString("en-US")],
      ...kinds.map(
        (kind) => [kind, (v: VariantFigures) => (v.clusterCpu.kinds.find((k) => k.kind === kind)?.usPerUpdate ?? NaN).toFixed(1)] as const,
      ),
      ["whole cluster", (v) => v.clusterCpu.totalUsPerUpdate.toFixed(1)],
      ["÷ plain", (v) => `${(v.clusterCpu.totalUsPerUpdate / plain).toFixed(2)}x`],
      ["teams caught up after", (v) => (v.deriveMs === undefined ? "—" : `${v.deriveMs} ms`)],
    ],
  );
}
