/**
 * Seeds a running cluster's board as a user would: `npm run seed` (the seeder's Kafka path:
 * ScoreEvent records into the cluster's score topic, applied by its shard nodes) as a child
 * process with the cluster's settings, waiting until the shard nodes applied everything; the
 * seeder then asks the cluster's router for the board's count and fails when it is short.
 */
import { join } from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { builtEntry } from "@ladder/deploy/built-entry";
import type { BenchContext } from "../context.js";
import type { IngestCluster } from "./ingest-cluster.js";

const run = promisify(execFile);

/** Seeds players 0 .. players-1 of the bench's population onto `board`; returns the seeder's summary line. */
export async function seedThroughKafka(ctx: BenchContext, cluster: IngestCluster, board: string, players: number): Promise<string> {
  const env = {
    ...cluster.services.env,
    LADDER_ROUTER_LISTEN: cluster.services.routerAddress, // the router the seeder counts with
    // not the local cluster's credentials file (npm start's): its Kafka and Redis logins are not this cluster's
    LADDER_CREDENTIALS_FILE: join(ctx.dataDir, "no-credentials.json"),
  };
  const flags = { players: String(players), board, via: "kafka", seed: String(ctx.plan.seed), out: ctx.dataDir };
  const args = [builtEntry("loadtest/src/seed/main.ts"), ...Object.entries(flags).flatMap(([name, value]) => [`--${name}`, value])];
  const { stdout } = await run(process.execPath, args, { env: { ...process.env, ...env }, maxBuffer: 64 * 2 ** 20 }).catch(
    (err: { stdout?: string; stderr?: string }) => {
      const tail = `${err.stdout ?? ""}\n${err.stderr ?? ""}`.trim().split("\n").slice(-8).join("\n");
      throw new Error(`npm run seed failed:\n${tail}`, { cause: err });
    },
  );
  const summary = stdout.split("\n").findLast((l) => l.startsWith("board ")) ?? "(no summary line)";
  ctx.say(`  seeded: ${summary}`);
  return summary;
}
