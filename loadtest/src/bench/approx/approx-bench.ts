/**
 * Benchmark "approx": exact against approximate rank on boards with 16 and 255 histogram bounds,
 * on a real cluster: accuracy, Node client costs, h2load rates. Method: approx.md.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { GetApproximateRankRequestSchema, GetRankRequestSchema } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import type { ClusterClients } from "../../run/cluster-clients.js";
import { DEFAULT_SCORE_SHAPE } from "../../workload/score-distribution.js";
import { aloneSummary } from "../boards/window-reads.js";
import type { Benchmark } from "../context.js";
import { costProbes, h2loadRounds, medianRatio, medians, restRates, settle, timeBlock } from "../batch/cluster-costs.js";
import { distinctPlayers } from "../../workload/player-ids.js";
import type { IdleRates } from "../batch/cost-meter.js";
import { BENCH_SPEC } from "../infra/bench-board.js";
import { HEALTH_CHECK, lb, requireH2load, type GrpcRequest } from "../infra/h2load.js";
import { startIngestCluster } from "../infra/ingest-cluster.js";
import { seedThroughKafka } from "../infra/seed-cluster.js";
import { approxTables, CALL_LABELS, type AccuracyRow, type ApproxH2Row, type ApproxNodeRow, type CallKind } from "./approx-tables.js";
import { size } from "../output/format.js";
import { depthRanks, type RankSample } from "./accuracy.js";
import { playersAt, sampleBoard, type ApproxBoard, type BoardSampled } from "./approx-samples.js";
import { quantileBounds } from "./histogram-bounds.js";

/** Seconds of rest over which the processes' rest rates are read. */
export const QUIET_S = 3;
/** Random stream of the sampled players (far from the batch bench's 700..750). */
const SAMPLE_STREAM = 800;
const CALLS: readonly CallKind[] = ["rank", "approx-score", "approx-player"];
/** The figures kept of each sampled player (by player_id). */
const SAMPLE_COLUMNS = ["player", "exact rank", "points", "rank_at_least", "rank_at_most", "rank_estimate"];

export interface ApproxRun {
  h2loadVersion: string;
  boards: ApproxBoard[];
  seeded: string[];
  idle: IdleRates[];
  accuracy: AccuracyRow[];
  node: ApproxNodeRow[];
  h2: ApproxH2Row[];
}

