/**
 * `status [--shard shard-0,shard-1]`: the router's AdminService.GetClusterStatus as
 * tables (each shard's readiness, lag, heartbeat age, size and Redis nodes; Kafka), and, when a local
 * cluster launcher runs beside the CLI (its state file under LADDER_DATA_DIR, platform/src/launcher-state.ts),
 * the launcher's view of the processes it supervises: up or restarting, pid, restarts, uptime, last
 * exit. When the router does not answer, what the launcher knows is still printed, and the command
 * fails (exit status 1) after it.
 */
import type { GetClusterStatusResponse, KafkaStatus, RedisNodeStatus, ShardStatus } from "@ladder/proto/leaderboard/v1/admin_pb";
import { ShardReadiness } from "@ladder/proto/leaderboard/v1/admin_pb";
import { processAlive, readLauncherState, type LauncherProcess, type LauncherState } from "@ladder/platform/launcher-state";
import type { ServiceSet } from "@ladder/client";
import type { RunContext } from "./context.js";
import { CommandFailed, describeError } from "./errors.js";
import type { Values } from "./flags.js";
import type { STATUS } from "./tables/admin.js";

/** The status call's deadline: it bounds each part by the router's shard timeout itself. */
const STATUS_TIMEOUT_MS = 15_000;

export async function status(c: ServiceSet, o: Values<typeof STATUS.flags>, ctx: RunContext): Promise<string> {
  const router = ctx.errors.addresses.router;
  const parts: string[] = [];
  let failed = false;
  try {
    parts.push(clusterTables(await c.admin.getClusterStatus({ shardIds: o.shard ?? [] }, { timeoutMs: STATUS_TIMEOUT_MS }), router));
  } catch (err) {
    failed = true;
    parts.push(describeError(err, { ...ctx.errors, service: "router" }).line);
  }
  const launcher = launcherPart(ctx.launcherStateFile);
  if (launcher) parts.push(launcher);
  const text = parts.join("\n\n");
  if (failed) throw new CommandFailed(text, 1);
  return text;
}

function clusterTables(s: GetClusterStatusResponse, router: string): string {
  const at = new Date(Number(s.observedAtMs)).toISOString();
  const shards = table(["shard", "readiness", "lag", "heartbeat", "keys", "memory", "redis nodes"], s.shards.map(shardRow));
  return [`cluster status from router ${router} at ${at}`, shards, kafkaLine(s.kafka)].join("\n");
}

function shardRow(s: ShardStatus): string[] {
  const readiness =
    s.readiness === ShardReadiness.SERVING
      ? "serving"
      : `${s.readiness === ShardReadiness.MISCONFIGURED ? "MISCONFIGURED" : "refusing"}: ${s.refusal.replace(`${s.shardId}: `, "")}`;
  return [
    s.shardId,
    readiness,
    s.lagRecords === undefined ? "?" : `${s.lagRecords} rec`,
    s.heartbeatAgeMs === undefined ? "none" : `${seconds(Number(s.heartbeatAgeMs))} ago`,
    s.keys === undefined ? "?" : String(s.keys),
    s.usedMemoryBytes === undefined ? "?" : bytes(Number(s.usedMemoryBytes)),
    s.nodes.map((n) => nodeText(n, s.nodes.length > 1)).join(", "),
  ];
}

/** A node: address, role, with replicas its replication offset, and whether reads go to it. */
function nodeText(n: RedisNodeStatus, replicated: boolean): string {
  if (!n.reachable) return `${n.address} unreachable`;
  const role = n.role === "master" ? "primary" : n.role === "slave" ? "replica" : n.role;
  return `${n.address} ${role}${replicated ? ` offset ${n.replicationOffset}` : ""}${n.servesReads ? "" : " (no reads)"}`;
}

function kafkaLine(k: KafkaStatus | undefined): string {
  if (!k) return "kafka: no answer";
  if (!k.reachable) return `kafka: UNREACHABLE (${k.bootstrap.join(",")}): ${k.error}`;
  const records = k.endOffsets.reduce((sum, o) => sum + o.offset, 0n);
  const topic = k.error ? k.error : `topic ${k.scoreTopic}: ${k.endOffsets.length} partitions, ${records} records`;
  return `kafka: brokers ${k.brokers.join(",")}; ${topic}`;
}

/** The launcher's processes, or a note why not; undefined when no launcher state file is there. */
function launcherPart(path: string): string | undefined {
  let state: LauncherState | undefined;
  try {
    state = path ? readLauncherState(path) : undefined;
  } catch (err) {
    return `launcher: ${(err as Error).message}`;
  }
  if (!state) return undefined;
  if (!processAlive(state.launcherPid)) {
    return `launcher: ${path} is from launcher pid ${state.launcherPid} (last written ${new Date(state.updatedAtMs).toISOString()}), which is not running: not shown`;
  }
  const now = Date.now();
  const rows = state.processes.map((p) => processRow(p, now));
  return [
    `launcher pid ${state.launcherPid}, up ${duration(now - state.startedAtMs)} (${path})`,
    table(["process", "state", "pid", "restarts", "uptime", "address", "last exit"], rows),
  ].join("\n");
}

function processRow(p: LauncherProcess, now: number): string[] {
  const state =
    p.state === "restarting" && p.nextStartAtMs !== null
      ? p.nextStartAtMs > now
        ? `restarting in ${seconds(p.nextStartAtMs - now)}`
        : "restarting (starting)"
      : p.state;
  return [
    p.name,
    state,
    p.pid === null ? "-" : String(p.pid),
    String(p.restarts),
    p.upSinceMs === null ? "-" : duration(now - p.upSinceMs),
    p.address,
    p.lastExit === null ? "-" : `${p.lastExit}, ${duration(now - (p.lastExitAtMs ?? now))} ago`,
  ];
}

/** Columns padded to their widest cell. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  return [line(header), ...rows.map(line)].join("\n");
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor(s / 60) % 60).padStart(2, "0")}m`;
}

function bytes(n: number): string {
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}
