/**
 * The batch benchmark's daily board: defined through AdminService.CreateBoard as a game would
 * (UTC days, 7 past days kept, the default points range and 1-minute resolution, SET), with two
 * 7-day windows, sum7 (SUM) and best7 (BEST), and written through ingest's SubmitScores: every
 * player of it scores once yesterday and once today, so each window ending today combines two
 * days. Its players are a subset of the all-time board's (every `stride`-th seeded player), so
 * one player stands on five boards: the all-time board, today, yesterday, sum7 and best7.
 *
 * Player i's two scores depend only on (seed, i): log-normal points (median 1,000, as the
 * seeder's) at a time uniform within the day, today's before now.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { BoardSpec } from "@ladder/model/board-spec";
import { Operation, PeriodKind, WindowCombine } from "@ladder/proto/leaderboard/v1/common_pb";
import type { BoardDefinitionSchema } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { ScoreUpdateSchema } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { playerId } from "../../workload/player-ids.js";
import { rngFor } from "../../workload/rng.js";
import { DEFAULT_SCORE_SHAPE, scoreSource } from "../../workload/score-distribution.js";

export const DAILY_WINDOWS = [
  { name: "sum7", combine: "sum" },
  { name: "best7", combine: "best" },
] as const;
const KEEP_PERIODS = 7;
/** Random streams of the daily board's scores: one per player, far from the bench's other streams. */
const STREAM_BASE = 1_000_000;

export function dailyDefinition(name: string): MessageInitShape<typeof BoardDefinitionSchema> {
  return {
    name,
    defaultOp: Operation.SET,
    allowOpOverride: false,
    rules: {
      period: PeriodKind.DAILY,
      keepPeriods: KEEP_PERIODS,
      windows: DAILY_WINDOWS.map((w) => ({
        name: w.name,
        periods: 7,
        combine: w.combine === "sum" ? WindowCombine.SUM : WindowCombine.BEST,
      })),
    },
  };
}

/** A day written: its period id, and the times its scores may take, [fromMs, toMs]. */
export interface DayWritten {
  id: string;
  fromMs: number;
  toMs: number;
}

/** The days to write from ListPeriods' periods (current first): yesterday, then today up to `nowMs` (exclusive). */
export function daysWritten(
  periods: ReadonlyArray<{ id: string; startMs: bigint; endMs: bigint }>,
  nowMs: number,
): [DayWritten, DayWritten] {
  const [today, yesterday] = periods;
  if (!today || !yesterday) throw new Error(`the daily board lists ${periods.length} periods: a current one and yesterday are needed`);
  const day = (p: { id: string; startMs: bigint; endMs: bigint }, until: number): DayWritten => {
    const fromMs = Number(p.startMs);
    return { id: p.id, fromMs, toMs: Math.max(fromMs, Math.min(Number(p.endMs), until) - 1) };
  };
  return [day(yesterday, Infinity), day(today, nowMs - 1000)];
}

/** Player i's score on each day (points, time within the day). */
export function dailyScores(
  seed: number,
  index: number,
  days: readonly DayWritten[],
  spec: BoardSpec,
): Array<{ points: number; reachedAtMs: number }> {
  const rng = rngFor(seed, STREAM_BASE + index);
  return days.map((d) => scoreSource(spec, { ...DEFAULT_SCORE_SHAPE, windowMs: d.toMs - d.fromMs }, d.toMs).draw(rng));
}

/** The daily board's players: every `stride`-th index of the seeded population, `count` of them. */
export function dailyPlayerIndexes(count: number, stride: number): number[] {
  return Array.from({ length: count }, (_, i) => i * stride);
}

/** The SubmitScores batches writing `indexes`' scores on every day (SET, no event id), `batch` updates each. */
export function* dailyBatches(
  board: string,
  seed: number,
  indexes: readonly number[],
  days: readonly DayWritten[],
  spec: BoardSpec,
  batch: number,
): Generator<Array<MessageInitShape<typeof ScoreUpdateSchema>>> {
  let out: Array<MessageInitShape<typeof ScoreUpdateSchema>> = [];
  for (const i of indexes) {
    const id = playerId(i);
    for (const s of dailyScores(seed, i, days, spec)) {
      out.push({ board, playerId: id, op: Operation.SET, value: BigInt(s.points), timestampMs: BigInt(s.reachedAtMs) });
      if (out.length >= batch) {
        yield out;
        out = [];
      }
    }
  }
  if (out.length) yield out;
}
