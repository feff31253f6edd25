import { describe, expect, it } from "vitest";
import { count, ms, rate, ratio, size } from "./format.js";

describe("bench > format", () => {
  it("writes counts and sizes", () => {
    expect(count(1234567.4)).toBe("1,234,567");
    expect(size(1_000_000)).toBe("1M");
    expect(size(10_000_000)).toBe("10M");
    expect(size(20_000)).toBe("20k");
    expect(size(1_500_000)).toBe("1.5M");
  });

  it("writes rates with 3 significant digits below 100/s", () => {
    expect(rate(12345.67)).toBe("12,346");
    expect(rate(3.21456)).toBe("3.21");
  });

  it("writes latencies with 3 significant digits below 100 ms", () => {
    expect(ms(0.41234)).toBe("0.412");
    expect(ms(12.345)).toBe("12.3");
    expect(ms(2345.6)).toBe("2,346");
  });

  it("writes ratios, or a dash when a side is missing", () => {
    expect(ratio(300, 100)).toBe("3x");
    expect(ratio(1, 3)).toBe("0.333x");
    expect(ratio(123456, 3)).toBe("41,152x");
    expect(ratio(1, 0)).toBe("—");
    expect(ratio(undefined, 3)).toBe("—");
  });
});
