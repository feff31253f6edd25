/**
 * The approx benchmark's samples, asked of the cluster with the Node client before anything is
 * timed: each sampled player by GetRank and by GetApproximateRank (by player_id and by its
 * points), and so are the players at fixed depths of the board (found with GetEntryAtRank on the
 * first board; both boards hold the same players with the same scores and rules, so a player's
 * exact rank is that depth on each).
 */
import type { GetApproximateRankResponse } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import type { ClusterClients } from "../../run/cluster-clients.js";
import { inFlight } from "../batch/node-runs.js";
import { accuracy, type Accuracy, type ApproxAnswer, type RankSample } from "./accuracy.js";

/** A board of the benchmark: its name and histogram bounds. */
export interface ApproxBoard {
  name: string;
  bounds: number[];
}

/** Calls in flight at once while sampling. */
const SAMPLE_IN_FLIGHT = 8;

const answerOf = (r: GetApproximateRankResponse): ApproxAnswer => ({
  estimate: Number(r.rankEstimate),
  atLeast: Number(r.rankAtLeast),
  atMost: Number(r.rankAtMost),
});

/** One player asked every way on one board. */
async function sampleOf(c: ClusterClients, board: string, playerId: string): Promise<RankSample> {
  const rank = await c.router().getRank({ board, playerId });
  const points = Number(rank.entry!.score);
  const [byPlayer, byScore] = await Promise.all([
    c.router().getApproximateRank({ board, of: { case: "playerId", value: playerId } }),
    c.router().getApproximateRank({ board, of: { case: "score", value: BigInt(points) } }),
  ]);
  return { playerId, exact: Number(rank.entry!.rank), points, byPlayer: answerOf(byPlayer), byScore: answerOf(byScore) };
}

/** The players at `ranks` of `board` (GetEntryAtRank). */
export async function playersAt(
  c: ClusterClients,
  board: string,
  ranks: readonly number[],
): Promise<Array<{ rank: number; playerId: string }>> {
  return inFlight(ranks.length, SAMPLE_IN_FLIGHT, async (i) => {
    const r = await c.router().getEntryAtRank({ board, at: { case: "rank", value: BigInt(ranks[i]!) } });
    return { rank: ranks[i]!, playerId: r.entry!.playerId };
  });
}

export interface BoardSampled {
  /** The sampled players, in the order asked. */
  samples: RankSample[];
  /** The players at the fixed depths. */
  depth: RankSample[];
  /** Of the sample and the depths, by player_id. */
  accuracy: Accuracy;
}

/** The sample and the depths of one board, and their accuracy. */
export async function sampleBoard(
  c: ClusterClients,
  board: ApproxBoard,
  sampled: readonly string[],
  deep: ReadonlyArray<{ rank: number; playerId: string }>,
): Promise<BoardSampled> {
  const samples = await inFlight(sampled.length, SAMPLE_IN_FLIGHT, (i) => sampleOf(c, board.name, sampled[i]!));
  const depth = await inFlight(deep.length, SAMPLE_IN_FLIGHT, (i) => sampleOf(c, board.name, deep[i]!.playerId));
  return { samples, depth, accuracy: accuracy(samples.map((s) => ({ exact: s.exact, answer: s.byPlayer }))) };
}
