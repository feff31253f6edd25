/**
 * Board specs: each board's sort order, tie rule, declared points range, time resolution
 * and epoch, which fix its score encoding (see score-encoding.ts), and its optional TTL.
 *
 * Two sources. A board defined through AdminService.CreateBoard (board-definitions.ts) has
 * its own spec, with a generation >= 0: its keys are named by generation, and every record
 * written to it carries its rules. A board without a definition (LADDER_IMPLICIT_BOARDS)
 * takes the configured spec (LADDER_BOARDS) matched by the longest board-name prefix; the
 * spec with prefix "" is the default and always exists; these are higher-is-better,
 * earliest-first, generation -1. A spec must never change for a board that holds data.
 */
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { periodRuleProblem, type PeriodRule } from "./periods.js";
import type { Retention } from "./retention.js";
import type { League } from "./leagues.js";
import type { Team } from "./teams.js";
import { COLUMN_TIME_UNITS, type Column } from "./columns.js";

export type WindowCombine = "sum" | "best";

/** A window of a board (windows.ts builds them), with the encoding its entries are stored in. */
export interface WindowSpec {
  readonly name: string;
  /** Consecutive periods it spans, ending with the period read. */
  readonly periods: number;
  readonly combine: WindowCombine;
  /**
   * How its entries are stored: the board's own spec for BEST; for SUM a spec with the widened
   * points range and epochMs 0, time being counted from the window's first period (windowEpochMs).
   */
  readonly encoding: BoardSpec;
}

/** How equal points are ordered: earlier reached first, later reached first, or player id only. */
export type TieRule = "earliest" | "latest" | "id";

/** A board's declared limits, with the encoding constants derived from them. */
export interface BoardSpec {
  /** Board-name prefix this spec applies to ("" = every board not matched otherwise). */
  readonly prefix: string;
  /** Lowest points a player can hold. */
  readonly minPoints: number;
  /** Highest points a player can hold. */
  readonly maxPoints: number;
  /** Time unit of the tie-break, in ms: times within one unit tie and fall to player id. */
  readonly resolutionMs: number;
  /** Start of the board's time range (Unix ms). */
  readonly epochMs: number;
  /** Seconds a board key lives after its first write (0 = forever): for period boards. */
  readonly ttlSeconds: number;
  /** Lower points rank first (a speedrun's time) instead of higher. */
  readonly lowerIsBetter: boolean;
  /** How equal points are ordered. */
  readonly tie: TieRule;
  /** A defined board's generation (its keys are named by it); -1 for a board without a definition. */
  readonly generation: number;
  /** The operation of a write that names none; UNSPECIFIED (boards without a definition): a write must name one. */
  readonly defaultOp: Operation;
  /** Whether a write may name another operation than defaultOp (always, without a definition). */
  readonly allowOpOverride: boolean;
  /** When the board starts over (periods.ts); kind "none" for an all-time board (every board without a definition). */
  readonly period: Readonly<PeriodRule>;
  /** The most bytes of metadata a write may keep with an entry (0: none; every board without a definition). */
  readonly maxMetadataBytes: number;
  /** The most points one write may bring (BoardDefinition.score_ceiling; 0: no ceiling, every board without a definition). */
  readonly scoreCeiling: number;
  /** Where histogram buckets start, in points, ascending (histogram.ts); none: no histogram. */
  readonly histogram: readonly number[];
  /** Windows over consecutive periods (windows.ts); none on a board without a definition. */
  readonly windows: readonly WindowSpec[];
  /** Retention (retention.ts: keep_top, keep_margin resolved, expire_inactive_ms); all 0 on a board without a definition. */
  readonly retention: Readonly<Retention>;
  /** A league's rules (leagues.ts): its periods are split into cohorts; absent on every other board. */
  readonly league?: Readonly<League>;
  /** A team board's rules (teams.ts): its entries are teams kept from their members' points; absent on every other board. */
  readonly team?: Readonly<Team>;
  /**
   * A board with several sort columns (columns.ts): its entries are ordered by these, then the tie
   * rule; points range and ceiling do not apply. Absent on a one-column board.
   */
  readonly columns?: readonly Column[];
  /** Derived: 2^timeBits, the number of time units the board covers. */
  readonly timeUnits: number;
  /** Derived: end of the time range, exclusive (Unix ms). */
  readonly horizonMs: number;
}

type Derived = "timeUnits" | "horizonMs";
type Defaulted =
  | "ttlSeconds"
  | "lowerIsBetter"
  | "tie"
  | "generation"
  | "defaultOp"
  | "allowOpOverride"
  | "period"
  | "windows"
  | "maxMetadataBytes"
  | "scoreCeiling"
  | "histogram"
  | "retention";
export type BoardSpecInput = Omit<BoardSpec, Derived | Defaulted> & Partial<Pick<BoardSpec, Defaulted>>;

const MAX_EXACT_BITS = 53;
const NONE: readonly WindowSpec[] = Object.freeze([]);
const NO_BOUNDS: readonly number[] = Object.freeze([]);
const NO_RETENTION: Readonly<Retention> = Object.freeze({ keepTop: 0, keepMargin: 0, expireInactiveMs: 0 });

/** 2026-01-01T00:00:00Z, the default epoch. */
export const DEFAULT_EPOCH_MS = Date.UTC(2026, 0, 1);

/** The default board: points 0..2^31-1 (int32), 1-minute resolution, until 2033-12-22. */
export const DEFAULT_BOARD: BoardSpecInput = {
  prefix: "",
  minPoints: 0,
  maxPoints: 2 ** 31 - 1,
  resolutionMs: 60_000, // 1 min
  epochMs: DEFAULT_EPOCH_MS,
};

