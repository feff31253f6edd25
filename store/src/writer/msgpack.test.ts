import { describe, expect, it } from "vitest";
import { PackWriter } from "./msgpack.js";

const hex = (v: Parameters<PackWriter["pack"]>[0]) => new PackWriter().pack(v).toString("hex");

describe("writer > msgpack", () => {
  it("packs each kind in its MessagePack format", () => {
    expect(hex(0)).toBe("00");
    expect(hex(127)).toBe("7f");
    expect(hex(-1)).toBe("ff");
    expect(hex(-32)).toBe("e0");
    expect(hex(128)).toBe("d200000080");
    expect(hex(-(2 ** 31))).toBe("d280000000");
    expect(hex(2 ** 31)).toBe("cb41e0000000000000"); // beyond int32: float64, exact
    expect(hex(2 ** 53 - 1)).toBe("cb433fffffffffffff");
    expect(hex(0.5)).toBe("cb3fe0000000000000");
    expect(hex(true) + hex(false) + hex(null)).toBe("c3c2c0");
    expect(hex("")).toBe("a0");
    expect(hex("é")).toBe("a2c3a9"); // UTF-8 bytes counted, not characters
    expect(hex("x".repeat(32))).toBe("d920" + "78".repeat(32));
    expect(hex("x".repeat(256)).slice(0, 6)).toBe("da0100");
    expect(hex([1, [2]])).toBe("920191" + "02");
    expect(hex({ a: 1, b: undefined })).toBe("81a16101"); // an undefined property is left out
    expect(hex(Array.from({ length: 16 }, () => 0))).toBe("dc0010" + "00".repeat(16));
  });

  it("grows its buffer for a large value and reuses it after", () => {
    const w = new PackWriter();
    const big = w.pack("y".repeat(100_000));
    expect(big.length).toBe(100_005);
    expect(w.pack(1).toString("hex")).toBe("01");
    expect(big.subarray(0, 5).toString("hex")).toBe("db000186a0"); // the copy kept its bytes
  });
});
