/**
 * The boards benchmark's tables: reads of a period and of its two windows (under load) and the
 * apply cost of a record by the boards it writes.
 */
import type { ApplyFigures } from "./apply-cost.js";
import type { KeyRead, ReadQuestion } from "./window-reads.js";
import { count, ms, rate, ratio, size } from "../output/format.js";
import { tableOf, type Table } from "../output/table.js";

export type ReadTarget = "period" | "sum7" | "best7";

export interface BoardsReadRow {
  players: number;
  target: ReadTarget;
  /** Members of the key read. */
  entries: number;
  read: KeyRead;
}

export interface BoardsWriteRow {
  players: number;
  /** "single" (the plain daily board), "also" (with `also` more boards) or "windowed". */
  write: "single" | "also" | "windowed";
  also: number;
  /** Figures, or why the write was not measured at this size. */
  figures?: ApplyFigures;
  skipped?: string;
}

const TARGET_LABEL: Record<ReadTarget, string> = {
  period: "the period (day 7)",
  sum7: "SUM window sum7 ending day 7",
  best7: "BEST window best7 ending day 7",
};
const QUESTION_LABEL: Record<ReadQuestion, string> = { top: "top 10", rank: "rank", around: "around ±5" };

export function boardsReadTable(rows: readonly BoardsReadRow[], concurrency: number): Table {
  const periodOf = (r: BoardsReadRow) =>
    rows.find((x) => x.players === r.players && x.target === "period" && x.read.question === r.read.question);
  const order = (r: BoardsReadRow) =>
    r.players * 100 + ["top", "rank", "around"].indexOf(r.read.question) * 10 + ["period", "sum7", "best7"].indexOf(r.target);
  return tableOf(
    "Boards: reads of a period and of its windows (one shard, the router's shard reader)",
    [...rows].sort((a, b) => order(a) - order(b)),
    [
      ["players", (r) => size(r.players)],
      ["question", (r) => QUESTION_LABEL[r.read.question]],
      ["key read", (r) => TARGET_LABEL[r.target]],
      ["entries", (r) => count(r.entries)],
      [`${concurrency} in flight: ops/s`, (r) => rate(r.read.loop?.opsPerSec ?? NaN)],
      ["p50 ms", (r) => ms(r.read.loop?.latencyMs.p50 ?? NaN)],
      ["p99 ms", (r) => ms(r.read.loop?.latencyMs.p99 ?? NaN)],
      ["errors", (r) => (r.read.loop ? count(r.read.loop.errors) : "—")],
      ["ops/s ÷ the period's", (r) => (r.target === "period" ? "—" : ratio(r.read.loop?.opsPerSec, periodOf(r)?.read.loop?.opsPerSec))],
    ],
  );
}

export function writeLabel(r: Pick<BoardsWriteRow, "write" | "also">): string {
  if (r.write === "single") return "single board (daily, no windows)";
  if (r.write === "windowed") return "daily board with sum7 + best7";
  return `single board + ${r.also} also_board${r.also > 1 ? "s" : ""}`;
}

export function boardsWriteTable(rows: readonly BoardsWriteRow[]): Table {
  const single = (r: BoardsWriteRow) => rows.find((x) => x.players === r.players && x.write === "single")?.figures;
  const us = (x: number | undefined) => (x === undefined ? "—" : String(Number(x.toPrecision(3))));
  const vsSingle = (r: BoardsWriteRow, x: (f: ApplyFigures) => number) =>
    r.write === "single" ? "1x" : ratio(r.figures && x(r.figures), single(r) && x(single(r)!));
  const measured = (cell: (f: ApplyFigures) => string) => (r: BoardsWriteRow) => (r.figures ? cell(r.figures) : "—");
  return tableOf("Boards: apply cost of a record (one shard: prepareEvent + ShardWriter.apply, the shard node's apply batch)", rows, [
    ["existing players", (r) => size(r.players)],
    ["write", (r) => writeLabel(r)],
    ["boards per record", (r) => String(1 + r.also)],
    ["records/s", measured((f) => count(f.recordsPerSec))],
    ["÷ single", (r) => (r.figures ? vsSingle(r, (f) => f.recordsPerSec) : "—")],
    ["Redis CPU µs/record (INFO cpu)", measured((f) => us(f.redisCpuUsPerRecord))],
    ["÷ single", (r) => (r.figures ? vsSingle(r, (f) => f.redisCpuUsPerRecord) : "—")],
    ["apply script µs/record (commandstats)", measured((f) => us(f.scriptUsPerRecord))],
    ["bench CPU µs/record", measured((f) => us(f.benchCpuUsPerRecord))],
    ["records timed", (r) => (r.figures ? count(r.figures.records) : `not measured: ${r.skipped ?? "?"}`)],
  ]);
}
