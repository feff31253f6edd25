/**
 * The reads: LeaderboardService calls, printed as tables (format.ts). Each takes the values of
 * its table's flags (tables/reads.ts), parsed and checked.
 */
import type { ServiceSet } from "@ladder/client";
import { entriesTable } from "./format.js";
import type { Values } from "./flags.js";
import { RANK_MODE } from "./enums.js";
import type { APPROX, AROUND, AT, COUNT, HISTOGRAM, PERIODS, RANK, RANKS, STANDING, TOP } from "./tables/reads.js";
import type { WHERE } from "./tables/shared.js";

/** A read's view, period and window (`--view`, `--period`, `--window`; "" when not given). */
const where = (o: Values<typeof WHERE>) => ({ view: o.view ?? "", period: o.period ?? "", window: o.window ?? "" });

export async function top(c: ServiceSet, o: Values<typeof TOP.flags>): Promise<string> {
  const res = await c.leaderboard.getTop({
    board: o.board,
    limit: o.limit,
    offset: o.offset,
    cursor: o.cursor ?? "",
    rankMode: RANK_MODE[o.mode],
    ...where(o),
  });
  const cursors = [
    res.nextCursor && `next page: --cursor ${res.nextCursor}`,
    res.previousCursor && `previous page: --cursor ${res.previousCursor}`,
  ].filter(Boolean);
  return [`${entriesTable(res.entries)}\n(${res.total} players)`, ...cursors].join("\n");
}

export async function rank(c: ServiceSet, o: Values<typeof RANK.flags>): Promise<string> {
  const res = await c.leaderboard.getRank({ board: o.board, playerId: o.player, rankMode: RANK_MODE[o.mode], ...where(o) });
  return `${entriesTable(res.entry ? [res.entry] : [])}\n(${res.total} players)`;
}

/** The players' global ranks and their ranks among themselves. */
export async function ranks(c: ServiceSet, o: Values<typeof RANKS.flags>): Promise<string> {
  const res = await c.leaderboard.getRanks({ board: o.board, playerIds: o.players, rankMode: RANK_MODE[o.mode], ...where(o) });
  const among = res.entries.map(
    (e) =>
      `${String(e.rankAmong).padStart(4)}. ${e.entry!.playerId}  rank ${e.entry!.rank}${e.entry!.tiedRank ? ` (tied ${e.entry!.tiedRank})` : ""}  score ${e.entry!.score}`,
  );
  return [...among, ...(res.missing.length ? [`no score: ${res.missing.join(", ")}`] : []), `(${res.total} players)`].join("\n");
}

/** The player on several boards at once (`--boards global,daily@2026-11-30,daily~7d`). */
export async function standing(c: ServiceSet, o: Values<typeof STANDING.flags>): Promise<string> {
  const boards = o.boards.map((ref) => {
    const m = /^([^@~]+)(?:@([^~]+))?(?:~(.+))?$/.exec(ref)!; // the table's pattern
    return { board: m[1]!, period: m[2] ?? "", window: m[3] ?? "" };
  });
  const res = await c.leaderboard.getStanding({ playerId: o.player, boards, rankMode: RANK_MODE[o.mode] });
  return res.standings
    .map((s) => {
      const name = `${s.board!.board}${s.board!.period ? `@${s.board!.period}` : ""}${s.board!.window ? `~${s.board!.window}` : ""}`;
      if (!s.found) return `${name}: no score (${s.total} players)`;
      return `${name}: rank ${s.entry!.rank}${s.entry!.tiedRank ? ` (tied ${s.entry!.tiedRank})` : ""} of ${s.total}, score ${s.entry!.score}, top ${s.topPercent.toFixed(2)}%`;
    })
    .join("\n");
}

/** The entry at a global rank, or at the top P percent. */
export async function at(c: ServiceSet, o: Values<typeof AT.flags>): Promise<string> {
  const target = o.rank !== undefined ? { case: "rank" as const, value: o.rank } : { case: "topPercent" as const, value: o.top! };
  const res = await c.leaderboard.getEntryAtRank({ board: o.board, at: target, ...where(o) });
  return `${entriesTable(res.entry ? [res.entry] : [])}\n(${res.total} players)`;
}

/** The board's score histogram, summed over the shards. */
export async function histogram(c: ServiceSet, o: Values<typeof HISTOGRAM.flags>): Promise<string> {
  const res = await c.leaderboard.getHistogram({ board: o.board, ...where(o) });
  const widest = Math.max(1, ...res.buckets.map((b) => Number(b.count)));
  return [
    ...res.buckets.map(
      (b) =>
        `${`${b.minScore}..${b.maxScore}`.padStart(24)}  ${String(b.count).padStart(9)}  ${"#".repeat(Math.round((40 * Number(b.count)) / widest))}`,
    ),
    `(${res.total} players)`,
  ].join("\n");
}

/** The rank from the histogram alone, with its bounds. */
export async function approx(c: ServiceSet, o: Values<typeof APPROX.flags>): Promise<string> {
  const of = o.player !== undefined ? { case: "playerId" as const, value: o.player } : { case: "score" as const, value: o.score! };
  const r = await c.leaderboard.getApproximateRank({ board: o.board, of, ...where(o) });
  return `score ${r.score}: rank about ${r.rankEstimate} (exactly between ${r.rankAtLeast} and ${r.rankAtMost}) of ${r.total}; bucket ${r.bucket!.minScore}..${r.bucket!.maxScore} holds ${r.bucket!.count}`;
}

/** Entries with points in a range, and the board's size. */
export async function count(c: ServiceSet, o: Values<typeof COUNT.flags>): Promise<string> {
  const res = await c.leaderboard.getCount({
    board: o.board,
    ...where(o),
    ...(o.min !== undefined ? { minScore: o.min } : {}),
    ...(o.max !== undefined ? { maxScore: o.max } : {}),
  });
  return `${res.count} of ${res.total} players`;
}

export async function around(c: ServiceSet, o: Values<typeof AROUND.flags>): Promise<string> {
  const res = await c.leaderboard.getAround({ board: o.board, playerId: o.player, radius: o.radius, ...where(o) });
  return `${entriesTable(res.entries, o.player)}\n(${res.total} players)`;
}

/** The periods a board keeps now, the current one first. */
export async function periods(c: ServiceSet, o: Values<typeof PERIODS.flags>): Promise<string> {
  const res = await c.leaderboard.listPeriods({ board: o.board });
  if (res.periods.length === 0) return "an all-time board: no periods";
  return res.periods
    .map(
      (p, i) =>
        `${p.id}  ${new Date(Number(p.startMs)).toISOString()} .. ${new Date(Number(p.endMs)).toISOString()}  expires ${new Date(Number(p.expireAtMs)).toISOString()}${i === 0 ? "  (current)" : ""}`,
    )
    .join("\n");
}
