/**
 * Before anything is timed, the router and the floor must give the same answers: the
 * same top page, and for sampled players the same rank and the same window around them.
 * A benchmark of wrong answers would measure nothing.
 */
import type { ReadAnswers } from "./read-questions.js";

export interface Agreement {
  checkedPlayers: number;
  /** Descriptions of every difference found (empty when they agree). */
  differences: string[];
}

export async function compareAnswers(router: ReadAnswers, floor: ReadAnswers, players: readonly string[]): Promise<Agreement> {
  const differences: string[] = [];
  const same = (what: string, a: unknown, b: unknown) => {
    if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`${what}: router ${JSON.stringify(a)}, floor ${JSON.stringify(b)}`);
  };
  same("top", await router.top(), await floor.top());
  for (const p of players) {
    same(`rank of ${p}`, await router.rank(p), await floor.rank(p));
    same(`around ${p}`, await router.around(p), await floor.around(p));
  }
  return { checkedPlayers: players.length, differences };
}
