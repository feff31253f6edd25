/**
 * The seeder's closing report for the terminal: each phase's records, time and rate, and
 * what the shards' Redis holds and uses.
 */
import type { SeedResult } from "./seed-run.js";

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits });

export function seedSummary(r: SeedResult): string {
  const lines = [""];
  for (const p of r.phases)
    lines.push(
      `${p.name.padEnd(22)} ${fmt(p.records).padStart(13)} records in ${fmt(p.seconds, 1).padStart(7)} s = ${fmt(p.perSec).padStart(9)} /s`,
    );
  if (!r.complete)
    lines.push(
      r.options.wait
        ? "NOT COMPLETE: the shard nodes stopped making progress; see their logs"
        : "not waited for the shard nodes to apply (--no-wait)",
    );
  const members = r.memoryAfter.reduce((a, s) => a + s.boardMembers, 0);
  const used = r.memoryAfter.reduce((a, s) => a + s.usedMemoryBytes, 0);
  lines.push(
    `board "${r.options.board}": ${fmt(members)} players over ${r.memoryAfter.length} shards (${r.memoryAfter.map((s) => `${s.shard} ${fmt(s.boardMembers)}`).join(", ")})`,
    `redis used memory: ${fmt(used / 2 ** 20, 1)} MiB in all${r.redisBytesPerMember === undefined ? "" : `, ${r.redisBytesPerMember} bytes per player added`}; seeder peak RSS ${r.seederPeakRssMb} MiB`,
  );
  return lines.join("\n");
}
