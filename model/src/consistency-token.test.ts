import { describe, expect, it } from "vitest";
import { Code } from "./errors.js";
import { decodeToken, encodeToken } from "./consistency-token.js";

describe("model > consistency token", () => {
  it("round-trips offsets", () => {
    expect(decodeToken(encodeToken(new Map([[0, 0n]])), 64)).toEqual(new Map([[0, 0n]]));
    const offsets = new Map([
      [3, 17n],
      [0, 9_000_000_000n],
    ]);
    expect(decodeToken(encodeToken(offsets), 64)).toEqual(offsets);
    expect(decodeToken("", 64)).toEqual(new Map());
  });

  it("rejects malformed tokens and partitions outside the cluster", () => {
    for (const bad of ["%%%", "AAAA", "_-_-_-", "A", "eAA"]) {
      expect(() => decodeToken(bad, 64)).toThrow(expect.objectContaining({ code: Code.INVALID_ARGUMENT }));
    }
    expect(() => decodeToken(encodeToken(new Map([[64, 1n]])), 64)).toThrow(
      /must name partitions 0\.\.63 and offsets of 0 or more, got partition 64 offset 1/,
    );
  });
});
