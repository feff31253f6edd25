/**
 * The approx benchmark's histogram bounds: equal-depth buckets over the seeder's score law
 * (workload/score-distribution.ts), bound k of n at its k/(n+1) quantile, so the widest bound is
 * about players / (n+1) ranks anywhere on the board. Points are the law's values rounded, so a
 * bound is round(q + 0.5); duplicates and bounds outside (minPoints, maxPoints] are dropped, and a
 * histogram may get fewer bounds than asked (the caller checks how many). Method: approx.md.
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
  const tail = (q: number) =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < low) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - low) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/** The q-quantile of the seeded points' law before rounding: median · e^(sigma · Φ⁻¹(q)). */
export function scoreQuantile(shape: Pick<ScoreShape, "medianPoints" | "sigma">, q: number): number {
  return shape.medianPoints * Math.exp(shape.sigma * normalQuantile(q));
}

/** Up to n equal-depth bounds over the law (see the essay), strictly ascending, within (minPoints, maxPoints]. */
export function quantileBounds(
  shape: Pick<ScoreShape, "medianPoints" | "sigma">,
  n: number,
  range: { minPoints: number; maxPoints: number },
): number[] {
  const out: number[] = [];
  for (let k = 1; k <= n; k++) {
    const b = Math.round(scoreQuantile(shape, k / (n + 1)) + 0.5);
    if (b > range.minPoints && b <= range.maxPoints && (out.length === 0 || b > out.at(-1)!)) out.push(b);
  }
  return out;
}
