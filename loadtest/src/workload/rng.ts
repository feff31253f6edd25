/**
 * A small, fast, seedable pseudo-random generator (sfc32, Chris Doty-Humphrey's "small fast
 * chaotic" generator, 128 bits of state, period at least 2^32), so that a workload or a seed
 * is reproducible from `--seed`. Math.random cannot be seeded.
 *
 * Streams: `rngFor(seed, stream)` derives an independent generator for each (seed, stream)
 * pair by mixing both through murmur3's finalizer, so work split into fixed chunks (a chunk
 * index as the stream) produces the same numbers however the chunks are scheduled.
 */

export interface Rng {
  /** A uniform 32-bit unsigned integer. */
  nextUint32(): number;
  /** A uniform double in [0, 1) with 53 random bits. */
  nextDouble(): number;
  /** A uniform integer in [0, n), n <= 2^32. */
  nextInt(n: number): number;
  /** A standard normal deviate (mean 0, standard deviation 1). */
  nextGaussian(): number;
}

/** murmur3's 32-bit finalizer: a bijective avalanche of x. */
export function fmix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** A generator for stream `stream` of seed `seed` (both any non-negative integers < 2^53). */
export function rngFor(seed: number, stream = 0): Rng {
  const lo = (n: number) => n >>> 0;
  const hi = (n: number) => Math.floor(n / 2 ** 32) >>> 0;
  let a = fmix32(lo(seed) ^ 0x9e3779b9);
  let b = fmix32(hi(seed) ^ fmix32(lo(stream) + 0x7f4a7c15));
  let c = fmix32(hi(stream) ^ fmix32(a ^ 0x85ebca6b));
  let d = 1;
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) next(); // warm-up: leave the seeding's structure behind
  const double = () => ((next() >>> 5) * 67108864 + (next() >>> 6)) / 9007199254740992; // 27 + 26 bits / 2^53
  let spare: number | undefined;
  return {
    nextUint32: next,
    nextDouble: double,
    nextInt: (n) => Math.floor(double() * n),
    nextGaussian() {
      if (spare !== undefined) {
        const s = spare;
        spare = undefined;
        return s;
      }
      // Marsaglia's polar method: two deviates per accepted pair.
      let u: number, v: number, q: number;
      do {
        u = 2 * double() - 1;
        v = 2 * double() - 1;
        q = u * u + v * v;
      } while (q >= 1 || q === 0);
      const f = Math.sqrt((-2 * Math.log(q)) / q);
      spare = v * f;
      return u * f;
    },
  };
}
