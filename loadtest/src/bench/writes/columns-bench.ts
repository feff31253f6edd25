/**
 * Benchmark "columns": what a write and a read of a board with three sort columns (docs/columns.md)
 * cost the whole cluster against the same calls on a one-column board. Method: columns.md.
 */
import type { LadderClient } from "@ladder/client";
import { Operation, SortOrder } from "@ladder/proto/leaderboard/v1/common_pb";
import { playerId } from "../../workload/player-ids.js";
import { rngFor, type Rng } from "../../workload/rng.js";
import type { Benchmark, BenchContext } from "../context.js";
import type { IngestCluster } from "../infra/ingest-cluster.js";
import { tableOf } from "../output/table.js";
import type { ClusterCpuFigures } from "./cluster-cpu.js";
import { measureReadLoop, measureWriteLoop, REST_SECONDS, startBenchCluster, untilWritten, type BenchCluster } from "./write-loop.js";

type Variant = "one column" | "three columns";
const BOARDS: Record<Variant, string> = { "one column": "bench-one", "three columns": "bench-three" };
const VARIANTS = ["one column", "three columns"] as const;
type Call = "SubmitScores (INCREMENT)" | "GetRank" | "GetAround (radius 5)" | "GetTop (50 at offset < 1000)";
const READS = ["GetRank", "GetAround (radius 5)", "GetTop (50 at offset < 1000)"] as const;

interface CallFigures {
  variant: Variant;
  call: Call;
  /** Updates (SubmitScores) or calls (reads) a second, acknowledged or answered. */
  perSec: number;
  clusterCpu: ClusterCpuFigures;
}

export const columnsBenchmark: Benchmark = {
  name: "columns",
  method: "writes/columns.md",
  title: "A board with three 64-bit columns against a one-column board: whole-cluster CPU per write and per read",
  async run(ctx) {
    const p = ctx.plan.columns;
    const b = await startBenchCluster(ctx, "ladder-bench-columns");
    try {
      await defineBoards(b.cluster, b.admin);
      const players = Array.from({ length: p.players }, (_, i) => playerId(i));
      const figures: CallFigures[] = [];
      for (const variant of VARIANTS) {
        await seed(ctx, b, players, variant);
        figures.push(await measureWrites(ctx, b, players, variant));
        for (const call of READS) figures.push(await measureReads(ctx, b, players, variant, call));
      }
      return { figures: { plan: p, calls: figures }, tables: [columnsTable(figures)] };
    } finally {
      await b.close();
    }
  },
};

async function defineBoards(cluster: IngestCluster, admin: LadderClient): Promise<void> {
  await admin.admin.createBoard({
    board: { name: BOARDS["one column"], defaultOp: Operation.INCREMENT, rules: { maxPoints: 1_000_000_000n } },
  });
  await admin.admin.createBoard({
    board: {
      name: BOARDS["three columns"],
      defaultOp: Operation.INCREMENT,
      rules: {
        columns: [
          { name: "points", order: SortOrder.HIGHER_IS_BETTER },
          { name: "time", order: SortOrder.LOWER_IS_BETTER },
          { name: "kills", order: SortOrder.HIGHER_IS_BETTER },
        ],
      },
    },
  });
  for (const from = Date.now(); ; await new Promise((r) => setTimeout(r, 100))) {
    const known = await cluster.writer
      .ingest()
      .submitScores({ updates: [{ board: BOARDS["three columns"], playerId: "probe", columns: [0n, 0n, 0n] }] })
      .then(
        () => true,
        () => false,
      );
    if (known) return;
    if (Date.now() - from > 30_000) throw new Error("ingest did not learn the bench's boards within 30 s");
  }
}

/** An update of `variant`'s board: the points, or the three columns' deltas. */
function update(variant: Variant, player: string, rng: Rng) {
  const board = BOARDS[variant];
  if (variant === "one column") return { board, playerId: player, value: BigInt(1 + rng.nextInt(100)) };
  return { board, playerId: player, columns: [BigInt(1 + rng.nextInt(100)), BigInt(rng.nextInt(1000) - 500), BigInt(rng.nextInt(3))] };
}

