/**
 * How the batch benchmark's Node client asks: a unit of work (100 ranks, 5 standings, a page)
 * repeated one after another, each timed from its first send to its last answer; the calls of a
 * unit one after another, or with up to k in flight. And how rates of single calls add up to a
 * set of different calls (one GetRank per board).
 */

/** Runs call(0) .. call(n-1) with at most `k` in flight; the answers in call order. */
export async function inFlight<T>(n: number, k: number, call: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      out[i] = await call(i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(k, n)) }, worker));
  return out;
}

/** `unit(rep)` for rep = 0 .. reps-1, one after another; the time each took, ms. */
export async function timeReps(
  reps: number,
  unit: (rep: number) => Promise<unknown>,
  clock: () => number = () => performance.now(),
): Promise<number[]> {
  const ms: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const t0 = clock();
    await unit(rep);
    ms.push(clock() - t0);
  }
  return ms;
}

/**
 * A set made of one call of each kind, at the rates each kind was measured at alone (calls/s):
 * the time a set takes is the sum of its calls' times, so sets/s = 1 / Σ 1/rate. Likewise its
 * CPU is the sum of the calls' CPU.
 */
export function setRate(rates: readonly number[]): number {
  if (rates.length === 0 || rates.some((r) => !(r > 0))) return NaN;
  return 1 / rates.reduce((s, r) => s + 1 / r, 0);
}
