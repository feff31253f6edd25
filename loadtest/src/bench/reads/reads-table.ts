/**
 * The read benchmark's table: one row per size, question and server (the floor first,
 * then the router over 1, 2, 4 shards), with the router's ratios to the floor; and the memory
 * table of the layouts the read benchmark seeded.
 */
import type { Measurement } from "../infra/measure.js";
import type { MemoryReading } from "../infra/seeded-layouts.js";
import type { Question } from "./read-questions.js";
import { cores, count, ms, rate, ratio, size } from "../output/format.js";
import type { Table } from "../output/table.js";

export interface ReadRow {
  players: number;
  target: "floor" | "router";
  shards: number;
  question: Question;
  m: Measurement;
}

const QUESTION_LABEL: Record<Question, string> = { rank: "exact rank", top: "top 10", around: "around ±5" };

export function readsTables(rows: readonly ReadRow[]): Table[] {
  const floorOf = (r: ReadRow) => rows.find((f) => f.target === "floor" && f.players === r.players && f.question === r.question)?.m;
  const order = (r: ReadRow) => [r.players, ["rank", "top", "around"].indexOf(r.question), r.target === "floor" ? 0 : r.shards];
  const sorted = [...rows].sort((a, b) => compareTuples(order(a), order(b)));
  return [
    {
      title: "Reads: router vs the floor (one Redis, one sorted set)",
      columns: [
        "players",
        "question",
        "served by",
        "ops/s",
        "p50 ms",
        "p99 ms",
        "errors",
        "ops/s ÷ floor",
        "p50 ÷ floor",
        "cores: router / Redis / client / machine / others",
      ],
      rows: sorted.map((r) => {
        const floor = floorOf(r);
        return [
          size(r.players),
          QUESTION_LABEL[r.question],
          r.target === "floor" ? "floor: 1 Redis" : `router, ${r.shards} shard${r.shards > 1 ? "s" : ""}`,
          rate(r.m.opsPerSec),
          ms(r.m.latencyMs.p50),
          ms(r.m.latencyMs.p99),
          count(r.m.errors),
          ratio(r.m.opsPerSec, floor?.opsPerSec),
          ratio(r.m.latencyMs.p50, floor?.latencyMs.p50),
          cores(r.m.cpuCores, ["router", "redis", "client", "machine", "others"]),
        ];
      }),
    },
  ];
}

function compareTuples(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

export function memoryTable(readings: readonly MemoryReading[]): Table {
  const mib = (b: number) => count(b / 2 ** 20);
  return {
    title: "Memory: one board in Redis",
    columns: [
      "players",
      "redis-servers",
      "bytes per player (steady)",
      "bytes per player (as seeded)",
      "used_memory MiB (board, steady)",
      "used_memory_rss MiB",
    ],
    rows: readings.map((r) => [
      size(r.players),
      r.shards === 1 ? "1 (fresh)" : String(r.shards),
      r.bytesPerPlayer.toFixed(1),
      r.asSeededBytesPerPlayer.toFixed(1),
      mib(r.usedMemoryBytes - r.emptyUsedMemoryBytes),
      mib(r.usedMemoryRssBytes),
    ]),
  };
}