/** Every player written once, so the reads find a full board; applied before anything is measured. */
async function seed(ctx: BenchContext, b: BenchCluster, players: readonly string[], variant: Variant): Promise<void> {
  ctx.say(`${variant}: writing ${players.length.toLocaleString("en-US")} players once`);
  const rng = rngFor(ctx.plan.seed, 7);
  const start = await b.client.endOffsetsOnce(b.cluster.topic);
  const CHUNK = 1000;
  for (let i = 0; i < players.length; i += CHUNK * 4)
    await Promise.all(
      [0, 1, 2, 3].map((k) => {
        const chunk = players.slice(i + k * CHUNK, i + (k + 1) * CHUNK);
        return chunk.length ? b.cluster.writer.ingest().submitScores({ updates: chunk.map((p) => update(variant, p, rng)) }) : undefined;
      }),
    );
  await untilWritten(b, start);
}

async function measureWrites(ctx: BenchContext, b: BenchCluster, players: readonly string[], variant: Variant): Promise<CallFigures> {
  const p = ctx.plan.columns;
  const rng = rngFor(ctx.plan.seed, variant.length);
  ctx.say(
    `${variant}: the cluster at rest over ${REST_SECONDS} s, then SubmitScores of ${p.batch} INCREMENTs, ${p.write.concurrency} in flight`,
  );
  const m = await measureWriteLoop(b, {
    plan: p.write,
    batch: p.batch,
    updates: () => Array.from({ length: p.batch }, () => update(variant, players[rng.nextInt(players.length)]!, rng)),
  });
  return { variant, call: "SubmitScores (INCREMENT)", perSec: m.ackedPerSec, clusterCpu: m.clusterCpu };
}

async function measureReads(
  ctx: BenchContext,
  b: BenchCluster,
  players: readonly string[],
  variant: Variant,
  call: (typeof READS)[number],
): Promise<CallFigures> {
  const p = ctx.plan.columns;
  const board = BOARDS[variant];
  const rng = rngFor(ctx.plan.seed, call.length + variant.length);
  const router = b.cluster.writer.router();
  ctx.say(`${variant}: ${call}, ${p.read.concurrency} in flight`);
  const m = await measureReadLoop(b, {
    plan: p.read,
    send: () => {
      const player = players[rng.nextInt(players.length)]!;
      if (call === "GetRank") return router.getRank({ board, playerId: player });
      if (call === "GetAround (radius 5)") return router.getAround({ board, playerId: player, radius: 5 });
      return router.getTop({ board, limit: 50, offset: BigInt(rng.nextInt(1000)) });
    },
  });
  return { variant, call, ...m };
}

function columnsTable(figures: readonly CallFigures[]) {
  const kinds = [...new Set(figures.flatMap((v) => v.clusterCpu.kinds.map((k) => k.kind)))];
  const one = (call: Call) => figures.find((f) => f.variant === "one column" && f.call === call)!.clusterCpu.totalUsPerUpdate;
  return tableOf(
    "Whole-cluster CPU per acknowledged update (SubmitScores: from the first write until every update was applied) or per answered read (µs); rest rates taken out",
    figures,
    [
      ["call", (f) => f.call],
      ["board", (f) => f.variant],
      ["per second", (f) => f.perSec.toLocaleString("en-US")],
      ...kinds.map(
        (kind) => [kind, (f: CallFigures) => (f.clusterCpu.kinds.find((k) => k.kind === kind)?.usPerUpdate ?? NaN).toFixed(1)] as const,
      ),
      ["whole cluster", (f) => f.clusterCpu.totalUsPerUpdate.toFixed(1)],
      ["÷ one column", (f) => `${(f.clusterCpu.totalUsPerUpdate / one(f.call)).toFixed(2)}x`],
    ],
  );
}
