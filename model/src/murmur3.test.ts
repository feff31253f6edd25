import { describe, expect, it } from "vitest";
import { murmur3, murmur3String } from "./murmur3.js";

describe("model > murmur3", () => {
  // Reference vectors of MurmurHash3_x86_32 (SMHasher / widely published).
  it("matches the published vectors", () => {
    expect(murmur3(new Uint8Array(0), 0)).toBe(0);
    expect(murmur3(new Uint8Array(0), 1)).toBe(0x514e28b7);
    expect(murmur3(new Uint8Array(0), 0xffffffff)).toBe(0x81f16f39);
    expect(murmur3(new Uint8Array([0xff, 0xff, 0xff, 0xff]), 0)).toBe(0x76293b50);
    expect(murmur3(new Uint8Array([0x21, 0x43, 0x65, 0x87]), 0)).toBe(0xf55b516b);
    expect(murmur3(new Uint8Array([0x21, 0x43, 0x65]), 0)).toBe(0x7e4a8634);
    expect(murmur3(new Uint8Array([0x21, 0x43]), 0)).toBe(0xa0f7b07a);
    expect(murmur3(new Uint8Array([0x21]), 0)).toBe(0x72661cf4);
    expect(murmur3String("Hello, world!", 1234)).toBe(0xfaf6cdb3);
    expect(murmur3String("The quick brown fox jumps over the lazy dog", 0x9747b28c)).toBe(0x2fa826cd);
  });

  it("hashes the UTF-8 bytes of non-ASCII ids", () => {
    expect(murmur3String("joueur-é")).toBe(murmur3(new TextEncoder().encode("joueur-é")));
    expect(murmur3String("joueur-é")).not.toBe(murmur3String("joueur-e"));
  });

  it("hashes ASCII ids through the reused buffer exactly as their encoded bytes, at every length around its size", () => {
    for (const n of [0, 1, 3, 4, 5, 31, 255, 256, 257, 600]) {
      const id = Array.from({ length: n }, (_, i) => String.fromCharCode(0x21 + ((i * 37) % 94))).join("");
      expect(murmur3String(id, 7)).toBe(murmur3(new TextEncoder().encode(id), 7));
    }
    // a long id, then a short one: nothing of the first is left in the hash of the second
    murmur3String("x".repeat(200));
    expect(murmur3String("p:000000000042")).toBe(murmur3(new TextEncoder().encode("p:000000000042")));
    // non-ASCII after an ASCII prefix the buffer already took
    expect(murmur3String("abcdé")).toBe(murmur3(new TextEncoder().encode("abcdé")));
  });
});
