/**
 * Seeds a running cluster's board as a user would: `npm run seed` (the seeder's Kafka path:
 * ScoreEvent records into the cluster's score topic, applied by its shard nodes) as a child
 * process with the cluster's settings, waiting until the shard nodes applied everything.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { builtEntry } from "@ladder/deploy/built-entry";
import type { BenchContext } from "../context.js";

const run = promisify(execFile);

/** Seeds players 0 .. players-1 of the bench's population onto `board`; returns the seeder's summary line. */
export async function seedThroughKafka(ctx: BenchContext, env: Readonly<Record<string, string>>, board: string, players: number): Promise<string> {
  const { stdout } = await run(process.execPath, [builtEntry("loadtest/src/seed/main.ts"), "--players", String(players), "--board", board, "--via", "kafka", "--seed", String(ctx.plan.seed), "--out", ctx.dataDir], {
    env: { ...process.env, ...env }, maxBuffer: 64 * 2 ** 20,
  });
  const summary = stdout.split("\n").filter((l) => l.startsWith("board ")).at(-1) ?? "(no summary line)";
  ctx.say(`  seeded: ${summary}`);
  return summary;
}
