import { describe, expect, it } from "vitest";
import { appliedAfter } from "./apply-progress.js";

describe("bench > apply progress", () => {
  it("counts the records applied after the start offsets", () => {
    const start = new Map([[0, 10n], [1, 0n]]);
    expect(appliedAfter(start, new Map([[0, 14n], [1, 2n], [2, 0n]]))).toBe(5 + 3 + 1);
    expect(appliedAfter(start, new Map([[0, 5n]]))).toBe(0);
  });
});
