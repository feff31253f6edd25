/**
 * The boards benchmark's tables: reads of a period and of its two windows (first call, alone,
 * under load), the apply cost of a record by the boards it writes, and the memory of a daily
 * board with and without its windows.
 */
import type { ApplyFigures } from "./apply-cost.js";
import type { KeyRead, ReadQuestion } from "./window-reads.js";
import { count, ms, rate, ratio, size } from "../output/format.js";
import type { Table } from "../output/table.js";

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

export interface BoardsMemory {
  players: number;
  days: number;
  periodKeys: number;
  windowKeys: number;
  periodEntries: number;
  windowEntries: number;
  /** used_memory deltas, bytes: the period keys over the empty server, the window keys over the period keys. */
  periodBytes: number;
  windowBytes: number;
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
  return {
    title: "Boards: reads of a period and of its windows (one shard, the router's shard reader)",
    columns: [
      "players",
      "question",
      "key read",
      "entries",
      "first call ms",
      "alone p50 ms",
      "alone p99 ms",
      `${concurrency} in flight: ops/s`,
      "p50 ms",
      "p99 ms",
      "errors",
      "ops/s ÷ the period's",
    ],
    rows: [...rows]
      .sort((a, b) => order(a) - order(b))
      .map((r) => [
        size(r.players),
        QUESTION_LABEL[r.read.question],
        TARGET_LABEL[r.target],
        count(r.entries),
        ms(r.read.firstMs),
        ms(r.read.alone?.latencyMs.p50 ?? NaN),
        ms(r.read.alone?.latencyMs.p99 ?? NaN),
        rate(r.read.loop?.opsPerSec ?? NaN),
        ms(r.read.loop?.latencyMs.p50 ?? NaN),
        ms(r.read.loop?.latencyMs.p99 ?? NaN),
        r.read.loop ? count(r.read.loop.errors) : "—",
        r.target === "period" ? "—" : ratio(r.read.loop?.opsPerSec, periodOf(r)?.read.loop?.opsPerSec),
      ]),
  };
}

export function writeLabel(r: Pick<BoardsWriteRow, "write" | "also">): string {
  if (r.write === "single") return "single board (daily, no windows)";
  if (r.write === "windowed") return "daily board with sum7 + best7";
  return `single board + ${r.also} also_board${r.also > 1 ? "s" : ""}`;
}

export function boardsWriteTable(rows: readonly BoardsWriteRow[]): Table {
  const single = (r: BoardsWriteRow) => rows.find((x) => x.players === r.players && x.write === "single")?.figures;
  const us = (x: number | undefined) => (x === undefined ? "—" : String(Number(x.toPrecision(3))));
  return {
    title: "Boards: apply cost of a record (one shard: prepareEvent + ShardWriter.apply, the shard node's apply batch)",
    columns: [
      "existing players",
      "write",
      "boards per record",
      "records/s",
      "÷ single",
      "Redis CPU µs/record (INFO cpu)",
      "÷ single",
      "apply script µs/record (commandstats)",
      "bench CPU µs/record",
      "records timed",
    ],
    rows: rows.map((r) => {
      const f = r.figures;
      const s = single(r);
      if (!f)
        return [size(r.players), writeLabel(r), String(1 + r.also), "—", "—", "—", "—", "—", "—", `not measured: ${r.skipped ?? "?"}`];
      return [
        size(r.players),
        writeLabel(r),
        String(1 + r.also),
        count(f.recordsPerSec),
        r.write === "single" ? "1x" : ratio(f.recordsPerSec, s?.recordsPerSec),
        us(f.redisCpuUsPerRecord),
        r.write === "single" ? "1x" : ratio(f.redisCpuUsPerRecord, s?.redisCpuUsPerRecord),
        us(f.scriptUsPerRecord),
        us(f.benchCpuUsPerRecord),
        count(f.records),
      ];
    }),
  };
}

export function boardsMemoryTable(m: BoardsMemory): Table {
  const perPlayer = (b: number) => (b / m.players).toFixed(1);
  const perEntry = (b: number, n: number) => (n ? (b / n).toFixed(1) : "—");
  const mib = (b: number) => count(b / 2 ** 20);
  const both = m.periodBytes + m.windowBytes;
  return {
    title: `Boards: memory of a daily board, players written on each of ${m.days} days (used_memory deltas, one redis-server)`,
    columns: ["players", "what", "keys", "entries", "MiB", "bytes per player", "bytes per entry", "× the board alone"],
    rows: [
      [
        size(m.players),
        `the board alone: ${m.periodKeys} daily keys`,
        String(m.periodKeys),
        count(m.periodEntries),
        mib(m.periodBytes),
        perPlayer(m.periodBytes),
        perEntry(m.periodBytes, m.periodEntries),
        "1x",
      ],
      [
        size(m.players),
        "its windows sum7 + best7 (keys ending in days 1 .. 13)",
        String(m.windowKeys),
        count(m.windowEntries),
        mib(m.windowBytes),
        perPlayer(m.windowBytes),
        perEntry(m.windowBytes, m.windowEntries),
        ratio(m.windowBytes, m.periodBytes),
      ],
      [
        size(m.players),
        "the board with its windows",
        String(m.periodKeys + m.windowKeys),
        count(m.periodEntries + m.windowEntries),
        mib(both),
        perPlayer(both),
        perEntry(both, m.periodEntries + m.windowEntries),
        ratio(both, m.periodBytes),
      ],
    ],
  };
}
