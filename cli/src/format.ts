/**
 * Plain-text tables of board entries for the terminal.
 */
import type { Entry } from "@ladder/proto/leaderboard/v1/common_pb";

export function entriesTable(entries: readonly Entry[], highlight?: string): string {
  if (entries.length === 0) return "(no entries)";
  const withMeta = entries.some((e) => e.metadata !== "");
  const withTies = entries.some((e) => e.tiedRank !== 0n);
  const rows = entries.map((e) => [
    e.playerId === highlight ? `> ${e.rank}` : `  ${e.rank}`,
    e.playerId,
    // a board with columns: its values, in the board's order
    e.columns.length ? e.columns.join(" ") : e.score.toString(),
    new Date(Number(e.reachedAtMs)).toISOString(),
    ...(withTies ? [e.tiedRank.toString()] : []),
    ...(withMeta ? [e.metadata] : []),
  ]);
  const header = [
    "  rank",
    "player",
    entries.some((e) => e.columns.length) ? "values" : "score",
    "reached at",
    ...(withTies ? ["tied"] : []),
    ...(withMeta ? ["metadata"] : []),
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ");
  return [line(header), ...rows.map(line)].join("\n");
}
