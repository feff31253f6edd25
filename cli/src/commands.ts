/**
 * The CLI's commands, each a function of its parsed options and the client library's calls.
 */
import type { LadderClient } from "@ladder/client";
import { Operation, PeriodKind, SortOrder, TieRule, WindowCombine } from "@ladder/proto/leaderboard/v1/common_pb";
import { RankMode } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { Phase, type BoardDefinition } from "@ladder/proto/leaderboard/v1/admin_pb";
import { entriesTable } from "./format.js";

export { status } from "./status.js";

/** The calls of the three services (a LadderClient). */
export type Clients = Pick<LadderClient, "ingest" | "leaderboard" | "admin">;

export type Options = Record<string, string | boolean | undefined>;

const OPS: Record<string, Operation> = {
  set: Operation.SET, inc: Operation.INCREMENT, increment: Operation.INCREMENT, dec: Operation.DECREMENT, decrement: Operation.DECREMENT, best: Operation.BEST,
  default: Operation.UNSPECIFIED, // a defined board's default operation
};
const ORDERS: Record<string, SortOrder> = { higher: SortOrder.HIGHER_IS_BETTER, lower: SortOrder.LOWER_IS_BETTER };
const TIES: Record<string, TieRule> = { earliest: TieRule.EARLIEST_FIRST, latest: TieRule.LATEST_FIRST, id: TieRule.PLAYER_ID };
const COMBINES: Record<string, WindowCombine> = { sum: WindowCombine.SUM, best: WindowCombine.BEST };
const PERIODS: Record<string, PeriodKind> = { none: PeriodKind.UNSPECIFIED, daily: PeriodKind.DAILY, weekly: PeriodKind.WEEKLY, monthly: PeriodKind.MONTHLY, cron: PeriodKind.CRON };

function pick<T>(table: Record<string, T>, o: Options, name: string, fallback: string): T {
  const v = table[String(o[name] ?? fallback).toLowerCase()];
  if (v === undefined) throw new Error(`--${name} must be one of ${Object.keys(table).join(", ")}`);
  return v;
}

/** A read's view, period and window (`--view`, `--period`, `--window`). */
function where(o: Options) {
  return { view: String(o.view ?? ""), period: String(o.period ?? ""), window: String(o.window ?? "") };
}

const MODES: Record<string, RankMode> = { unique: RankMode.UNSPECIFIED, competition: RankMode.COMPETITION, dense: RankMode.DENSE };
/** `--mode unique|competition|dense`: how ties rank (Entry.tied_rank). */
const mode = (o: Options) => pick(MODES, o, "mode", "unique");

/** `--windows 7d:7:sum,best4:4:best`: a board's windows (name, periods, combine). */
function windowsOf(o: Options) {
  if (!o.windows) return [];
  return String(o.windows).split(",").map((w) => {
    const [name = "", periods = "", combine = "sum"] = w.split(":");
    const c = COMBINES[combine.toLowerCase()];
    if (c === undefined || !/^\d+$/.test(periods)) throw new Error(`--windows: "${w}" is not name:periods:sum|best`);
    return { name, periods: Number(periods), combine: c };
  });
}

function need(opts: Options, name: string): string {
  const v = opts[name];
  if (typeof v !== "string" || v === "") throw new Error(`--${name} is required`);
  return v;
}

export async function submit(c: Clients, o: Options): Promise<string> {
  const op = pick(OPS, o, "op", "set");
  const res = await c.ingest.submitScores({
    updates: [{
      board: need(o, "board"), playerId: need(o, "player"), op, value: BigInt(need(o, "value")), timestampMs: BigInt(String(o.ts ?? 0)), eventId: String(o["event-id"] ?? ""),
      alsoBoards: o.also ? String(o.also).split(",") : [], leaveBoard: String(o.leave ?? ""), metadata: String(o.metadata ?? ""),
    }],
    reportRanks: o["report-ranks"] === "yes",
  });
  const ranks = res.rankChanges.map((r) => `${r.board}${r.period ? `@${r.period}` : ""}: rank ${r.previousRank === 0n ? "none" : r.previousRank} -> ${r.newRank} of ${r.total} (score ${r.previousRank === 0n ? "none" : r.previousScore} -> ${r.newScore})`);
  return [`accepted ${res.accepted} at ${res.offsets.map((p) => `partition ${p.partition} offset ${p.offset}`).join(", ")}`, ...ranks].join("\n");
}

