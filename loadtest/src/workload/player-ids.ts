/**
 * Player ids of the synthetic population: "p:" and the player's index, zero-padded to 12
 * digits (p:000000123456): every id has the same 14 bytes (the ids the Redis memory figures
 * of the infrastructure notes were measured with) and ids sort like their indexes. The loadtest and the seeder use the
 * same ids, so a loadtest over `--players N` finds every player a seed of N wrote.
 *
 * Who is active: `activePlayers(n, s, key)` draws ranks from a Zipf(s) law and maps them
 * through a keyed permutation of the id space, so the hottest players are scattered.
 */
import { idPermutation } from "./id-permutation.js";
import { rngFor, type Rng } from "./rng.js";
import { zipfSampler } from "./zipf-sampler.js";

/** Largest id space: 10^12 ids fit the 12 digits. */
export const MAX_PLAYERS = 1e12;
const DIGITS = 12;

/** The id of player `index` (0-based). */
export function playerId(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0 || index >= MAX_PLAYERS) throw new RangeError(`player index out of range: ${index}`);
  return "p:" + String(index).padStart(DIGITS, "0");
}

export interface PlayerChooser {
  /** The index (0-based) of the next active player. */
  nextIndex(rng: Rng): number;
}

/**
 * Chooses players of [0, n) with Zipf(exponent) activity: rank r (1 = most active) is
 * player permutation(r - 1). `key` fixes which players are hot.
 */
export function activePlayers(n: number, exponent: number, key: number): PlayerChooser {
  const zipf = zipfSampler(n, exponent);
  const permutation = idPermutation(n, key);
  return { nextIndex: (rng) => permutation.apply(zipf.sample(rng) - 1) };
}

/** `n` distinct players drawn uniformly from the first `players` of the population. */
export function distinctPlayers(seed: number, stream: number, n: number, players: number): string[] {
  const rng = rngFor(seed, stream);
  const out = new Set<string>();
  while (out.size < n) out.add(playerId(rng.nextInt(players)));
  return [...out];
}