/** Validates a spec and derives its encoding constants; returns the problems it finds. */
export function makeBoardSpec(input: BoardSpecInput): { spec?: BoardSpec; problems: string[] } {
  const problems: string[] = [];
  const { prefix, minPoints, maxPoints, resolutionMs, epochMs } = input;
  const ttlSeconds = input.ttlSeconds ?? 0;
  const generation = input.generation ?? -1;
  const where = generation >= 0 ? `board "${prefix}"` : `board spec "${prefix}"`;
  // a defined board's problems name BoardRules' proto fields, a spec of LADDER_BOARDS its JSON keys
  const [min, max, resolution, epoch] =
    generation >= 0
      ? ["rules.min_points", "rules.max_points", "rules.resolution_ms", "rules.epoch_ms"]
      : ["minPoints", "maxPoints", "resolutionMs", "epochMs"];
  if (!Number.isSafeInteger(minPoints) || !Number.isSafeInteger(maxPoints) || minPoints > maxPoints)
    problems.push(`${where}: ${min} and ${max} must be integers with ${min} <= ${max}, got ${minPoints} and ${maxPoints}`);
  if (!Number.isSafeInteger(resolutionMs) || resolutionMs < 1)
    problems.push(`${where}: ${resolution} must be a positive integer, got ${resolutionMs}`);
  if (!Number.isSafeInteger(epochMs) || epochMs < 0) problems.push(`${where}: ${epoch} must be a non-negative integer, got ${epochMs}`);
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 0)
    problems.push(`${where}: ttlSeconds must be a non-negative integer, got ${ttlSeconds}`);
  const period = Object.freeze({ ...ALL_TIME, ...input.period });
  const periodProblem = periodRuleProblem(period);
  if (periodProblem) problems.push(`${where}: ${periodProblem}`);
  if (problems.length) return { problems };
  const pointsBits = bitLength(BigInt(maxPoints) - BigInt(minPoints)); // bits of the largest pointsIdx
  const timeBits = MAX_EXACT_BITS - pointsBits;
  if (timeBits < 1) return { problems: [`${where}: points range leaves no bits for time (53-bit budget)`] };
  // a board with columns keeps its time in a member part of its own, 48 bits (columns.ts)
  const timeUnits = input.columns ? COLUMN_TIME_UNITS : 2 ** timeBits;
  const spec: BoardSpec = Object.freeze({
    prefix,
    minPoints,
    maxPoints,
    resolutionMs,
    epochMs,
    ttlSeconds,
    timeUnits,
    horizonMs: Math.min(epochMs + timeUnits * resolutionMs, Number.MAX_SAFE_INTEGER),
    lowerIsBetter: input.lowerIsBetter ?? false,
    tie: input.tie ?? "earliest",
    generation,
    defaultOp: input.defaultOp ?? Operation.UNSPECIFIED,
    allowOpOverride: input.allowOpOverride ?? true,
    period,
    windows: input.windows ?? NONE,
    maxMetadataBytes: input.maxMetadataBytes ?? 0,
    scoreCeiling: input.scoreCeiling ?? 0,
    histogram: input.histogram ?? NO_BOUNDS,
    retention: input.retention ?? NO_RETENTION,
    ...(input.league ? { league: input.league } : {}),
    ...(input.team ? { team: input.team } : {}),
    ...(input.columns ? { columns: Object.freeze(input.columns.map((c) => Object.freeze({ ...c }))) } : {}),
  });
  return { spec, problems };
}

/**
 * Bits needed to write `n` (>= 0) in binary: 0 for 0, 1 for 1, 2 for 2..3, 49 for 2^48.
 * Integer arithmetic: Math.ceil(Math.log2(n + 1)) rounds 2^48 + 1 down to 48 bits.
 */
export function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** The period rule of an all-time board. */
export const ALL_TIME: Readonly<PeriodRule> = Object.freeze({ kind: "none", zone: "UTC", cron: "", keep: 0 });

/**
 * The name a board's keys are stored under: a defined board's name and generation ("#" is not
 * allowed in board names), so a board defined again after a deletion, or defined over a name
 * once written without a definition, never shares keys with what was there before; then, on a
 * board with periods, "@" and the period's name; a window (windows.ts) ending in that period has
 * "~" and the window's name before it ("speedrun#1796000000000~7d@2026-11-30").
 */
export function storedBoardName(board: string, spec: Pick<BoardSpec, "generation">, period = "", window = ""): string {
  return (spec.generation >= 0 ? `${board}#${spec.generation}` : board) + (window ? `~${window}` : "") + (period ? `@${period}` : "");
}

/** Finds the spec of a board: undefined when the board is not defined and boards without a definition are not allowed. */
export interface BoardResolver {
  forBoard(board: string): BoardSpec | undefined;
}

/** Board specs by prefix, longest match first. */
export class BoardSpecs {
  private readonly byLength: readonly BoardSpec[];

  constructor(specs: readonly BoardSpec[]) {
    if (!specs.some((s) => s.prefix === "")) throw new Error('board specs need a default (prefix "")');
    this.byLength = [...specs].sort((a, b) => b.prefix.length - a.prefix.length);
  }

  /** The spec that governs `board`. */
  forBoard(board: string): BoardSpec {
    return this.byLength.find((s) => board.startsWith(s.prefix))!;
  }

  /** Every spec, longest prefix first. */
  all(): readonly BoardSpec[] {
    return this.byLength;
  }
}
