/** An entry of a read as the API answers it (Entry in common.proto). */
import type { RankedEntry } from "./queries.js";

export function toEntry(e: Pick<RankedEntry, "playerId" | "points" | "rank" | "reachedAtMs" | "metadata" | "tiedRank">) {
  return {
    playerId: e.playerId,
    score: BigInt(e.points),
    rank: BigInt(e.rank),
    reachedAtMs: BigInt(e.reachedAtMs),
    metadata: e.metadata,
    tiedRank: BigInt(e.tiedRank ?? 0),
  };
}
