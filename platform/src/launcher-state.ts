/**
 * The local cluster launcher's view of its processes (`npm start`, deploy/local/src/main.ts), kept in
 * a small JSON file under its data dir (<data dir>/launcher-state.json) and rewritten whenever a
 * process dies, restarts or stops. The CLI's `status` prints it beside the router's GetClusterStatus,
 * so a user of the local cluster sees the supervised processes too (Kafka, Redis and Sentinels
 * included, which the router knows only as addresses). The launcher removes the file when it stops;
 * a file whose launcher is gone (killed) is recognised by its pid and not shown as current.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/** Where the launcher keeps the file, under its data dir. */
export const launcherStatePath = (dataDir: string) => join(dataDir, "launcher-state.json");

const processSchema = z.object({
  /** e.g. "kafka", "redis-0", "redis-0-replica-1", "sentinel-0", "shard-0", "router", "ingest", "gateway". */
  name: z.string(),
  /** What runs: kafka, redis, sentinel, shard-node, router, ingest, gateway. */
  kind: z.enum(["kafka", "redis", "sentinel", "shard-node", "router", "ingest", "gateway"]),
  /** host:port it serves on. */
  address: z.string(),
  /** up: running; restarting: it died and is waiting for (or in) its next start; stopped: the launcher stopped it. */
  state: z.enum(["up", "restarting", "stopped"]),
  /** The running process's pid; null while restarting. */
  pid: z.number().int().nullable(),
  /** Times it was started again after it died. */
  restarts: z.number().int().min(0),
  /** When the running process started (Unix ms); null while restarting. */
  upSinceMs: z.number().nullable(),
  /** How it last ended ("killed by SIGKILL", "exited with code 1"), and when; null if it never died. */
  lastExit: z.string().nullable(),
  lastExitAtMs: z.number().nullable(),
  /** While restarting: when the next start begins (Unix ms). */
  nextStartAtMs: z.number().nullable(),
});

const stateSchema = z.object({
  /** The launcher's own pid: the file is current only while it runs. */
  launcherPid: z.number().int(),
  startedAtMs: z.number(),
  updatedAtMs: z.number(),
  /** The router's and ingest's gRPC addresses. */
  router: z.string(),
  ingest: z.string(),
  processes: z.array(processSchema),
});

export type LauncherProcess = z.infer<typeof processSchema>;
export type ProcessKind = LauncherProcess["kind"];
export type LauncherState = z.infer<typeof stateSchema>;

/** The state in `path`, or undefined when there is no such file; throws with the path when it is not one. */
export function readLauncherState(path: string): LauncherState | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`launcher state ${path}: ${(err as Error).message}`);
  }
  const parsed = stateSchema.safeParse(safeJson(text));
  if (!parsed.success)
    throw new Error(`launcher state ${path}: not a launcher state file (${parsed.error.issues[0]?.message ?? "invalid"})`);
  return parsed.data;
}

/** Whether process `pid` runs on this machine (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // exists, owned by someone else
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