export async function top(c: Clients, o: Options): Promise<string> {
  const res = await c.leaderboard.getTop({ board: need(o, "board"), limit: Number(o.limit ?? 10), offset: BigInt(String(o.offset ?? 0)), cursor: String(o.cursor ?? ""), rankMode: mode(o), ...where(o) });
  const cursors = [res.nextCursor && `next page: --cursor ${res.nextCursor}`, res.previousCursor && `previous page: --cursor ${res.previousCursor}`].filter(Boolean);
  return [`${entriesTable(res.entries)}\n(${res.total} players)`, ...cursors].join("\n");
}

export async function rank(c: Clients, o: Options): Promise<string> {
  const res = await c.leaderboard.getRank({ board: need(o, "board"), playerId: need(o, "player"), rankMode: mode(o), ...where(o) });
  return `${entriesTable(res.entry ? [res.entry] : [])}\n(${res.total} players)`;
}

/** `ranks --board B --players a,b,c [--mode competition|dense]`: the players' global ranks and their ranks among themselves. */
export async function ranks(c: Clients, o: Options): Promise<string> {
  const res = await c.leaderboard.getRanks({ board: need(o, "board"), playerIds: need(o, "players").split(","), rankMode: mode(o), ...where(o) });
  const among = res.entries.map((e) => `${String(e.rankAmong).padStart(4)}. ${e.entry!.playerId}  rank ${e.entry!.rank}${e.entry!.tiedRank ? ` (tied ${e.entry!.tiedRank})` : ""}  score ${e.entry!.score}`);
  return [...among, ...(res.missing.length ? [`no score: ${res.missing.join(", ")}`] : []), `(${res.total} players)`].join("\n");
}

/** `standing --player P --boards global,daily@2026-11-30,daily~7d [--mode ...]`: the player on several boards at once. */
export async function standing(c: Clients, o: Options): Promise<string> {
  const boards = need(o, "boards").split(",").map((ref) => {
    const m = /^([^@~]+)(?:@([^~]+))?(?:~(.+))?$/.exec(ref);
    if (!m) throw new Error(`--boards: "${ref}" is not board[@period][~window]`);
    return { board: m[1]!, period: m[2] ?? "", window: m[3] ?? "" };
  });
  const res = await c.leaderboard.getStanding({ playerId: need(o, "player"), boards, rankMode: mode(o) });
  return res.standings.map((s) => {
    const name = `${s.board!.board}${s.board!.period ? `@${s.board!.period}` : ""}${s.board!.window ? `~${s.board!.window}` : ""}`;
    if (!s.found) return `${name}: no score (${s.total} players)`;
    return `${name}: rank ${s.entry!.rank}${s.entry!.tiedRank ? ` (tied ${s.entry!.tiedRank})` : ""} of ${s.total}, score ${s.entry!.score}, top ${s.topPercent.toFixed(2)}%`;
  }).join("\n");
}

/** `at --board B --rank K | --top P`: the entry at a global rank, or at the top P percent. */
export async function at(c: Clients, o: Options): Promise<string> {
  const target = o.rank !== undefined ? { case: "rank" as const, value: BigInt(String(o.rank)) } : { case: "topPercent" as const, value: Number(need(o, "top")) };
  const res = await c.leaderboard.getEntryAtRank({ board: need(o, "board"), at: target, ...where(o) });
  return `${entriesTable(res.entry ? [res.entry] : [])}\n(${res.total} players)`;
}

/** `histogram --board B`: the board's score histogram, summed over the shards. */
export async function histogram(c: Clients, o: Options): Promise<string> {
  const res = await c.leaderboard.getHistogram({ board: need(o, "board"), ...where(o) });
  const widest = Math.max(1, ...res.buckets.map((b) => Number(b.count)));
  return [...res.buckets.map((b) => `${`${b.minScore}..${b.maxScore}`.padStart(24)}  ${String(b.count).padStart(9)}  ${"#".repeat(Math.round((40 * Number(b.count)) / widest))}`), `(${res.total} players)`].join("\n");
}

/** `approx --board B --score N | --player P`: the rank from the histogram alone, with its bounds. */
export async function approx(c: Clients, o: Options): Promise<string> {
  const of = o.player !== undefined ? { case: "playerId" as const, value: String(o.player) } : { case: "score" as const, value: BigInt(need(o, "score")) };
  const r = await c.leaderboard.getApproximateRank({ board: need(o, "board"), of, ...where(o) });
  return `score ${r.score}: rank about ${r.rankEstimate} (exactly between ${r.rankAtLeast} and ${r.rankAtMost}) of ${r.total}; bucket ${r.bucket!.minScore}..${r.bucket!.maxScore} holds ${r.bucket!.count}`;
}

