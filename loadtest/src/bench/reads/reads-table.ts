/**
 * The read benchmark's table: one row per size, question and server (the floor first,
 * then the router over 1, 2, 4 shards), with the router's ratios to the floor; and the memory
 * table of the layouts the read benchmark seeded.
 */
import type { Measurement } from "../infra/measure.js";
import type { MemoryReading } from "../infra/seeded-layouts.js";
import type { Question } from "./read-questions.js";
import { cores, count, ms, rate, ratio, size } from "../output/format.js";
import { tableOf, type Table } from "../output/table.js";

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
    tableOf(
      "Reads: router vs the floor (one Redis, one sorted set)",
      sorted.map((r) => ({ ...r, floor: floorOf(r) })),
      [
        ["players", (r) => size(r.players)],
        ["question", (r) => QUESTION_LABEL[r.question]],
        ["served by", (r) => (r.target === "floor" ? "floor: 1 Redis" : `router, ${r.shards} shard${r.shards > 1 ? "s" : ""}`)],
        ["ops/s", (r) => rate(r.m.opsPerSec)],
        ["p50 ms", (r) => ms(r.m.latencyMs.p50)],
        ["p99 ms", (r) => ms(r.m.latencyMs.p99)],
        ["errors", (r) => count(r.m.errors)],
        ["ops/s ÷ floor", (r) => ratio(r.m.opsPerSec, r.floor?.opsPerSec)],
        ["p50 ÷ floor", (r) => ratio(r.m.latencyMs.p50, r.floor?.latencyMs.p50)],
        [
          "cores: router / Redis / client / machine / others",
          (r) => cores(r.m.cpuCores, ["router", "redis", "client", "machine", "others"]),
        ],
      ],
    ),
  ];
}

function compareTuples(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

export function memoryTable(readings: readonly MemoryReading[]): Table {
  const mib = (b: number) => count(b / 2 ** 20);
  return tableOf("Memory: one board in Redis", readings, [
    ["players", (r) => size(r.players)],
    ["redis-servers", (r) => (r.shards === 1 ? "1 (fresh)" : String(r.shards))],
    ["bytes per player (steady)", (r) => r.bytesPerPlayer.toFixed(1)],
    ["bytes per player (as seeded)", (r) => r.asSeededBytesPerPlayer.toFixed(1)],
    ["used_memory MiB (board, steady)", (r) => mib(r.usedMemoryBytes - r.emptyUsedMemoryBytes)],
    ["used_memory_rss MiB", (r) => mib(r.usedMemoryRssBytes)],
  ]);
}
