/** An entry of a read as the API answers it (Entry in common.proto): the message itself, every field set. */
import type { Entry } from "@ladder/proto/leaderboard/v1/common_pb";
import type { RankedEntry } from "./queries.js";

const NO_COLUMNS: bigint[] = [];

export function toEntry(e: Pick<RankedEntry, "playerId" | "points" | "rank" | "reachedAtMs" | "metadata" | "tiedRank" | "columns">): Entry {
  return {
    $typeName: "leaderboard.v1.Entry",
    playerId: e.playerId,
    // on a board with columns, score is the first column's value (common.proto)
    score: e.columns ? e.columns[0]! : BigInt(e.points),
    rank: BigInt(e.rank),
    reachedAtMs: BigInt(e.reachedAtMs),
    metadata: e.metadata,
    tiedRank: BigInt(e.tiedRank ?? 0),
    columns: e.columns ?? NO_COLUMNS,
  };
}
