import { describe, expect, it } from "vitest";
import { updateBatches } from "./update-stream.js";

describe("bench > update stream", () => {
  it("is reproducible for a seed, with distinct event ids", () => {
    const a = updateBatches(3, 1000, "r");
    const b = updateBatches(3, 1000, "r");
    const first = a(5);
    expect(b(5)).toEqual(first);
    expect(new Set([...first, ...a(5)].map((u) => u.eventId)).size).toBe(10);
    for (const u of first) expect(u.playerId).toMatch(/^p:\d{12}$/);
  });
});
