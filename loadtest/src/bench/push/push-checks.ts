/**
 * What the push bench checks (a wrong answer fails it): a watched player's message against
 * GetRank of the same player, and a top watcher's message against GetTop, asked while nothing
 * writes (the board at rest, every acknowledged write applied and the streams quiet), so that
 * both describe the same board.
 */
import { status, type LadderClient } from "@ladder/client";
import { inFlight } from "../batch/node-runs.js";
import type { PlayerView, TopView } from "./watchers.js";

type Router = LadderClient["leaderboard"];

/** What a message showed, or what GetRank answered: score (undefined: no entry), rank, board size. */
export interface Standing {
  score: number | undefined;
  rank: number;
  total: number;
}

/** How `seen` (a watcher's message) differs from `truth` (GetRank), or undefined when equal. */
export function standingProblem(player: string, seen: Standing, truth: Standing): string | undefined {
  if (seen.score === truth.score && seen.rank === truth.rank && seen.total === truth.total) return undefined;
  const show = (s: Standing) => `${s.score === undefined ? "no entry" : `score ${s.score} rank ${s.rank}`} of ${s.total}`;
  return `${player}: its stream shows ${show(seen)}, GetRank ${show(truth)}`;
}

/** GetRank of `player` as a Standing (NOT_FOUND: no entry). */
export async function rankOf(router: Router, board: string, player: string): Promise<Standing> {
  try {
    const r = await router.getRank({ board, playerId: player }, { timeoutMs: 30_000 });
    return { score: Number(r.entry!.score), rank: Number(r.entry!.rank), total: Number(r.total) };
  } catch (err) {
    if ((err as { code?: number }).code === status.NOT_FOUND) return { score: undefined, rank: 0, total: NaN };
    throw err;
  }
}

/** Every view's last message against GetRank (`parallel` in flight); the problems found. */
export async function checkViews(router: () => Router, board: string, views: readonly PlayerView[], parallel: number): Promise<string[]> {
  const problems: string[] = [];
  await inFlight(views.length, parallel, async (i) => {
    const v = views[i]!;
    const truth = await rankOf(router(), board, v.player);
    if (truth.score === undefined) truth.total = v.total; // NOT_FOUND carries no size
    const p = standingProblem(v.player, { score: v.score, rank: v.rank, total: v.total }, truth);
    if (p) problems.push(p);
  });
  return problems;
}

/** Every top watcher's last message against GetTop of the same limit. */
export async function checkTops(router: Router, board: string, limit: number, tops: readonly TopView[]): Promise<string[]> {
  if (tops.length === 0) return [];
  const page = await router.getTop({ board, limit }, { timeoutMs: 30_000 });
  const want = page.entries.map((e) => `${e.playerId} ${e.score} ${e.rank}`);
  const problems: string[] = [];
  tops.forEach((t, i) => {
    if (t.entries.join("|") !== want.join("|") || t.total !== Number(page.total))
      problems.push(
        `top watcher ${i}: its stream shows [${t.entries.slice(0, 3).join(", ")}, …] of ${t.total}, GetTop [${want.slice(0, 3).join(", ")}, …] of ${page.total}`,
      );
  });
  return problems;
}
