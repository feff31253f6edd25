/**
 * `rebuild`: shards rebuilt from the log (AdminService.RebuildShards), their progress printed, and
 * Ctrl-C's cancellation waited for; `rebuilds`: the rebuilds running now.
 */
import type { ServiceSet } from "@ladder/client";
import { Phase } from "@ladder/proto/leaderboard/v1/admin_pb";
import { CommandFailed } from "./errors.js";
import type { Values } from "./flags.js";
import type { REBUILD, REBUILDS } from "./tables/admin.js";

/** How long the CLI waits, after Ctrl-C cancelled a rebuild, for the server to confirm it stopped and cleaned up. */
const CANCEL_CONFIRM_MS = 20_000;

/**
 * Rebuilds shards from the log (all unless --shard a,b), printing each shard's progress;
 * with --view NAME builds an audit view instead, as of --as-of-ts <unix ms> if given.
 *
 * Ctrl-C cancels the call: the server stops the rebuilds that have not swapped yet, deletes
 * what they wrote and releases their leases. The CLI waits (CANCEL_CONFIRM_MS at most) until
 * ListRebuilds no longer shows them, says so, and exits with 130. A second Ctrl-C exits at once.
 */
export async function rebuild(c: ServiceSet, o: Values<typeof REBUILD.flags>): Promise<string> {
  const shardIds = o.shard ?? [];
  const stream = c.admin.rebuildShards({
    shardIds,
    auditView: o.view ?? "",
    asOfTimestampMs: o["as-of-ts"],
  });
  const rebuildIds = new Map<string, string>();
  const fromSnapshot = new Set<string>();
  const done: string[] = [];
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error("cancelling the rebuild: waiting for the server to stop it and clean up (Ctrl-C again to leave at once)");
    stream.cancel();
  };
  process.on("SIGINT", onSigint);
  try {
    for await (const p of stream) {
      if (!rebuildIds.has(p.shardId)) {
        rebuildIds.set(p.shardId, p.rebuildId);
        console.log(`${p.shardId}: rebuild ${p.rebuildId} started`);
        if (p.phase !== Phase.DONE && p.eventsReplayed === 0n && !p.snapshotId) continue;
      }
      if (p.snapshotId && !fromSnapshot.has(p.shardId)) {
        fromSnapshot.add(p.shardId);
        console.log(
          `${p.shardId}: loaded snapshot ${p.snapshotId} (the first ${p.snapshotRecords} records of the log); replaying the rest`,
        );
        if (p.phase !== Phase.DONE && p.eventsReplayed === 0n) continue;
      }
      const line = `${p.shardId}: ${p.phase === Phase.DONE ? "done" : "replaying"}  ${p.eventsReplayed} records  ${Math.round(p.eventsPerSecond)}/s  lag ${p.lag}  eta ${(Number(p.etaMs) / 1000).toFixed(1)} s`;
      console.log(line);
      if (p.phase === Phase.DONE) done.push(p.shardId);
    }
  } catch (err) {
    if (!interrupted) throw err;
    throw await cancelled(c, shardIds, rebuildIds, done);
  } finally {
    process.off("SIGINT", onSigint);
  }
  return `rebuilt ${done.join(", ")}${o.view ? ` into audit view "${o.view}"` : ""}`;
}

/** After Ctrl-C: waits until the server no longer runs the cancelled rebuilds; the error to exit with. */
async function cancelled(c: ServiceSet, requested: string[], rebuildIds: Map<string, string>, done: string[]): Promise<CommandFailed> {
  const stopped = [...rebuildIds.keys()].filter((id) => !done.includes(id));
  const ours = new Set([...rebuildIds].filter(([shard]) => !done.includes(shard)).map(([, id]) => id));
  const shards = stopped.length ? stopped : requested;
  const finished = done.length ? `; ${done.join(", ")} had finished before` : "";
  const fail = (message: string) => new CommandFailed(message, 130);
  const until = Date.now() + CANCEL_CONFIRM_MS;
  for (;;) {
    let running;
    try {
      running = (await c.admin.listRebuilds({ shardIds: shards }, { timeoutMs: 5000 })).rebuilds;
    } catch (err) {
      const e = err as { details?: string; message: string };
      return fail(`rebuild cancelled; could not confirm that the server cleaned up: ${e.details || e.message}${finished}`);
    }
    // without any id (cancelled before the first message), wait until these shards run no rebuild at all
    const left = running.filter((r) => (ours.size ? ours.has(r.rebuildId) : true));
    if (left.length === 0) {
      const what = shards.length ? shards.join(", ") : "every shard";
      return fail(
        `rebuild cancelled: the server stopped the rebuild of ${what} and cleaned up (spare data deleted, lease released; a rebuild stopped before its swap leaves the live data as it was)${finished}`,
      );
    }
    if (Date.now() > until) {
      return fail(
        `rebuild cancelled, but the server had not confirmed the clean-up within ${CANCEL_CONFIRM_MS / 1000} s: still running ${left.map((r) => `${r.shardId} (rebuild ${r.rebuildId})`).join(", ")}; \`rebuilds\` shows when they stop${finished}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Lists the rebuilds running now (all shards unless --shard a,b). */
export async function rebuilds(c: ServiceSet, o: Values<typeof REBUILDS.flags>): Promise<string> {
  const res = await c.admin.listRebuilds({ shardIds: o.shard ?? [] });
  if (res.rebuilds.length === 0) return "no rebuild running";
  return res.rebuilds
    .map((r) => `${r.shardId}: rebuild ${r.rebuildId} (${r.mode}) by ${r.holder}, since ${new Date(Number(r.startedAtMs)).toISOString()}`)
    .join("\n");
}
