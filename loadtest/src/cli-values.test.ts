import { describe, expect, it } from "vitest";
import { isLoopbackHost, parseCount, parseDuration, parseLoopbackAddress, parseNumber } from "./cli-values.js";

describe("loadtest > cli values", () => {
  it("reads counts with separators, exponents and suffixes", () => {
    expect(parseCount("players", "1_000_000", 1, 1e12)).toBe(1e6);
    expect(parseCount("players", "1,000,000", 1, 1e12)).toBe(1e6);
    expect(parseCount("players", "1e9", 1, 1e12)).toBe(1e9);
    expect(parseCount("players", "10M", 1, 1e12)).toBe(1e7);
    expect(parseCount("players", "2k", 1, 1e12)).toBe(2000);
  });

  it("refuses counts that are not integers in range, naming the flag", () => {
    expect(() => parseCount("batch", "0", 1, 1000)).toThrow(/--batch: "0"/);
    expect(() => parseCount("batch", "1.5", 1, 1000)).toThrow(/--batch/);
    expect(() => parseCount("batch", "lots", 1, 1000)).toThrow(/--batch/);
    expect(() => parseCount("batch", "1001", 1, 1000)).toThrow(/--batch/);
  });

  it("reads numbers in range", () => {
    expect(parseNumber("zipf", "1.2", 0, 10)).toBe(1.2);
    expect(() => parseNumber("zipf", "", 0, 10)).toThrow(/--zipf/);
    expect(() => parseNumber("zipf", "-1", 0, 10)).toThrow(/--zipf/);
  });

  it("reads durations in ms, s, m, h and bare seconds", () => {
    expect(parseDuration("duration", "30")).toBe(30_000);
    expect(parseDuration("duration", "30s")).toBe(30_000);
    expect(parseDuration("duration", "500ms")).toBe(500);
    expect(parseDuration("duration", "2m")).toBe(120_000);
    expect(parseDuration("duration", "1.5h")).toBe(5_400_000);
    expect(parseDuration("window", "30d")).toBe(30 * 86_400_000);
    expect(() => parseDuration("duration", "0s")).toThrow(/longer than 0/);
    expect(() => parseDuration("duration", "soon")).toThrow(/not a duration/);
  });

  it("accepts only loopback addresses", () => {
    expect(parseLoopbackAddress("router", "127.0.0.1:51051")).toBe("127.0.0.1:51051");
    expect(parseLoopbackAddress("router", "localhost:50051")).toBe("localhost:50051");
    expect(parseLoopbackAddress("router", "[::1]:50051")).toBe("[::1]:50051");
    expect(() => parseLoopbackAddress("router", "10.0.0.5:50051")).toThrow(/not a loopback address/);
    expect(() => parseLoopbackAddress("router", "example.com:50051")).toThrow(/not a loopback address/);
    expect(() => parseLoopbackAddress("router", "127.0.0.1")).toThrow(/not host:port/);
  });

  it("tells loopback hosts", () => {
    expect(["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"].every(isLoopbackHost)).toBe(true);
    expect(["10.0.0.1", "192.168.1.1", "example.com", "0.0.0.0"].some(isLoopbackHost)).toBe(false);
  });
});
