/**
 * The three read questions, asked two ways.
 *
 *   router  GetRank / GetTop(limit) / GetAround(radius) over gRPC: the router fans out
 *           read-only Lua scripts to every shard's Redis and merges (router/src/queries.ts).
 *   floor   the same questions straight to ONE Redis holding every player in one sorted
 *           set, with the same sort keys (so the same order, ties included): ZRANK for
 *           rank; ZRANGE 0 limit-1 WITHSCORES for top; ZRANK, then ZRANGE r-radius
 *           r+radius WITHSCORES for around. One round trip (two for around), no
 *           heartbeat check, no merge, no gRPC: the least a Redis-backed board can cost.
 *
 * Each answer is reduced to the same shape (1-based ranks, player ids) so the two can be
 * compared for agreement before they are timed.
 */
import type { Redis } from "ioredis";
import type { ClusterClients } from "../../run/cluster-clients.js";

export const QUESTIONS = ["rank", "top", "around"] as const;
export type Question = (typeof QUESTIONS)[number];

export interface ReadAnswers {
  /** 1-based rank of the player. */
  rank(playerId: string): Promise<number>;
  /** Player ids of the top `limit`. */
  top(): Promise<string[]>;
  /** Player ids of the window around the player, in rank order. */
  around(playerId: string): Promise<string[]>;
}

export interface QuestionShape {
  topLimit: number;
  aroundRadius: number;
}

export function routerAnswers(clients: ClusterClients, board: string, q: QuestionShape): ReadAnswers {
  const router = () => clients.router();
  return {
    rank: async (playerId) => Number((await router().getRank({ board, playerId })).entry!.rank),
    top: async () => (await router().getTop({ board, limit: q.topLimit, offset: 0n })).entries.map((e) => e.playerId),
    around: async (playerId) => (await router().getAround({ board, playerId, radius: q.aroundRadius })).entries.map((e) => e.playerId),
  };
}

export function floorAnswers(redis: Redis, key: string, q: QuestionShape): ReadAnswers {
  const zrank = async (playerId: string) => {
    const r = await redis.zrank(key, playerId);
    if (r === null) throw Object.assign(new Error(`${playerId} is not on the board`), { code: "NOT_FOUND" });
    return r;
  };
  const ids = (flat: string[]) => flat.filter((_, i) => i % 2 === 0);
  return {
    rank: async (playerId) => (await zrank(playerId)) + 1,
    top: async () => ids(await redis.zrange(key, "0", String(q.topLimit - 1), "WITHSCORES")),
    around: async (playerId) => {
      const r = await zrank(playerId);
      return ids(await redis.zrange(key, String(Math.max(0, r - q.aroundRadius)), String(r + q.aroundRadius), "WITHSCORES"));
    },
  };
}

/** One request of `question` for a player chosen by `nextPlayer` (rank, around). */
export function asker(answers: ReadAnswers, question: Question, nextPlayer: () => string): () => Promise<unknown> {
  if (question === "top") return () => answers.top();
  if (question === "rank") return () => answers.rank(nextPlayer());
  return () => answers.around(nextPlayer());
}
