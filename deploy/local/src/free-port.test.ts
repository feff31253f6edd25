import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { choiceRange, ephemeralLow, freePort, portIsFree } from "./free-port.js";

describe("free ports", () => {
  it("reads the first port of the kernel's ephemeral range, 32768 when it cannot", () => {
    const dir = mkdtempSync(join(tmpdir(), "ladder-ports-"));
    writeFileSync(join(dir, "range"), "40000\t60999\n");
    writeFileSync(join(dir, "bad"), "nonsense\n");
    expect(ephemeralLow(join(dir, "range"))).toBe(40000);
    expect(ephemeralLow(join(dir, "bad"))).toBe(32768);
    expect(ephemeralLow(join(dir, "absent"))).toBe(32768);
  });

  it("chooses below the ephemeral range, never below 10000", () => {
    expect(choiceRange(32768)).toEqual({ first: 22768, end: 32768 });
    expect(choiceRange(15000)).toEqual({ first: 10000, end: 15000 });
    expect(choiceRange(1024)).toEqual({ first: 10000, end: 10001 });
  });

  it("gives a port that is free, below the machine's ephemeral range, and can be bound", async () => {
    const { first, end } = choiceRange();
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(first);
      expect(port).toBeLessThan(end);
      expect(await portIsFree(port)).toBe(true);
    }
  });

  it("a port something listens on is not free", async () => {
    const server = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port }, () => resolve()));
    try {
      expect(await portIsFree(port)).toBe(false);
    } finally {
      server.close();
    }
  });
});
