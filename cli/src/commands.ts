/**
 * The CLI's commands, each a function of its parsed options and the two clients.
 */
import type { ClientOf } from "@ladder/common/grpc-adapter";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import type { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import type { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { Phase, type AdminService, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { entriesTable } from "./format.js";

export interface Clients {
  ingest: ClientOf<typeof IngestService>;
  router: ClientOf<typeof LeaderboardService>;
  admin: ClientOf<typeof AdminService>;
}

export type Options = Record<string, string | boolean | undefined>;

const OPS: Record<string, Operation> = { set: Operation.SET, inc: Operation.INCREMENT, increment: Operation.INCREMENT, best: Operation.BEST };

function need(opts: Options, name: string): string {
  const v = opts[name];
  if (typeof v !== "string" || v === "") throw new Error(`--${name} is required`);
  return v;
}

export async function submit(c: Clients, o: Options): Promise<string> {
  const op = OPS[String(o.op ?? "set").toLowerCase()];
  if (op === undefined) throw new Error(`--op must be one of ${Object.keys(OPS).join(", ")}`);
  const res = await c.ingest.submitScores({
    updates: [{ board: need(o, "board"), playerId: need(o, "player"), op, value: BigInt(need(o, "value")), timestampMs: BigInt(String(o.ts ?? 0)), eventId: String(o["event-id"] ?? "") }],
  });
  return `accepted ${res.accepted} at ${res.offsets.map((p) => `partition ${p.partition} offset ${p.offset}`).join(", ")}`;
}

export async function top(c: Clients, o: Options): Promise<string> {
  const res = await c.router.getTop({ board: need(o, "board"), limit: Number(o.limit ?? 10), offset: BigInt(String(o.offset ?? 0)), view: String(o.view ?? "") });
  return `${entriesTable(res.entries)}\n(${res.total} players)`;
}

export async function rank(c: Clients, o: Options): Promise<string> {
  const res = await c.router.getRank({ board: need(o, "board"), playerId: need(o, "player"), view: String(o.view ?? "") });
  return `${entriesTable(res.entry ? [res.entry] : [])}\n(${res.total} players)`;
}

export async function around(c: Clients, o: Options): Promise<string> {
  const player = need(o, "player");
  const res = await c.router.getAround({ board: need(o, "board"), playerId: player, radius: Number(o.radius ?? 5), view: String(o.view ?? "") });
  return `${entriesTable(res.entries, player)}\n(${res.total} players)`;
}

/**
 * Fills a board with `players` players (scores 0..9999, so plenty of ties broken by
 * time), waits until the last write is visible, then shows the top and one neighbourhood.
 */
export async function demo(c: Clients, o: Options): Promise<string> {
  const board = String(o.board ?? "demo");
  const players = Number(o.players ?? 5000);
  const batch = 500;
  const now = Date.now();
  for (let start = 0; start < players; start += batch) {
    const updates = [];
    for (let i = start; i < Math.min(players, start + batch); i++) {
      updates.push({ board, playerId: `player-${String(i).padStart(6, "0")}`, op: Operation.BEST, value: BigInt(Math.floor(Math.random() * 10_000)), timestampMs: BigInt(now - Math.floor(Math.random() * 3_600_000)) });
    }
    await c.ingest.submitScores({ updates });
  }
  await waitVisible(c, board, players);
  const someone = `player-${String(Math.floor(Math.random() * players)).padStart(6, "0")}`;
  return [
    `submitted ${players} players to board "${board}"`, "", "top 10:", await top(c, { board, limit: "10" }), "",
    `around ${someone}:`, await around(c, { board, player: someone, radius: "3" }),
  ].join("\n");
}

/** Waits (30 s at most) until the board holds `players` players: the shards apply asynchronously. */
async function waitVisible(c: Clients, board: string, players: number): Promise<void> {
  const until = Date.now() + 30_000;
  while ((await c.router.getTop({ board, limit: 1 })).total < BigInt(players)) {
    if (Date.now() > until) throw new Error(`the board did not reach ${players} players within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Rebuilds shards from the log (all unless --shard a,b), printing each shard's progress;
 * with --view NAME builds an audit view instead, as of --as-of-ts <unix ms> if given.
 */
export async function rebuild(c: Clients, o: Options): Promise<string> {
  const stream = c.admin.rebuildShards({
    shardIds: o.shard ? String(o.shard).split(",") : [],
    auditView: String(o.view ?? ""),
    asOfTimestampMs: BigInt(String(o["as-of-ts"] ?? 0)),
  });
  const done: string[] = [];
  for await (const p of stream as AsyncIterable<RebuildShardsResponse>) {
    const line = `${p.shardId}: ${p.phase === Phase.DONE ? "done" : "replaying"}  ${p.eventsReplayed} records  ${Math.round(p.eventsPerSecond)}/s  lag ${p.lag}  eta ${(Number(p.etaMs) / 1000).toFixed(1)} s`;
    console.log(line);
    if (p.phase === Phase.DONE) done.push(p.shardId);
  }
  return `rebuilt ${done.join(", ")}${o.view ? ` into audit view "${o.view}"` : ""}`;
}
