/**
 * The boards of benchmark "boards", defined as AdminService.CreateBoard would define them
 * (normalizeDefinition, then specOfRules: what ingest's catalog and every record carry), and
 * their records encoded as ingest encodes them (ingest-service.ts resolveBoard, then
 * encodeScoreEvent: loadtest may not import ingest, so resolveBoard's steps are followed here).
 *
 *   windowed  daily (UTC), keeps 8 past days, windows "sum7" (7 days, SUM) and "best7" (7 days, BEST)
 *   plain     the same rules without windows: the single board every other write is compared with
 *   also      8 more boards with the plain board's rules: ScoreUpdate.also_boards
 *
 * Default points range (0 .. 2^31-1) and resolution (1 min), higher is better, earlier first,
 * default operation SET. The days written are the 7 days ending yesterday (UTC), so every
 * write's time is in the past and every key's expiry (8 days kept, + 6 for the windows) in the
 * future.
 */
import { create } from "@bufbuild/protobuf";
import { BoardDefinitionSchema } from "@ladder/proto/leaderboard/v1/admin_pb";
import { BoardRulesSchema, Operation, PeriodKind, WindowCombine, type BoardRules } from "@ladder/proto/leaderboard/v1/common_pb";
import { normalizeDefinition, specOfRules } from "@ladder/model/board-definitions";
import { storedBoardName, type BoardSpec } from "@ladder/model/board-spec";
import { periodAt, type Period } from "@ladder/model/periods";
import { encodeScoreEvent, type ResolvedBoard } from "@ladder/model/score-event";
import { resolveOp, updateProblem } from "@ladder/model/validate";
import { nextPeriod, previousPeriod, windowPlan } from "@ladder/model/windows";
import { keyLayout } from "@ladder/store";

/** Days written: every window key then holds what it holds in steady state. */
export const DAYS = 7;
export const KEEP_PERIODS = 8;
export const WINDOWS = [
  { name: "sum7", periods: 7, combine: WindowCombine.SUM },
  { name: "best7", periods: 7, combine: WindowCombine.BEST },
] as const;
/** Boards of ScoreUpdate.also_boards at most (ingest's MAX_ALSO_BOARDS). */
export const MAX_ALSO = 8;

export interface BenchBoard {
  name: string;
  rules: BoardRules;
  spec: BoardSpec;
}

export interface BenchBoards {
  windowed: BenchBoard;
  plain: BenchBoard;
  also: BenchBoard[];
}

/** The boards, created at `nowMs` (their generation). */
export function benchBoards(nowMs: number): BenchBoards {
  const define = (name: string, windows: boolean): BenchBoard => {
    const requested = create(BoardDefinitionSchema, {
      name,
      defaultOp: Operation.SET,
      rules: create(BoardRulesSchema, {
        period: PeriodKind.DAILY,
        timeZone: "UTC",
        keepPeriods: KEEP_PERIODS,
        windows: windows ? WINDOWS.map((w) => ({ ...w })) : [],
      }),
    });
    const { definition, problems } = normalizeDefinition(requested, nowMs);
    if (!definition) throw new Error(`board ${name}: ${problems.join("; ")}`);
    const { spec, problems: more } = specOfRules(name, definition.rules!, {
      defaultOp: definition.defaultOp,
      allowOpOverride: definition.allowOpOverride,
    });
    if (!spec) throw new Error(`board ${name}: ${more.join("; ")}`);
    return { name, rules: definition.rules!, spec };
  };
  return {
    windowed: define("boards-windowed", true),
    plain: define("boards-plain", false),
    also: Array.from({ length: MAX_ALSO }, (_, i) => define(`boards-also-${i + 1}`, false)),
  };
}

/** D1 .. D(DAYS + extra): the DAYS days ending yesterday (UTC), then `extra` days after them. */
export function benchDays(spec: BoardSpec, nowMs: number, extra: number): Period[] {
  const today = periodAt(spec.period, nowMs);
  const days = [previousPeriod(spec.period, today)];
  while (days.length < DAYS) days.unshift(previousPeriod(spec.period, days[0]!));
  while (days.length < DAYS + extra) days.push(nextPeriod(spec.period, days[days.length - 1]!));
  return days;
}

/** The Redis key of a board's period (or of its window `window` ending in that period) under `prefix`. */
export function boardKey(prefix: string, b: BenchBoard, period: string, window = ""): string {
  return keyLayout(prefix).board(storedBoardName(b.name, b.spec, period, window));
}

/**
 * One board of an update as ingest resolves it (resolveBoard): the operation allowed, the
 * update valid, the period of its time still kept, and on a board with windows the plan of
 * the periods around it (its period key outliving it for them).
 */
export function resolveBoard(b: BenchBoard, u: { playerId: string; value: number; timestampMs: number }, nowMs: number): ResolvedBoard {
  const resolved = resolveOp(Operation.UNSPECIFIED, b.spec);
  if ("problem" in resolved) throw new Error(`board ${b.name}: ${resolved.problem}`);
  const problem = updateProblem(
    { board: b.name, playerId: u.playerId, op: resolved.op, value: BigInt(u.value), timestampMs: BigInt(u.timestampMs), eventId: "" },
    b.spec,
    nowMs,
    0,
  );
  if (problem) throw new Error(`board ${b.name}: ${problem}`);
  const period = periodAt(b.spec.period, u.timestampMs);
  if (nowMs >= period.expireAtMs) throw new Error(`board ${b.name}: period ${period.id} is no longer kept`);
  if (b.spec.windows.length === 0) return { board: b.name, op: resolved.op, rules: b.rules, period };
  const windows = windowPlan(b.spec, period);
  return { board: b.name, op: resolved.op, rules: b.rules, period: { id: period.id, expireAtMs: windows.periodExpireAtMs }, windows };
}

/** A record's value as ingest writes it: a SET of `value` on `main`, and on each of `also` (ScoreUpdate.also_boards), without event id. */
export function encodeRecord(
  main: BenchBoard,
  also: readonly BenchBoard[],
  u: { playerId: string; value: number; timestampMs: number },
  nowMs: number,
): Buffer {
  const { board, op, ...rest } = resolveBoard(main, u, nowMs);
  const fields = { board, playerId: u.playerId, op, value: BigInt(u.value), timestampMs: BigInt(u.timestampMs), eventId: "" };
  return encodeScoreEvent(fields, nowMs, rest, { also: also.map((b) => resolveBoard(b, u, nowMs)) });
}
