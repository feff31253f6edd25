import { describe, expect, it } from "vitest";
import { Code, LadderError } from "@ladder/model/errors";
import { callerOf, CallerSlots } from "./caller-slots.js";

describe("router > caller slots", () => {
  it("refuses the slot past the limit with RESOURCE_EXHAUSTED naming it, and frees one on release", () => {
    const slots = new CallerSlots(2);
    const a = slots.take("address 10.0.0.1");
    slots.take("address 10.0.0.1");
    let err: unknown;
    try {
      slots.take("address 10.0.0.1");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LadderError);
    expect((err as LadderError).code).toBe(Code.RESOURCE_EXHAUSTED);
    expect((err as LadderError).message).toMatch(/LADDER_WATCH_STREAMS_PER_CALLER = 2/);
    slots.take("address 10.0.0.2"); // another caller has its own
    a();
    a(); // idempotent
    expect(slots.heldBy("address 10.0.0.1")).toBe(1);
    slots.take("address 10.0.0.1");
    expect(slots.heldBy("address 10.0.0.1")).toBe(2);
  });

  it("names a caller by its token's grant, else by its address without the port", () => {
    expect(callerOf("game-server", "10.1.2.3:5555")).toBe('token "game-server"');
    expect(callerOf(undefined, "10.1.2.3:5555")).toBe("address 10.1.2.3");
    expect(callerOf(undefined, "[::1]:5555")).toBe("address ::1");
  });
});
