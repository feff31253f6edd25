import { describe, expect, it } from "vitest";
import { atEndOfTurn } from "./end-of-turn.js";

describe("platform > end of turn", () => {
  it("runs what a turn queued after its promise callbacks, and what those queue in the same pass", async () => {
    const order: string[] = [];
    atEndOfTurn(() => {
      order.push("first");
      atEndOfTurn(() => order.push("queued by first"));
    });
    atEndOfTurn(() => order.push("second"));
    void Promise.resolve().then(() => order.push("promise callback"));
    // a setImmediate queued now runs after the drain: anything the drain queued ran before it
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(["promise callback", "first", "second", "queued by first"]);
  });

  it("runs the others when one throws, and throws its error afterwards", async () => {
    const ran: string[] = [];
    const thrown = new Promise<unknown>((resolve) => process.once("uncaughtException", resolve));
    atEndOfTurn(() => {
      throw new Error("boom");
    });
    atEndOfTurn(() => ran.push("after"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual(["after"]);
    expect(await thrown).toMatchObject({ message: "boom" });
  });
});
