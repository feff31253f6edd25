// What the tests of reads under motion share (reshard.int, push.int): a board of static players that
// never move and hot players that do, its order written out here (points desc, reached-at asc, player id
// bytes asc: not imported from the implementation), and a small seeded random source.

export interface Standing {
  playerId: string;
  points: number;
  reachedAtMs: number;
}

const utf8 = (s: string) => Buffer.from(s, "utf8");

/** The board's order: < 0 when a ranks ahead of b. */
export function order(a: Standing, b: Standing): number {
  if (a.points !== b.points) return b.points - a.points;
  if (a.reachedAtMs !== b.reachedAtMs) return a.reachedAtMs - b.reachedAtMs;
  return Buffer.compare(utf8(a.playerId), utf8(b.playerId));
}

/** The number of `sorted` (in board order) strictly ahead of `e`: a binary search. */
export function aheadOf(sorted: readonly Standing[], e: Standing): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (order(sorted[mid]!, e) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A deterministic random source: rand() in [0, 1), randInt(lo, hi) inclusive. */
export function seeded(seed: number): { rand(): number; randInt(lo: number, hi: number): number } {
  let s = seed;
  const rand = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  return { rand, randInt: (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1)) };
}
