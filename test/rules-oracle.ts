// A brute-force model of defined boards (AdminService.CreateBoard): sort order, tie rule, points
// range, resolution and the four operations, written from their definitions in proto/ (common.proto,
// admin.proto), not from the code under test. Updates are applied in acknowledgement order, which is
// each player's order in the log (a player's records share a partition).

export interface Rules {
  lowerIsBetter: boolean;
  tie: "earliest" | "latest" | "id";
  minPoints: number;
  maxPoints: number;
  resolutionMs: number;
  epochMs: number;
}

export type Op = "set" | "inc" | "dec" | "best";

export interface RulesEntry {
  playerId: string;
  score: number;
  /** What the answer's reached_at_ms must be: the time rounded down to the resolution, 0 on a player-id-only board. */
  reachedAtMs: number;
  rank: number;
}

/** Negative when `a` ranks ahead of `b` on a board with these rules. */
export function rulesOrder(rules: Rules, a: Omit<RulesEntry, "rank">, b: Omit<RulesEntry, "rank">): number {
  if (a.score !== b.score) return a.score < b.score === rules.lowerIsBetter ? -1 : 1;
  if (rules.tie === "earliest" && a.reachedAtMs !== b.reachedAtMs) return a.reachedAtMs < b.reachedAtMs ? -1 : 1;
  if (rules.tie === "latest" && a.reachedAtMs !== b.reachedAtMs) return a.reachedAtMs > b.reachedAtMs ? -1 : 1;
  return Buffer.compare(Buffer.from(a.playerId, "utf8"), Buffer.from(b.playerId, "utf8"));
}

export class RulesOracle {
  private readonly entries = new Map<string, { score: number; reachedAtMs: number }>();

  constructor(readonly rules: Rules) {}

  apply(playerId: string, op: Op, value: number, timestampMs: number): void {
    const r = this.rules;
    const cur = this.entries.get(playerId);
    let score: number;
    if (!cur) score = op === "dec" ? -value : value;
    else if (op === "set") score = value;
    else if (op === "inc") score = cur.score + value;
    else if (op === "dec") score = cur.score - value;
    else score = r.lowerIsBetter ? Math.min(cur.score, value) : Math.max(cur.score, value);
    score = Math.min(r.maxPoints, Math.max(r.minPoints, score));
    if (cur && cur.score === score) return; // same points: reached earlier, the time stays
    const reachedAtMs = r.tie === "id" ? 0 : r.epochMs + Math.floor((timestampMs - r.epochMs) / r.resolutionMs) * r.resolutionMs;
    this.entries.set(playerId, { score, reachedAtMs });
  }

  /** The player leaves the board (ScoreUpdate.leave_board). */
  remove(playerId: string): void {
    this.entries.delete(playerId);
  }

  sorted(): RulesEntry[] {
    return [...this.entries]
      .map(([playerId, e]) => ({ playerId, ...e }))
      .sort((a, b) => rulesOrder(this.rules, a, b))
      .map((e, i) => ({ ...e, rank: i + 1 }));
  }
}

/** What a page of consecutive entries must satisfy while the board changes: see oracle.ts's pageProblems, under these rules. */
export function rulesPageProblems(rules: Rules, entries: readonly RulesEntry[], total: number, firstRank?: number): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    if (i === 0 && firstRank !== undefined && e.rank !== firstRank) problems.push(`first rank ${e.rank}, expected ${firstRank}`);
    if (i > 0 && e.rank !== entries[i - 1]!.rank + 1) problems.push(`rank ${e.rank} follows rank ${entries[i - 1]!.rank}`);
    if (e.rank < 1 || e.rank > total) problems.push(`rank ${e.rank} outside 1..${total}`);
    if (seen.has(e.playerId)) problems.push(`${e.playerId} twice`);
    seen.add(e.playerId);
    if (e.score < rules.minPoints || e.score > rules.maxPoints) problems.push(`${e.playerId} at ${e.score}, outside the board's range`);
    if (i > 0 && rulesOrder(rules, entries[i - 1]!, e) >= 0)
      problems.push(`${entries[i - 1]!.playerId} listed ahead of ${e.playerId} out of order`);
  });
  return problems;
}
