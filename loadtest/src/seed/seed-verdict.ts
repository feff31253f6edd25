/**
 * Whether a seed did what it says, checked where a reader looks: after the records are
 * applied, the router's GetCount of the board (with the token the load tool would use) must
 * answer at least the players seeded. A seed fails (exit code 1) when the shard nodes stopped
 * applying, when the router refuses or cannot be reached, or when it sees fewer players.
 *
 * A shard that has just applied a long backlog serves reads again only once its node has seen it
 * current (its next heartbeats: docs/guarantees.md), and answers UNAVAILABLE with "retry" until
 * then: the count is asked again on UNAVAILABLE for up to COUNT_PATIENCE_MS, as a reader would.
 */
import { LadderClient } from "@ladder/client";
import { statusName } from "../run/cluster-clients.js";

/** What the router answered: the board's players, or the error's code and message. */
export type RouterCount = { total: number } | { error: string };

/** How long the count is asked again while the router answers UNAVAILABLE. */
export const COUNT_PATIENCE_MS = 60_000;

export async function routerCount(
  router: string,
  token: string | undefined,
  board: string,
  patienceMs = COUNT_PATIENCE_MS,
): Promise<RouterCount> {
  const client = new LadderClient({ router, ingest: router, token, timeoutMs: 10_000, retry: false });
  const until = Date.now() + patienceMs;
  try {
    for (;;) {
      try {
        const answer = await client.leaderboard.getCount({ board });
        return { total: Number(answer.total) };
      } catch (err) {
        const status = statusName(err);
        if (status !== "UNAVAILABLE" || Date.now() >= until) return { error: `${status}: ${(err as Error).message}` };
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  } finally {
    client.close();
  }
}

export interface SeedVerdictInput {
  players: number;
  board: string;
  router: string;
  /** Whether the seeder waited for the shard nodes to apply everything, and whether they did. */
  waited: boolean;
  complete: boolean;
  /** The router's answer; undefined when not asked (not waited). */
  count: RouterCount | undefined;
  /** The shards the seeder follows: the cluster's placement when it began (LADDER_SHARDS when the cluster had none). */
  shards: readonly string[];
  /** That placement's epoch; undefined: LADDER_SHARDS. */
  placementEpoch: number | undefined;
}

/** Why the seed failed, one line each; empty when it did what it says. */
export function seedProblems(s: SeedVerdictInput): string[] {
  const fmt = (n: number) => n.toLocaleString("en-US");
  if (s.waited && !s.complete) {
    // every player counted where the seeder could not see them applied: the cluster's shards are not the ones it followed
    if (s.count && "total" in s.count && s.count.total >= s.players)
      return [
        s.placementEpoch === undefined
          ? `the router counts every player (${fmt(s.count.total)} on board "${s.board}"), but the shards this seeder followed (${s.shards.join(", ")}, from LADDER_SHARDS: the cluster had no placement when it began) did not apply every partition: the cluster has other shards`
          : `the router counts every player (${fmt(s.count.total)} on board "${s.board}"), but the shards this seeder followed (${s.shards.join(", ")}: the cluster's placement of epoch ${s.placementEpoch} when it began) did not apply every partition: the placement changed during the load (a shard added or removed)`,
      ];
    return ["the shard nodes stopped applying the records before all were applied; see their logs"];
  }
  if (s.count === undefined) return [];
  if ("error" in s.count) return [`the router (${s.router}) did not count board "${s.board}": ${s.count.error}`];
  if (s.count.total < s.players)
    return [`the router counts ${fmt(s.count.total)} players on board "${s.board}", fewer than the ${fmt(s.players)} seeded`];
  return [];
}
