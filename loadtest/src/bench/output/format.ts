/**
 * How figures are written in the bench's tables: counts with thousands separators, sizes
 * as 1M/10M, latencies in ms with sensible precision, ratios as "12.3x".
 */

const int = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** 1234567 -> "1,234,567". */
export function count(n: number): string {
  return int.format(Math.round(n));
}

/** 1_000_000 -> "1M", 20_000 -> "20k", 1_500_000 -> "1.5M". */
export function size(n: number): string {
  const unit = (d: number, s: string) => `${Number((n / d).toFixed(1))}${s}`;
  if (n >= 1e9) return unit(1e9, "G");
  if (n >= 1e6) return unit(1e6, "M");
  if (n >= 1e3) return unit(1e3, "k");
  return String(n);
}

/** A rate (per second): whole numbers from 100, else 3 significant digits. */
export function rate(perSec: number): string {
  if (!Number.isFinite(perSec)) return "—";
  return perSec >= 100 ? count(perSec) : String(Number(perSec.toPrecision(3)));
}

/** A latency in ms, written as a rate is: 3 significant digits below 100 ms, whole ms above. */
export const ms = rate;

/** a / b as "12.3x" (3 significant digits, whole numbers from 1000x); "—" when undefined. */
export function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !(b > 0) || !Number.isFinite(a)) return "—";
  const r = a / b;
  return `${r >= 1000 ? count(r) : String(Number(r.toPrecision(3)))}x`;
}

/** A whole number with separators, a share as a whole percentage (0.583 -> "58%"); "—" when not a number. */
const finite = (x: number | undefined): x is number => x !== undefined && Number.isFinite(x);
export const whole = (x: number | undefined): string => (finite(x) ? count(x) : "—");
export const pct = (x: number | undefined): string => (finite(x) ? `${Math.round(x * 100)}%` : "—");

/** x rounded to 2 or 3 decimals, as a number: the figures the JSON keeps. */
export const round2 = (x: number): number => Math.round(x * 100) / 100;
export const round3 = (x: number): number => Math.round(x * 1000) / 1000;
