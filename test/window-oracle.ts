// Windows of a board with periods, brute force, written from their definition in
// proto/leaderboard/v1/common.proto (WindowRule, WindowCombine), not from model/src/windows.ts: the
// window of n periods ending in period P holds, for every player with a score in any of P and the
// n - 1 periods before it, SUM: the sum of those scores, reached when the last of them was; BEST: the
// best of them by the board's order. Periods are put in order by walking time an hour at a time with
// the period oracle's naming function (every period of these boards lasts at least an hour).
import { rulesOrder, type Rules, type RulesEntry } from "./rules-oracle.js";

export type Combine = "sum" | "best";

/** The ids of consecutive periods from the one holding `fromMs` to the one holding `toMs`, in order. */
export function periodSequence(idOf: (ms: number) => string, fromMs: number, toMs: number): string[] {
  const out: string[] = [];
  for (let t = Math.floor(fromMs / 3_600_000) * 3_600_000; t <= toMs; t += 3_600_000) {
    const id = idOf(t);
    if (out[out.length - 1] !== id) out.push(id);
  }
  return out;
}

/** The rules a window's entries are checked with: SUM widens the points range to any sum of 1 to n parts. */
export function windowRules(rules: Rules, combine: Combine, n: number): Rules {
  if (combine === "best") return rules;
  return { ...rules, minPoints: Math.min(rules.minPoints, n * rules.minPoints), maxPoints: Math.max(rules.maxPoints, n * rules.maxPoints) };
}

/** The window's entries, ranked, from the entries of its periods (oldest first; undefined: a period with no entries). */
export function windowEntries(rules: Rules, combine: Combine, periods: ReadonlyArray<readonly RulesEntry[] | undefined>): RulesEntry[] {
  const combined = new Map<string, { score: number; reachedAtMs: number }>();
  for (const entries of periods) {
    for (const e of entries ?? []) {
      const cur = combined.get(e.playerId);
      if (!cur) combined.set(e.playerId, { score: e.score, reachedAtMs: e.reachedAtMs });
      else if (combine === "sum")
        combined.set(e.playerId, { score: cur.score + e.score, reachedAtMs: Math.max(cur.reachedAtMs, e.reachedAtMs) });
      else if (rulesOrder(rules, e, { playerId: e.playerId, ...cur }) < 0)
        combined.set(e.playerId, { score: e.score, reachedAtMs: e.reachedAtMs });
    }
  }
  return [...combined]
    .map(([playerId, e]) => ({ playerId, ...e }))
    .sort((a, b) => rulesOrder(rules, a, b))
    .map((e, i) => ({ ...e, rank: i + 1 }));
}
