import { describe, expect, it } from "vitest";
import { benchPort, RESERVED_PORTS } from "./ports.js";

const isReservedPort = (port: number) => RESERVED_PORTS.has(port);

describe("bench > ports", () => {
  it("keeps off the local cluster's and the machine's ports", () => {
    for (const p of [6379, 9092, 7001, 7002, 7003, 50051, 50052]) expect(isReservedPort(p)).toBe(true);
    expect(isReservedPort(7004)).toBe(false);
  });

  it("hands out distinct free ports", async () => {
    const taken = new Set<number>();
    const a = await benchPort(taken);
    const b = await benchPort(taken);
    expect(a).not.toBe(b);
    expect(isReservedPort(a) || isReservedPort(b)).toBe(false);
  });
});