export const approxBenchmark: Benchmark = {
  name: "approx",
  method: "approx/approx.md",
  title: "Exact vs approximate rank (score histograms), on a real cluster",
  async run(ctx) {
    const h2loadVersion = await requireH2load();
    const p = ctx.plan.approx;
    const boards: ApproxBoard[] = p.boundCounts.map((n) => ({
      name: `approx-h${n}`,
      bounds: quantileBounds(DEFAULT_SCORE_SHAPE, n, BENCH_SPEC),
    }));
    boards.forEach((b, i) => {
      if (b.bounds.length !== p.boundCounts[i])
        throw new Error(`${p.boundCounts[i]} bounds asked, the score law gives ${b.bounds.length} distinct ones`);
    });
    ctx.say(
      `starting a 3-shard cluster; ${size(p.players)} players through Kafka on each of ${boards.map((b) => `"${b.name}" (${b.bounds.length} bounds)`).join(" and ")}`,
    );
    const cluster = await startIngestCluster(ctx, { shards: 3 });
    const { reader } = cluster;
    try {
      for (const b of boards)
        await cluster.admin.createBoard({
          board: { name: b.name, defaultOp: Operation.SET, rules: { histogramBounds: b.bounds.map(BigInt) } },
        });
      const seeded: string[] = [];
      for (const b of boards) seeded.push(await seedThroughKafka(ctx, cluster, b.name, p.players));

      const sampled = distinctPlayers(ctx.plan.seed, SAMPLE_STREAM, p.checkedPlayers, p.players);
      const deep = await playersAt(reader, boards[0]!.name, depthRanks(p.players));
      const sampledBoards: BoardSampled[] = [];
      for (const b of boards) sampledBoards.push(await sampleBoard(reader, b, sampled, deep));
      const accuracy: AccuracyRow[] = boards.map((b, i) => ({
        board: b.name,
        bounds: b.bounds.length,
        accuracy: sampledBoards[i]!.accuracy,
        depth: sampledBoards[i]!.depth,
      }));
      for (const a of accuracy)
        ctx.say(
          `  ${a.bounds} bounds: exact rank within the bounds ${a.accuracy.held} of ${a.accuracy.n}, bound width p50 ${a.accuracy.width.p50} ranks (max ${a.accuracy.width.max}), estimate error p50 ${a.accuracy.absError.p50} ranks (max ${a.accuracy.absError.max})`,
        );

      // the Node client: one call at a time, its costs
      const probes = costProbes(cluster);
      await settle(probes);
      const idle = [await restRates(probes, QUIET_S)];
      const node: ApproxNodeRow[] = [];
      for (const [i, b] of boards.entries()) {
        for (const call of CALLS) {
          const samples = sampledBoards[i]!.samples;
          const one = (rep: number) => ask(reader, b.name, call, samples[rep % samples.length]!);
          const { ms: msEach, cost } = await timeBlock(probes, idle[0]!, p.nodeCalls, one);
          node.push({ board: b.name, bounds: b.bounds.length, call, calls: p.nodeCalls, latencyMs: aloneSummary(msEach), cost });
          ctx.say(
            `  ${b.bounds.length} bounds, ${CALL_LABELS[call]}: p50 ${aloneSummary(msEach).p50} ms, router ${(cost.routerMs * 1000).toFixed(0)} µs, Redis ${(cost.redisMs * 1000).toFixed(0)} µs, ${cost.redisScripts} scripts per call; others ${cost.othersCores} cores`,
          );
        }
      }
      idle.push(await restRates(probes, QUIET_S));

      const address = cluster.services.routerAddress;
      const runs = await h2loadRounds(ctx, p.rounds, idle[0]!, (round) =>
        roundAsks(round, boards, sampledBoards).map((a) => ({
          key: keyOf(a),
          address,
          probes,
          path: a.path,
          body: a.body,
          shape: p,
        })),
      );
      const h2 = roundAsks(0, boards, sampledBoards).map(
        (a): ApproxH2Row => ({
          ...(a.board ? { board: a.board.name, bounds: a.board.bounds.length } : {}),
          call: a.call,
          ...medians(runs.get(keyOf(a))!),
          ofFloor: medianRatio(runs.get(keyOf(a))!, runs.get(keyOf({ call: "floor" }))),
          ofRank: a.board ? medianRatio(runs.get(keyOf(a))!, runs.get(keyOf({ board: a.board, call: "rank" }))) : NaN,
        }),
      );
      const run: ApproxRun = { h2loadVersion, boards, seeded, idle, accuracy, node, h2 };
      // every sampled answer, so that the accuracy figures can be worked out again from the JSON
      const sampleAnswers = boards.map((b, i) => ({
        board: b.name,
        columns: SAMPLE_COLUMNS,
        rows: sampledBoards[i]!.samples.map((x) => [
          x.playerId,
          x.exact,
          x.points,
          x.byPlayer.atLeast,
          x.byPlayer.atMost,
          x.byPlayer.estimate,
        ]),
      }));
      return { figures: { plan: p, ...run, sampleAnswers }, tables: approxTables(run, p) };
    } finally {
      await cluster.stop();
    }
  },
};

/** One call of a kind about a sampled player. */
async function ask(c: ClusterClients, board: string, call: CallKind, s: RankSample): Promise<unknown> {
  if (call === "rank") return c.router().getRank({ board, playerId: s.playerId });
  const of =
    call === "approx-score" ? { case: "score" as const, value: BigInt(s.points) } : { case: "playerId" as const, value: s.playerId };
  return c.router().getApproximateRank({ board, of });
}

/** One request h2load sends. */
interface H2Ask extends GrpcRequest {
  board?: ApproxBoard;
  call: CallKind | "floor";
}

const keyOf = (a: Pick<H2Ask, "board" | "call">) => `${a.board ? `${a.board.bounds.length} bounds, ` : ""}${a.call}`;

/** Every request of round `r`, the health check first, then each board's GetRank and approximate calls about the round's player. */
function roundAsks(r: number, boards: readonly ApproxBoard[], sampledBoards: readonly BoardSampled[]): H2Ask[] {
  const out: H2Ask[] = [{ call: "floor", ...HEALTH_CHECK }];
  boards.forEach((board, i) => {
    const s = sampledBoards[i]!.samples[r % sampledBoards[i]!.samples.length]!;
    const approx = (of: MessageInitShape<typeof GetApproximateRankRequestSchema>["of"]) =>
      lb("GetApproximateRank", GetApproximateRankRequestSchema, { board: board.name, of });
    out.push(
      { board, call: "rank", ...lb("GetRank", GetRankRequestSchema, { board: board.name, playerId: s.playerId }) },
      { board, call: "approx-score", ...approx({ case: "score", value: BigInt(s.points) }) },
      { board, call: "approx-player", ...approx({ case: "playerId", value: s.playerId }) },
    );
  });
  return out;
}
