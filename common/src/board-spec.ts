/**
 * Board specs: each board's declared points range, time resolution and epoch, which fix
 * its score encoding (see score-encoding.ts), and its optional TTL.
 *
 * Specs are matched by the longest board-name prefix; the spec with prefix "" is the
 * default and always exists. A spec must never change for a board that holds data.
 */

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
  /** Derived: 2^timeBits, the number of time units the board covers. */
  readonly timeUnits: number;
  /** Derived: end of the time range, exclusive (Unix ms). */
  readonly horizonMs: number;
}

export type BoardSpecInput = Omit<BoardSpec, "timeUnits" | "horizonMs" | "ttlSeconds"> & { ttlSeconds?: number };

const MAX_EXACT_BITS = 53;

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
  const where = `board spec "${prefix}"`;
  if (!Number.isSafeInteger(minPoints) || !Number.isSafeInteger(maxPoints) || minPoints > maxPoints)
    problems.push(`${where}: minPoints and maxPoints must be integers with minPoints <= maxPoints`);
  if (!Number.isSafeInteger(resolutionMs) || resolutionMs < 1) problems.push(`${where}: resolutionMs must be a positive integer`);
  if (!Number.isSafeInteger(epochMs) || epochMs < 0) problems.push(`${where}: epochMs must be a non-negative integer`);
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 0) problems.push(`${where}: ttlSeconds must be a non-negative integer`);
  if (problems.length) return { problems };
  const pointsBits = bitLength(BigInt(maxPoints) - BigInt(minPoints)); // bits of the largest pointsIdx
  const timeBits = MAX_EXACT_BITS - pointsBits;
  if (timeBits < 1) return { problems: [`${where}: points range leaves no bits for time (53-bit budget)`] };
  const timeUnits = 2 ** timeBits;
  const spec: BoardSpec = Object.freeze({
    prefix, minPoints, maxPoints, resolutionMs, epochMs, ttlSeconds, timeUnits,
    horizonMs: epochMs + timeUnits * resolutionMs,
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
