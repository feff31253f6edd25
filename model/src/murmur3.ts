/**
 * MurmurHash3 x86 32-bit over bytes (Austin Appleby's public-domain algorithm).
 *
 * The placement of players on slots must never change between processes, releases or
 * languages, so the hash is a fixed, documented algorithm over the UTF-8 bytes of the
 * id, not a runtime's string hash. Known vectors are in the test beside this file.
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** The 32-bit MurmurHash3 of `bytes` (its first `length`) with `seed`, as an unsigned integer. */
export function murmur3(bytes: Uint8Array, seed = 0, length = bytes.length): number {
  let h = seed >>> 0;
  const blocks = length & ~3;
  for (let i = 0; i < blocks; i += 4) {
    let k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const tail = length & 3;
  if (tail > 0) {
    let k = 0;
    if (tail === 3) k ^= bytes[blocks + 2]! << 16;
    if (tail >= 2) k ^= bytes[blocks + 1]! << 8;
    k ^= bytes[blocks]!;
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
  }
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const encoder = new TextEncoder();
/** Where an ASCII id's bytes are written to be hashed: ids are short, and this runs for every record and every rank. */
const scratch = new Uint8Array(256);

/**
 * MurmurHash3 of a string's UTF-8 bytes. An ASCII string up to 256 characters (every id in practice)
 * is its own UTF-8: its char codes go into a reused buffer; anything else is encoded (TextEncoder,
 * ~10x the cost of the hash itself: 3.4% of ingest's CPU before this path, 2026-12-03).
 */
export function murmur3String(text: string, seed = 0): number {
  const n = text.length;
  if (n <= scratch.length) {
    let i = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) break;
      scratch[i] = c;
    }
    if (i === n) return murmur3(scratch, seed, n);
  }
  return murmur3(encoder.encode(text), seed);
}
