/**
 * The approx benchmark's checks, asked of the cluster with the Node client before anything is
 * measured (what each compares: accuracy.ts). A board's histogram is read and counted bucket by
 * bucket; then each sampled player is asked every way (GetRank, GetApproximateRank by player and
 * by score, GetCount above and at its points), and so are the players at fixed depths of the board
 * (found with GetEntryAtRank on the first board; both boards hold the same players with the same
 * scores and the same rules, so a player's exact rank is that depth on each). A wrong answer fails
 * the benchmark through `fail`.
 */
import { pointsBuckets } from "@ladder/model/histogram";
import type { GetApproximateRankResponse } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import type { ClusterClients } from "../../run/cluster-clients.js";
import { BENCH_SPEC } from "../infra/bench-board.js";
import { inFlight } from "../batch/node-runs.js";
import { accuracy, histogramProblems, sampleProblems, type Accuracy, type ApproxAnswer, type Bucket, type RankSample } from "./accuracy.js";

/** A board of the benchmark: its name and histogram bounds. */
export interface ApproxBoard {
  name: string;
  bounds: number[];
}

/** Calls of the checks in flight at once. */
const CHECK_IN_FLIGHT = 8;

export type Fail = (what: string, problems: string[]) => void;

export function answerOf(r: GetApproximateRankResponse): ApproxAnswer {
  const b = r.bucket;
  return {
    estimate: Number(r.rankEstimate),
    atLeast: Number(r.rankAtLeast),
    atMost: Number(r.rankAtMost),
    total: Number(r.total),
    score: Number(r.score),
    bucket: { min: Number(b?.minScore ?? NaN), max: Number(b?.maxScore ?? NaN), count: Number(b?.count ?? NaN) },
  };
}

/** GetHistogram of the board, checked against its bounds, its total, the players seeded and GetCount of every bucket. */
export async function checkedHistogram(c: ClusterClients, board: ApproxBoard, players: number, fail: Fail): Promise<Bucket[]> {
  const h = await c.router().getHistogram({ board: board.name });
  const buckets = h.buckets.map((b) => ({ min: Number(b.minScore), max: Number(b.maxScore), count: Number(b.count) }));
  const expected = pointsBuckets(BENCH_SPEC, board.bounds);
  const counted = await inFlight(expected.length, CHECK_IN_FLIGHT, async (i) => {
    const e = expected[i]!;
    return Number((await c.router().getCount({ board: board.name, minScore: BigInt(e.min), maxScore: BigInt(e.max) })).count);
  });
  fail(
    `GetHistogram of "${board.name}": ${expected.length} buckets of its ${board.bounds.length} bounds, summing to the total = ${players} players seeded, each = GetCount over its points`,
    histogramProblems(buckets, Number(h.total), expected, players, counted),
  );
  return buckets;
}

/** One player asked every way on one board. */
export async function sampleOf(c: ClusterClients, board: string, playerId: string): Promise<RankSample> {
  const rank = await c.router().getRank({ board, playerId });
  const points = Number(rank.entry!.score);
  const [byPlayer, byScore, above, atOrAbove] = await Promise.all([
    c
      .router()
      .getApproximateRank({ board, of: { case: "playerId", value: playerId } })
      .then(answerOf),
    c
      .router()
      .getApproximateRank({ board, of: { case: "score", value: BigInt(points) } })
      .then(answerOf),
    c
      .router()
      .getCount({ board, minScore: BigInt(points + 1) })
      .then((r) => Number(r.count)),
    c
      .router()
      .getCount({ board, minScore: BigInt(points) })
      .then((r) => Number(r.count)),
  ]);
  return { playerId, exact: Number(rank.entry!.rank), points, byPlayer, byScore, above, atOrAbove };
}

/** The players at `ranks` of `board` (GetEntryAtRank). */
export async function playersAt(
  c: ClusterClients,
  board: string,
  ranks: readonly number[],
): Promise<Array<{ rank: number; playerId: string }>> {
  return inFlight(ranks.length, CHECK_IN_FLIGHT, async (i) => {
    const r = await c.router().getEntryAtRank({ board, at: { case: "rank", value: BigInt(ranks[i]!) } });
    return { rank: ranks[i]!, playerId: r.entry!.playerId };
  });
}

export interface BoardChecked {
  histogram: Bucket[];
  /** The sampled players, in the order asked. */
  samples: RankSample[];
  /** The players at the fixed depths. */
  depth: RankSample[];
  /** Of the sample, by player_id. */
  accuracy: Accuracy;
}

/** Every check of one board; its answers, for the accuracy figures and for the measured calls. */
export async function checkBoard(
  c: ClusterClients,
  board: ApproxBoard,
  sampled: readonly string[],
  deep: ReadonlyArray<{ rank: number; playerId: string }>,
  players: number,
  fail: Fail,
): Promise<BoardChecked> {
  const histogram = await checkedHistogram(c, board, players, fail);
  const samples = await inFlight(sampled.length, CHECK_IN_FLIGHT, (i) => sampleOf(c, board.name, sampled[i]!));
  fail(
    `"${board.name}": ${samples.length} sampled players, GetApproximateRank by player_id and by its points = the histogram's and hold GetRank's exact rank`,
    samples.flatMap((s) => sampleProblems(s, histogram, players)),
  );
  const depth = await inFlight(deep.length, CHECK_IN_FLIGHT, (i) => sampleOf(c, board.name, deep[i]!.playerId));
  const problems = depth.flatMap((s, i) => [
    ...sampleProblems(s, histogram, players),
    ...(s.exact === deep[i]!.rank ? [] : [`${s.playerId}: GetRank ${s.exact}, GetEntryAtRank found it at ${deep[i]!.rank}`]),
  ]);
  fail(
    `"${board.name}": the players at ranks ${deep.map((d) => d.rank).join(", ")} (GetEntryAtRank) are there by GetRank, and their approximate ranks hold`,
    problems,
  );
  return { histogram, samples, depth, accuracy: accuracy(samples.map((s) => ({ exact: s.exact, answer: s.byPlayer }))) };
}
