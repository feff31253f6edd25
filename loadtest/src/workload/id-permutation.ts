/**
 * A keyed bijection of [0, n) onto itself, computed in O(1) without tables: it scrambles
 * Zipf ranks so that the hot players (ranks 1, 2, 3, ...) land at unrelated places of the id
 * space, and so on different slots and shards, instead of being p:000000000000,
 * p:000000000001, ... which a real game would never produce.
 *
 * A balanced Feistel network over 2·half bits (2^(2·half) >= n) is a bijection of
 * [0, 4^half) for any round function. Values that land at or above n are pushed through the
 * network again ("cycle walking", Black and Rogaway 2002) until they fall inside [0, n):
 * the result is a bijection of [0, n). Since 4^half < 4n, fewer than 4 passes are needed on
 * average. half <= 26, so n may be up to 2^52.
 */
import { fmix32 } from "./rng.js";

const ROUNDS = 4;

export interface IdPermutation {
  /** The image of i in [0, n). */
  apply(i: number): number;
}

/** A permutation of [0, n) keyed by `key`. */
export function idPermutation(n: number, key: number): IdPermutation {
  if (!Number.isSafeInteger(n) || n < 1 || n > 2 ** 52) throw new RangeError(`permutation: n must be an integer in [1, 2^52], got ${n}`);
  let half = 1;
  while (4 ** half < n) half++;
  const size = 2 ** half;
  const keys = Array.from({ length: ROUNDS }, (_, r) => fmix32((key >>> 0) ^ fmix32(r + 1)));
  const round = (x: number, r: number) => roundFunction(x, keys[r]!) % size;
  const once = (v: number) => {
    let left = Math.floor(v / size);
    let right = v % size;
    for (let r = 0; r < ROUNDS; r++) {
      const next = (left + round(right, r)) % size;
      left = right;
      right = next;
    }
    return left * size + right;
  };
  return {
    apply(i) {
      let v = once(i);
      while (v >= n) v = once(v);
      return v;
    },
  };
}

/** A 32-bit round function of a value below 2^26 and a round key. */
function roundFunction(x: number, key: number): number {
  return fmix32(Math.imul(x ^ key, 0x27d4eb2d) ^ (x >>> 13));
}
