import { describe, expect, it } from "vitest";
import { parseCurrent } from "./keys.js";

describe("parseCurrent", () => {
  it("reads the as-of and the bound a heartbeat wrote", () => {
    expect(parseCurrent("1796450073867 4000")).toEqual({ asOfMs: 1796450073867, boundMs: 4000 });
  });
  it("says none when the key is absent (the node does not serve)", () => {
    expect(parseCurrent(null)).toBeUndefined();
  });
});
