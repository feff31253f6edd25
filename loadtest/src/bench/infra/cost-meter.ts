/**
 * What a block of calls cost, and who paid: wall time, the router process's CPU, the shards'
 * Redis CPU and the scripts they ran (INFO commandstats: EVALSHA, EVAL and their _RO forms, one per read command
 * the router sent, a batch of reads counting once), the bench process's CPU,
 * the machine's busy time, and the part of it that is not the bench's (`others`: processes the
 * bench did not start, such as another engineer's tests on a shared machine), minus what the
 * same processes spend at rest.
 *
 * AT REST the cluster is not idle: shard nodes beat their heartbeats (a script on their Redis),
 * Redis runs its cron, the router follows the board definitions. Those rates are read over a
 * quiet interval (`idleRates`) and subtracted, per second of the block, from each block's
 * readings, so that a block's figures are what its calls added. Per call figures are then the
 * block's ÷ its calls.
 */
import { round3 } from "../output/format.js";

export const COST_FIELDS = ["routerS", "redisS", "redisScripts", "clientS", "machineS", "othersS"] as const;
type CostField = (typeof COST_FIELDS)[number];

/** Readings of totals so far (seconds of CPU, script calls), and the wall clock's seconds. */
export type CostReading = Record<CostField | "wallS", number>;
export type CostProbes = Record<CostField, () => Promise<number>>;
/** Per second of a quiet interval: what the processes spend at rest. */
export type IdleRates = Record<CostField, number>;

/** `f` of each field (the wall clock's too, for a reading). */
const each = <K extends string>(keys: readonly K[], f: (k: K) => number) =>
  Object.fromEntries(keys.map((k) => [k, f(k)])) as Record<K, number>;

export async function readCosts(probes: CostProbes, clock: () => number = () => performance.now()): Promise<CostReading> {
  const values = await Promise.all(COST_FIELDS.map((f) => probes[f]()));
  return { wallS: clock() / 1000, ...each(COST_FIELDS, (f) => values[COST_FIELDS.indexOf(f)]!) };
}

/** b − a, field by field. */
export function costDelta(a: CostReading, b: CostReading): CostReading {
  return each([...COST_FIELDS, "wallS"], (f) => b[f] - a[f]);
}

export function idleRates(quiet: CostReading): IdleRates {
  return each(COST_FIELDS, (f) => (quiet.wallS > 0 ? quiet[f] / quiet.wallS : 0));
}

/** One unit's share of a block (`units` of them) after the rest rates are taken out: ms of wall and CPU, scripts as a count. */
export function perUnit(block: CostReading, units: number, idle: IdleRates) {
  const extra = (f: CostField) => (block[f] - idle[f] * block.wallS) / units;
  const cores = (x: number) => round3(block.wallS > 0 ? x / block.wallS : 0);
  return {
    wallMs: round3((block.wallS * 1000) / units),
    routerMs: round3(extra("routerS") * 1000),
    redisMs: round3(extra("redisS") * 1000),
    redisScripts: round3(extra("redisScripts")),
    clientMs: round3(extra("clientS") * 1000),
    // the machine's busy cores during the block (rest included): how loaded the 2 cores were
    machineCores: cores(block.machineS),
    // of those, the cores of processes the bench did not start (rest included)
    othersCores: cores(block.othersS),
  };
}
