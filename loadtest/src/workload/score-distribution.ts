/**
 * Synthetic scores: how many points a player has and when they reached them.
 *
 * Points follow a log-normal law rounded to integers: most players sit within an order of
 * magnitude of the median, a few are far ahead, and with integer points many players
 * share the same points (ties), which is what makes the board's tie-break by time and id
 * matter. With the defaults (median 1,000, sigma 1.5) and 1M players, the most common
 * point values (near 100) are each held by about 800 players. Values are clamped to the board's
 * [minPoints, maxPoints].
 *
 * Reached-at times are uniform over a window that ends now (or at the board's horizon, if
 * earlier) and starts `windowMs` before, never before the board's epoch.
 */
import type { BoardSpec } from "@ladder/model/board-spec";
import type { Rng } from "./rng.js";

export interface ScoreShape {
  /** Median points (the log-normal's e^mu). */
  medianPoints: number;
  /** Standard deviation of ln(points). */
  sigma: number;
  /** Length of the reached-at window, ms. */
  windowMs: number;
}

export const DEFAULT_SCORE_SHAPE: ScoreShape = Object.freeze({
  medianPoints: 1000,
  sigma: 1.5,
  windowMs: 30 * 24 * 3600_000, // 30 days
});

export interface ScoreDraw {
  points: number;
  reachedAtMs: number;
}

export interface ScoreSource {
  /** Points only (for writes whose time the server sets). */
  points(rng: Rng): number;
  /** Points and a reached-at time within the board's range. */
  draw(rng: Rng): ScoreDraw;
}

/** Today 00:00 UTC: where seeded reached-at times end by default (fixed for a day: reproducible). */
export function todayUtcMs(now = new Date()): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
}

/** Scores for a board of `spec`, with times ending at `nowMs`. */
export function scoreSource(spec: BoardSpec, shape: ScoreShape, nowMs: number): ScoreSource {
  const mu = Math.log(shape.medianPoints);
  const end = Math.min(nowMs, spec.horizonMs - 1);
  const start = Math.max(spec.epochMs, end - shape.windowMs);
  if (end < spec.epochMs) throw new RangeError(`board time range starts after now (${new Date(spec.epochMs).toISOString()})`);
  const points = (rng: Rng) => {
    const raw = Math.round(Math.exp(mu + shape.sigma * rng.nextGaussian()));
    return Math.min(spec.maxPoints, Math.max(spec.minPoints, raw));
  };
  return {
    points,
    draw: (rng) => ({ points: points(rng), reachedAtMs: start + Math.floor(rng.nextDouble() * (end - start + 1)) }),
  };
}