/** `count --board B [--min N] [--max N]`: entries with points in a range, and the board's size. */
export async function count(c: Clients, o: Options): Promise<string> {
  const res = await c.leaderboard.getCount({ board: need(o, "board"), ...where(o), ...(o.min !== undefined ? { minScore: BigInt(String(o.min)) } : {}), ...(o.max !== undefined ? { maxScore: BigInt(String(o.max)) } : {}) });
  return `${res.count} of ${res.total} players`;
}

export async function around(c: Clients, o: Options): Promise<string> {
  const player = need(o, "player");
  const res = await c.leaderboard.getAround({ board: need(o, "board"), playerId: player, radius: Number(o.radius ?? 5), ...where(o) });
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
  while ((await c.leaderboard.getTop({ board, limit: 1 })).total < BigInt(players)) {
    if (Date.now() > until) throw new Error(`the board did not reach ${players} players within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

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
export async function rebuild(c: Clients, o: Options): Promise<string> {
  const shardIds = o.shard ? String(o.shard).split(",") : [];
  const stream = c.admin.rebuildShards({
    shardIds,
    auditView: String(o.view ?? ""),
    asOfTimestampMs: BigInt(String(o["as-of-ts"] ?? 0)),
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
        console.log(`${p.shardId}: loaded snapshot ${p.snapshotId} (the first ${p.snapshotRecords} records of the log); replaying the rest`);
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
async function cancelled(c: Clients, requested: string[], rebuildIds: Map<string, string>, done: string[]): Promise<Error & { exitCode: number }> {
  const stopped = [...rebuildIds.keys()].filter((id) => !done.includes(id));
  const ours = new Set([...rebuildIds].filter(([shard]) => !done.includes(shard)).map(([, id]) => id));
  const shards = stopped.length ? stopped : requested;
  const finished = done.length ? `; ${done.join(", ")} had finished before` : "";
  const fail = (message: string) => Object.assign(new Error(message), { exitCode: 130 });
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
      return fail(`rebuild cancelled: the server stopped the rebuild of ${what} and cleaned up (spare data deleted, lease released; a rebuild stopped before its swap leaves the live data as it was)${finished}`);
    }
    if (Date.now() > until) {
      return fail(`rebuild cancelled, but the server had not confirmed the clean-up within ${CANCEL_CONFIRM_MS / 1000} s: still running ${left.map((r) => `${r.shardId} (rebuild ${r.rebuildId})`).join(", ")}; \`rebuilds\` shows when they stop${finished}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Lists the rebuilds running now (all shards unless --shard a,b). */
export async function rebuilds(c: Clients, o: Options): Promise<string> {
  const res = await c.admin.listRebuilds({ shardIds: o.shard ? String(o.shard).split(",") : [] });
  if (res.rebuilds.length === 0) return "no rebuild running";
  return res.rebuilds
    .map((r) => `${r.shardId}: rebuild ${r.rebuildId} (${r.mode}) by ${r.holder}, since ${new Date(Number(r.startedAtMs)).toISOString()}`)
    .join("\n");
}

/**
 * Board definitions: `boards list [--prefix P]`, `boards get --board B`,
 * `boards create --board B [--order higher|lower] [--tie earliest|latest|id] [--min N --max N]
 * [--resolution-ms N] [--period daily|weekly|monthly|cron [--cron EXPR] [--zone IANA] [--keep N]
 * [--windows NAME:PERIODS:sum|best,...]]
 * [--default-op set|inc|dec|best] [--allow-override yes|no] [--max-metadata BYTES]`,
 * `boards update --board B [--default-op ...] [--allow-override yes|no] [--max-metadata BYTES]`,
 * `boards delete --board B`.
 */
export async function boards(c: Clients, o: Options): Promise<string> {
  const sub = String(o.sub ?? "list");
  const allow = (fallback: string) => {
    const v = String(o["allow-override"] ?? fallback);
    if (v !== "yes" && v !== "no") throw new Error("--allow-override must be yes or no");
    return v === "yes";
  };
  switch (sub) {
    case "list": {
      const res = await c.admin.listBoards({ prefix: String(o.prefix ?? "") });
      return res.boards.length ? res.boards.map(boardLine).join("\n") : "no boards defined";
    }
    case "get":
      return boardLine((await c.admin.getBoard({ name: need(o, "board") })).board!);
    case "create": {
      const res = await c.admin.createBoard({
        board: {
          name: need(o, "board"),
          rules: {
            order: pick(ORDERS, o, "order", "higher"), tie: pick(TIES, o, "tie", "earliest"),
            minPoints: BigInt(String(o.min ?? 0)), maxPoints: BigInt(String(o.max ?? 0)), resolutionMs: Number(o["resolution-ms"] ?? 0),
            period: pick(PERIODS, o, "period", "none"), timeZone: String(o.zone ?? ""), cron: String(o.cron ?? ""), keepPeriods: Number(o.keep ?? 0),
            windows: windowsOf(o),
            histogramBounds: o.histogram ? String(o.histogram).split(",").map((b) => BigInt(b)) : [],
          },
          defaultOp: pick(OPS, o, "default-op", "best"),
          allowOpOverride: allow("no"),
          maxMetadataBytes: Number(o["max-metadata"] ?? 0),
        },
      });
      return `defined ${boardLine(res.board!)}`;
    }
    case "update": {
      const current = (await c.admin.getBoard({ name: need(o, "board") })).board!;
      const res = await c.admin.updateBoard({
        board: {
          name: current.name, defaultOp: o["default-op"] ? pick(OPS, o, "default-op", "best") : current.defaultOp, allowOpOverride: allow(current.allowOpOverride ? "yes" : "no"),
          maxMetadataBytes: o["max-metadata"] !== undefined ? Number(o["max-metadata"]) : current.maxMetadataBytes,
        },
      });
      return `updated ${boardLine(res.board!)}`;
    }
    case "delete": {
      const res = await c.admin.deleteBoard({ name: need(o, "board") });
      return `deleted ${res.board!.name} (generation ${res.board!.rules!.generation}): ${res.markers.length} deletion markers written; the shards drop its keys once they applied them (consistency token ${res.consistencyToken})`;
    }
    default:
      throw new Error(`boards: unknown subcommand "${sub}" (list, get, create, update, delete)`);
  }
}

function boardLine(b: BoardDefinition): string {
  const r = b.rules!;
  const order = r.order === SortOrder.LOWER_IS_BETTER ? "lower is better" : "higher is better";
  const tie = r.tie === TieRule.LATEST_FIRST ? "latest first" : r.tie === TieRule.PLAYER_ID ? "ties by player id" : "earliest first";
  const kind = Object.entries(PERIODS).find(([, v]) => v === r.period)?.[0] ?? "none";
  const windows = r.windows.map((w) => `${w.name} (${w.periods} periods, ${w.combine === WindowCombine.BEST ? "best" : "sum"})`).join(", ");
  const period = r.period === PeriodKind.UNSPECIFIED ? "all-time" : `${kind}${r.cron ? ` "${r.cron}"` : ""} in ${r.timeZone}, keeps ${r.keepPeriods} past${windows ? `, windows ${windows}` : ""}`;
  const metadata = b.maxMetadataBytes ? `, metadata up to ${b.maxMetadataBytes} bytes` : "";
  return `${b.name}: ${order}, ${tie}, ${period}, points ${r.minPoints}..${r.maxPoints}, ${r.resolutionMs} ms resolution, default ${Operation[b.defaultOp]}${b.allowOpOverride ? "" : " only"}${metadata}, generation ${r.generation}`;
}

/** The periods a board keeps now (`periods --board B`), the current one first. */
export async function periods(c: Clients, o: Options): Promise<string> {
  const res = await c.leaderboard.listPeriods({ board: need(o, "board") });
  if (res.periods.length === 0) return "an all-time board: no periods";
  return res.periods.map((p, i) => `${p.id}  ${new Date(Number(p.startMs)).toISOString()} .. ${new Date(Number(p.endMs)).toISOString()}  expires ${new Date(Number(p.expireAtMs)).toISOString()}${i === 0 ? "  (current)" : ""}`).join("\n");
}

/** Erases a player (`erase --player P [--boards a,b]`, every board without --boards) through the log, and waits until it is applied. */
export async function erase(c: Clients, o: Options): Promise<string> {
  const playerId = need(o, "player");
  const boards = o.boards ? String(o.boards).split(",") : [];
  const res = await c.ingest.deletePlayer({ playerId, boards });
  return `erased ${playerId} from ${boards.length ? boards.join(", ") : "every board"} (tombstone at partition ${res.offset!.partition} offset ${res.offset!.offset}; reads with consistency token ${res.consistencyToken} see it applied)`;
}

export { placement, reshard } from "./reshard.js";
export { watch } from "./watch.js";
