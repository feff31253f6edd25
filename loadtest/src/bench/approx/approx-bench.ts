/**
 * Benchmark "approx": exact against approximate rank on boards with 16 and 255 histogram bounds,
 * on a real cluster: accuracy, Node client costs, h2load rates. Method: approx.md.
 */
import type { DescMessage, MessageInitShape } from "@bufbuild/protobuf";
import { LadderClient } from "@ladder/client";
import { HealthCheckRequestSchema } from "@ladder/proto/grpc/health/v1/health_pb";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { GetApproximateRankRequestSchema, GetRankRequestSchema } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { clusterClients, type ClusterClients } from "../../run/cluster-clients.js";
import { DEFAULT_SCORE_SHAPE } from "../../workload/score-distribution.js";
import { aloneSummary } from "../boards/window-reads.js";
import type { Benchmark, BenchContext } from "../context.js";
import { costProbes, h2loadRun, restRates, settle, timeBlock } from "../batch/cluster-costs.js";
import { distinctPlayers } from "../../workload/player-ids.js";
import type { CostProbes, IdleRates } from "../batch/cost-meter.js";
import { BENCH_SPEC } from "../infra/bench-board.js";
import { grpcFrame, median, requireH2load } from "../infra/h2load.js";
import { startIngestCluster } from "../infra/ingest-cluster.js";
import { seedThroughKafka } from "../infra/seed-cluster.js";
import { approxTables, CALL_LABELS, type AccuracyRow, type ApproxH2Row, type ApproxNodeRow, type CallKind } from "./approx-tables.js";
import { size } from "../output/format.js";
import type { ApproxPlan } from "../plan.js";
import { depthRanks, type RankSample } from "./accuracy.js";
import { playersAt, sampleBoard, type ApproxBoard, type BoardSampled } from "./approx-samples.js";
import { quantileBounds } from "./histogram-bounds.js";

/** Seconds of rest over which the processes' rest rates are read. */
export const QUIET_S = 3;
/** Random stream of the sampled players (far from the batch bench's 700..750). */
const SAMPLE_STREAM = 800;
const CALLS: readonly CallKind[] = ["rank", "approx-score", "approx-player"];
const SERVICE = "/leaderboard.v1.LeaderboardService";
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
    const cluster = await startIngestCluster(ctx, 3);
    const address = cluster.services.routerAddress;
    const reader = clusterClients({
      router: address,
      ingest: cluster.services.ingestAddress,
      connections: 2,
      timeoutMs: 60_000,
      token: undefined,
    });
    const admin = new LadderClient({ router: address, token: cluster.adminToken });
    try {
      for (const b of boards)
        await admin.admin.createBoard({
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

      const h2 = await h2loadRounds(ctx, address, probes, idle[0]!, p, boards, sampledBoards);
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
      reader.close();
      admin.close();
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
interface H2Ask<D extends DescMessage = DescMessage> {
  board?: ApproxBoard;
  call: CallKind | "floor";
  path: string;
  schema: D;
  init: MessageInitShape<D>;
}

/** Every request of round `r`, the health check first, then each board's GetRank and approximate calls about the round's player. */
function roundAsks(r: number, boards: readonly ApproxBoard[], sampledBoards: readonly BoardSampled[]): H2Ask[] {
  const out: H2Ask[] = [{ call: "floor", path: "/grpc.health.v1.Health/Check", schema: HealthCheckRequestSchema, init: {} }];
  boards.forEach((board, i) => {
    const s = sampledBoards[i]!.samples[r % sampledBoards[i]!.samples.length]!;
    out.push(
      { board, call: "rank", path: `${SERVICE}/GetRank`, schema: GetRankRequestSchema, init: { board: board.name, playerId: s.playerId } },
      {
        board,
        call: "approx-score",
        path: `${SERVICE}/GetApproximateRank`,
        schema: GetApproximateRankRequestSchema,
        init: { board: board.name, of: { case: "score", value: BigInt(s.points) } },
      },
      {
        board,
        call: "approx-player",
        path: `${SERVICE}/GetApproximateRank`,
        schema: GetApproximateRankRequestSchema,
        init: { board: board.name, of: { case: "playerId", value: s.playerId } },
      },
    );
  });
  return out;
}

async function h2loadRounds(
  ctx: BenchContext,
  address: string,
  probes: CostProbes,
  idle: IdleRates,
  p: ApproxPlan,
  boards: readonly ApproxBoard[],
  sampledBoards: readonly BoardSampled[],
): Promise<ApproxH2Row[]> {
  const samples = new Map<string, { ask: H2Ask; rounds: ApproxH2Row["rounds"] }>();
  for (let round = 0; round < p.rounds; round++) {
    let floor = NaN;
    const rankRate = new Map<string, number>();
    for (const a of roundAsks(round, boards, sampledBoards)) {
      const key = `${a.board?.name ?? ""} ${a.call}`;
      const r = await h2loadRun(
        ctx.dataDir,
        { address, path: a.path, body: grpcFrame(a.schema, a.init as never), tag: `approx-${round}-${key}` },
        p,
        probes,
        idle,
      );
      if (a.call === "floor") floor = r.rate;
      if (a.call === "rank") rankRate.set(a.board!.name, r.rate);
      const ofRank = a.board ? r.rate / rankRate.get(a.board.name)! : NaN;
      const s = samples.get(key) ?? { ask: a, rounds: [] };
      s.rounds.push({ ...r, ofFloor: r.rate / floor, ofRank });
      samples.set(key, s);
      ctx.say(
        `  round ${round + 1}/${p.rounds}: ${a.board ? `${a.board.bounds.length} bounds, ` : ""}${a.call === "floor" ? "health check" : CALL_LABELS[a.call]} ${Math.round(r.rate)}/s (${((r.rate / floor) * 100).toFixed(0)}% of the floor${a.board ? `, ${ofRank.toFixed(2)}x GetRank` : ""}), router ${r.routerUsPerCall.toFixed(0)} µs/call, others ${r.othersCores} cores`,
      );
    }
  }
  return [...samples.values()].map(({ ask: a, rounds }) => ({
    ...(a.board ? { board: a.board.name, bounds: a.board.bounds.length } : {}),
    call: a.call,
    rounds,
    rate: median(rounds.map((x) => x.rate)),
    ofFloor: median(rounds.map((x) => x.ofFloor)),
    ofRank: median(rounds.map((x) => x.ofRank)),
    meanMs: median(rounds.map((x) => x.meanMs)),
    routerUsPerCall: median(rounds.map((x) => x.routerUsPerCall)),
    redisUsPerCall: median(rounds.map((x) => x.redisUsPerCall)),
  }));
}
