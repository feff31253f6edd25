/**
 * Benchmark "memory": bytes per player of one board in Redis, read by the seeded layouts right
 * after seeding. Method: memory.md.
 */
import type { Benchmark } from "../context.js";
import type { MemoryReading } from "../infra/seeded-layouts.js";
import { count, size } from "../output/format.js";
import type { Table } from "../output/table.js";

export const memoryBenchmark: Benchmark = {
  name: "memory",
  method: "writes/memory.md",
  title: "Memory: bytes per player per board in Redis",
  async run(ctx) {
    for (const players of ctx.plan.sizes) {
      if (ctx.layouts.reading(1, players)) continue;
      const layout = await ctx.layouts.layout(1);
      if (layout.seeded > players) throw new Error(`the one-shard layout already holds ${layout.seeded} players; cannot read memory at ${players}`);
      ctx.say(`${size(players)} players into a fresh redis-server`);
      await ctx.layouts.growTo(layout, players);
    }
    const readings = [...ctx.layouts.readings].sort((a, b) => a.players - b.players || a.shards - b.shards);
    return {
      figures: { readings },
      tables: [memoryTable(readings)],
    };
  },
};

export function memoryTable(readings: readonly MemoryReading[]): Table {
  const mib = (b: number) => count(b / 2 ** 20);
  return {
    title: "Memory: one board in Redis",
    columns: ["players", "redis-servers", "bytes per player (steady)", "bytes per player (as seeded)", "used_memory MiB (board, steady)", "used_memory_rss MiB"],
    rows: readings.map((r) => [
      size(r.players), r.shards === 1 ? "1 (fresh)" : String(r.shards), r.bytesPerPlayer.toFixed(1), r.asSeededBytesPerPlayer.toFixed(1),
      mib(r.usedMemoryBytes - r.emptyUsedMemoryBytes), mib(r.usedMemoryRssBytes),
    ]),
  };
}
