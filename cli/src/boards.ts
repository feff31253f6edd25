/**
 * `boards list|get|create|update|delete`: board definitions (AdminService), one line per board.
 */
import type { ServiceSet } from "@ladder/client";
import { Operation, PeriodKind, SortOrder, TieRule, WindowCombine } from "@ladder/proto/leaderboard/v1/common_pb";
import type { BoardDefinition } from "@ladder/proto/leaderboard/v1/admin_pb";
import { OPERATION, PERIOD_KIND, SORT_ORDER, TIE_RULE } from "./enums.js";
import type { Values } from "./flags.js";
import type { BOARDS_CREATE, BOARDS_DELETE, BOARDS_GET, BOARDS_LIST, BOARDS_UPDATE, CLOSES } from "./tables/boards.js";

export async function boardsList(c: ServiceSet, o: Values<typeof BOARDS_LIST.flags>): Promise<string> {
  const res = await c.admin.listBoards({ prefix: o.prefix ?? "" });
  return res.boards.length ? res.boards.map(boardLine).join("\n") : "no boards defined";
}

export async function boardsGet(c: ServiceSet, o: Values<typeof BOARDS_GET.flags>): Promise<string> {
  return boardLine((await c.admin.getBoard({ name: o.board })).board!);
}

export async function boardsCreate(c: ServiceSet, o: Values<typeof BOARDS_CREATE.flags>): Promise<string> {
  const res = await c.admin.createBoard({
    board: {
      name: o.board,
      rules: {
        order: SORT_ORDER[o.order],
        tie: TIE_RULE[o.tie],
        minPoints: o.min ?? 0n,
        maxPoints: o.max ?? 0n,
        resolutionMs: o["resolution-ms"] ?? 0,
        period: PERIOD_KIND[o.period],
        timeZone: o.zone ?? "",
        cron: o.cron ?? "",
        keepPeriods: o.keep,
        windows: (o.windows ?? []).map((w) => {
          const [name, periods, combine] = w.split(":") as [string, string, string]; // the table's pattern: NAME:PERIODS:sum|best
          return { name, periods: Number(periods), combine: combine === "best" ? WindowCombine.BEST : WindowCombine.SUM };
        }),
        histogramBounds: o.histogram ?? [],
        columns: (o.columns ?? []).map((c) => {
          const [name, order] = c.split(":") as [string, string]; // the table's pattern: NAME:higher|lower
          return { name, order: SORT_ORDER[order as "higher" | "lower"] };
        }),
        keepTop: o["keep-top"],
        keepMargin: o["keep-margin"],
        expireInactiveMs: o["expire-inactive"] ? BigInt(durationMs(o["expire-inactive"])) : 0n,
        ...(o["close-grace"]
          ? { close: { graceMs: BigInt(durationMs(o["close-grace"])), topK: o["close-top"], rewards: (o.rewards ?? []).map(rewardRange) } }
          : {}),
        ...(o["season-start"] || o["season-length"]
          ? {
              season: {
                firstDay: o["season-start"] ?? "",
                lengthDays: days(o["season-length"] ?? "0d"),
                gapDays: days(o["season-gap"]),
              },
            }
          : {}),
      },
      defaultOp: OPERATION[o["default-op"]],
      allowOpOverride: o["allow-override"],
      maxMetadataBytes: o["max-metadata"],
      scoreCeiling: o.ceiling,
      quota: {
        playerPerSecond: o["player-rate"],
        playerBurst: o["player-burst"],
        tokenPerSecond: o["token-rate"],
        tokenBurst: o["token-burst"],
      },
    },
  });
  return `defined ${boardLine(res.board!)}`;
}

/** Changes what the flags given name; the rest stays as the board has it. */
export async function boardsUpdate(c: ServiceSet, o: Values<typeof BOARDS_UPDATE.flags>): Promise<string> {
  const current = (await c.admin.getBoard({ name: o.board })).board!;
  const res = await c.admin.updateBoard({
    board: {
      name: current.name,
      defaultOp: o["default-op"] !== undefined ? OPERATION[o["default-op"]] : current.defaultOp,
      allowOpOverride: o["allow-override"] ?? current.allowOpOverride,
      maxMetadataBytes: o["max-metadata"] ?? current.maxMetadataBytes,
      scoreCeiling: o.ceiling ?? current.scoreCeiling,
      quota: {
        playerPerSecond: o["player-rate"] ?? current.quota?.playerPerSecond ?? 0,
        playerBurst: o["player-burst"] ?? current.quota?.playerBurst ?? 0,
        tokenPerSecond: o["token-rate"] ?? current.quota?.tokenPerSecond ?? 0,
        tokenBurst: o["token-burst"] ?? current.quota?.tokenBurst ?? 0,
      },
    },
  });
  return `updated ${boardLine(res.board!)}`;
}

export async function boardsDelete(c: ServiceSet, o: Values<typeof BOARDS_DELETE.flags>): Promise<string> {
  const res = await c.admin.deleteBoard({ name: o.board });
  return `deleted ${res.board!.name} (generation ${res.board!.rules!.generation}): ${res.markers.length} deletion markers written; the shards drop its keys once they applied them (consistency token ${res.consistencyToken})`;
}

