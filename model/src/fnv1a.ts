/**
 * FNV-1a, 32 bits, over the UTF-8 bytes of a string: a small, fixed hash for choices that must
 * be the same in every process and release (not for placement: that is murmur3.ts).
 */

/** The 32-bit FNV-1a hash of `text`'s UTF-8 bytes, as an unsigned integer. */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h;
}
