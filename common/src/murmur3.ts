/**
 * MurmurHash3 x86 32-bit over bytes (Austin Appleby's public-domain algorithm).
 *
 * The placement of players on slots must never change between processes, releases or
 * languages, so the hash is a fixed, documented algorithm over the UTF-8 bytes of the
 * id, not a runtime's string hash. Known vectors are in the test beside this file.
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** The 32-bit MurmurHash3 of `bytes` with `seed`, as an unsigned integer. */
export function murmur3(bytes: Uint8Array, seed = 0): number {
  let h = seed >>> 0;
  const blocks = bytes.length & ~3;
  for (let i = 0; i < blocks; i += 4) {
    let k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const tail = bytes.length & 3;
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
  h ^= bytes.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const encoder = new TextEncoder();

/** MurmurHash3 of a string's UTF-8 bytes. */
export function murmur3String(text: string, seed = 0): number {
  return murmur3(encoder.encode(text), seed);
}
