import { describe, expect, it } from "vitest";
import { Code } from "./errors.js";
import { decodeToken, encodeToken, mergeTokens } from "./consistency-token.js";

describe("common > consistency token", () => {
  it("round-trips offsets", () => {
    expect(decodeToken(encodeToken(new Map([[0, 0n]])), 64)).toEqual(new Map([[0, 0n]]));
    const offsets = new Map([[3, 17n], [0, 9_000_000_000n]]);
    expect(decodeToken(encodeToken(offsets), 64)).toEqual(offsets);
    expect(decodeToken("", 64)).toEqual(new Map());
  });

  it("merges tokens by the highest offset per partition", () => {
    const a = encodeToken(new Map([[1, 5n], [2, 9n]]));
    const b = encodeToken(new Map([[1, 7n], [3, 1n]]));
    expect(decodeToken(mergeTokens([a, b], 64), 64)).toEqual(new Map([[1, 7n], [2, 9n], [3, 1n]]));
  });

  it("rejects malformed tokens and partitions outside the cluster", () => {
    for (const bad of ["%%%", "AAAA", "_-_-_-", "A", "eAA"]) {
      expect(() => decodeToken(bad, 64)).toThrow(expect.objectContaining({ code: Code.INVALID_ARGUMENT }));
    }
    expect(() => decodeToken(encodeToken(new Map([[64, 1n]])), 64)).toThrow(/not in this cluster/);
  });
});
