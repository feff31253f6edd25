/**
 * The histogram bounds of the approx benchmark's boards, chosen over the score law the seeder
 * draws from (workload/score-distribution.ts: points = round(median · e^(sigma · Z)), Z standard
 * normal, clamped to the board's range).
 *
 * EQUAL-DEPTH BUCKETS. n bounds make n + 1 buckets; the bound k (k = 1..n) is put at the
 * k/(n+1) quantile of that law, so each bucket holds about 1/(n+1) of the players. The exact rank
 * lies within one bucket's players (GetApproximateRank's bounds), so equal depth makes the widest
 * bound as narrow as n bounds can make it anywhere on the board: about players / (n+1) ranks.
 * (Geometric spacing, the other natural choice for a log-normal law, puts as many bounds in the
 * empty tails as in the crowded middle.)
 *
 * ROUNDING. Points are the law's values rounded to integers, so points < b exactly when the raw
 * value < b − 0.5: the bound is the integer b with b − 0.5 nearest to the quantile q, i.e.
 * round(q + 0.5). Where the law is narrower than one point per bucket (a small median with a wide
 * sigma), rounded bounds collide: the duplicates, and bounds outside (minPoints, maxPoints], are
 * dropped, so a histogram may get fewer bounds than asked (the caller checks how many).
 */
import type { ScoreShape } from "../../workload/score-distribution.js";

/**
 * Φ⁻¹(p): the standard normal quantile, 0 < p < 1 (P. J. Acklam's rational approximation,
 * relative error below 1.2e-9).
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p = ${p} is not in (0, 1)`);
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  const tail = (q: number) => (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < low) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - low) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/** The q-quantile of the seeded points' law before rounding: median · e^(sigma · Φ⁻¹(q)). */
export function scoreQuantile(shape: Pick<ScoreShape, "medianPoints" | "sigma">, q: number): number {
  return shape.medianPoints * Math.exp(shape.sigma * normalQuantile(q));
}

/** Up to n equal-depth bounds over the law (see the essay), strictly ascending, within (minPoints, maxPoints]. */
export function quantileBounds(shape: Pick<ScoreShape, "medianPoints" | "sigma">, n: number, range: { minPoints: number; maxPoints: number }): number[] {
  const out: number[] = [];
  for (let k = 1; k <= n; k++) {
    const b = Math.round(scoreQuantile(shape, k / (n + 1)) + 0.5);
    if (b > range.minPoints && b <= range.maxPoints && (out.length === 0 || b > out.at(-1)!)) out.push(b);
  }
  return out;
}