/** One line per closed period: when, how many entries, the checksum, then its top entries. */
export async function closes(c: ServiceSet, o: Values<typeof CLOSES.flags>): Promise<string> {
  const res = await c.admin.listCloses({ board: o.board });
  if (res.closes.length === 0) return `no period of ${o.board} closed yet`;
  return res.closes
    .map((e) => {
      const head = `${e.period}: closed at ${new Date(Number(e.closeAtMs)).toISOString()}, ${e.size} entries, ${e.rewards.length} rewarded, sha256 ${e.checksum}`;
      return [head, ...e.top.map((t) => `  ${t.rank}. ${t.playerId} ${t.score}`)].join("\n");
    })
    .join("\n");
}

/** A reward range of "gold:1", "silver:2-10" or "elite:top1%" (the table's pattern). */
export function rewardRange(text: string): { reward: string; fromRank?: bigint; toRank?: bigint; topPercent?: number } {
  const at = text.lastIndexOf(":");
  const [reward, range] = [text.slice(0, at), text.slice(at + 1)];
  if (range.startsWith("top")) return { reward, topPercent: Number(range.slice(3, -1)) };
  const [from, to] = range.split("-");
  return { reward, fromRank: BigInt(from!), ...(to ? { toRank: BigInt(to) } : {}) };
}

/** Milliseconds of "500ms", "10s", "10m", "2h" or "1d" (the table's pattern). */
export function durationMs(text: string): number {
  const [, n, unit] = /^(\d+)(ms|s|m|h|d)$/.exec(text)!;
  return Number(n) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit as "ms" | "s" | "m" | "h" | "d"];
}

/** Days of "12d" or "4w" (the table's pattern). */
const days = (text: string): number => Number(text.slice(0, -1)) * (text.endsWith("w") ? 7 : 1);

/** " of N days from DAY, G-day gaps" for a board with seasons, else "". */
function seasonText(b: BoardDefinition): string {
  const s = b.rules?.season;
  return s ? ` of ${s.lengthDays} days from ${s.firstDay}${s.gapDays ? `, ${s.gapDays}-day gaps` : ""}` : "";
}

function boardLine(b: BoardDefinition): string {
  const r = b.rules!;
  const order = r.order === SortOrder.LOWER_IS_BETTER ? "lower is better" : "higher is better";
  const tie = r.tie === TieRule.LATEST_FIRST ? "latest first" : r.tie === TieRule.PLAYER_ID ? "ties by player id" : "earliest first";
  const kind = Object.entries(PERIOD_KIND).find(([, v]) => v === r.period)?.[0] ?? "none";
  const windows = r.windows.map((w) => `${w.name} (${w.periods} periods, ${w.combine === WindowCombine.BEST ? "best" : "sum"})`).join(", ");
  const period =
    r.period === PeriodKind.UNSPECIFIED
      ? "all-time"
      : `${kind}${r.cron ? ` "${r.cron}"` : ""}${seasonText(b)} in ${r.timeZone}, keeps ${r.keepPeriods} past${windows ? `, windows ${windows}` : ""}${r.close ? `, closes ${r.close.graceMs} ms after each end${r.close.rewards.length ? ` with ${r.close.rewards.length} reward ranges` : ""}` : ""}, next reset ${new Date(Number(b.nextResetMs)).toISOString()}`;
  const metadata = `${b.maxMetadataBytes ? `, metadata up to ${b.maxMetadataBytes} bytes` : ""}${b.scoreCeiling ? `, ceiling ${b.scoreCeiling}` : ""}`;
  const scores = r.columns.length
    ? `columns ${r.columns.map((c) => `${c.name} (${c.order === SortOrder.LOWER_IS_BETTER ? "lower" : "higher"} first)`).join(", ")}`
    : `${order}`;
  const range = r.columns.length ? "" : `, points ${r.minPoints}..${r.maxPoints}`;
  return `${b.name}: ${scores}, ${tie}, ${period}${range}, ${r.resolutionMs} ms resolution, default ${Operation[b.defaultOp]}${b.allowOpOverride ? "" : " only"}${metadata}${quotaText(b)}${retentionText(b)}, generation ${r.generation}`;
}

/** ", keeps the top 50 (+ 50)" and ", expires players inactive for 3600000 ms", or "" when the board has neither. */
function retentionText(b: BoardDefinition): string {
  const r = b.rules!;
  const top = r.keepTop ? `, keeps the top ${r.keepTop} (+ ${r.keepMargin || r.keepTop})` : "";
  const f = b.retentionFloor;
  const held =
    r.keepTop || r.expireInactiveMs ? `, holds ${b.retainedEntries} entries${f ? ` (floor ${f.playerId} at ${f.score})` : ""}` : "";
  return `${top}${r.expireInactiveMs ? `, expires players inactive for ${r.expireInactiveMs} ms` : ""}${held}`;
}

/** ", quota 5/s (burst 10) per player, 100/s per token", or "" when the board has none. */
function quotaText(b: BoardDefinition): string {
  const q = b.quota;
  const one = (rate = 0, burst = 0, who = "") => (rate ? `${rate}/s${burst && burst !== rate ? ` (burst ${burst})` : ""} per ${who}` : "");
  const parts = [one(q?.playerPerSecond, q?.playerBurst, "player"), one(q?.tokenPerSecond, q?.tokenBurst, "token")].filter(Boolean);
  return parts.length ? `, quota ${parts.join(", ")}` : "";
}
