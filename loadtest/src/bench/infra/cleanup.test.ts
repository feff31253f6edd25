import { describe, expect, it } from "vitest";
import { CleanupStack } from "./cleanup.js";

describe("bench > cleanup stack", () => {
  it("undoes newest first, each entry once, and reports failures without stopping", async () => {
    const done: string[] = [];
    const failed: string[] = [];
    const stack = new CleanupStack((name) => failed.push(name));
    stack.push("a", async () => void done.push("a"));
    const b = stack.push("b", async () => void done.push("b"));
    stack.push("c", async () => {
      throw new Error("boom");
    });
    stack.push("d", async () => void done.push("d"));
    await b.release();
    await b.release();
    await stack.releaseAll();
    expect(done).toEqual(["b", "d", "a"]);
    expect(failed).toEqual(["c"]);
    expect(stack.size).toBe(0);
  });
});
