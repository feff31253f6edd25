import { describe, expect, it } from "vitest";
import { Code, LadderError, invalidArgument, unavailable } from "@ladder/model/errors";
import { toServiceError } from "./service-error.js";

describe("platform > errors", () => {
  it("keeps the status of a LadderError", () => {
    expect(toServiceError(invalidArgument("updates[3].board: empty"))).toMatchObject({
      code: Code.INVALID_ARGUMENT,
      details: "updates[3].board: empty",
    });
  });

  it("marks transient failures retriable", () => {
    const e = toServiceError(unavailable("shard-1 did not answer"));
    expect(e.code).toBe(Code.UNAVAILABLE);
    expect(e.metadata!.get("ladder-retriable")).toEqual(["true"]);
  });

  it("carries the wait of an error that names one as the retry-after-ms trailer", () => {
    const e = toServiceError(new LadderError(Code.RESOURCE_EXHAUSTED, "quota spent", { retriable: true, retryAfterMs: 250 }));
    expect(e.code).toBe(Code.RESOURCE_EXHAUSTED);
    expect(e.metadata!.get("retry-after-ms")).toEqual(["250"]);
    expect(toServiceError(unavailable("away")).metadata!.get("retry-after-ms")).toEqual([]);
  });

  it("hides the details of unexpected errors behind INTERNAL", () => {
    const e = toServiceError(new TypeError("x is undefined"));
    expect(e).toMatchObject({ code: Code.INTERNAL, details: "internal error" });
    expect(LadderError.from("boom").message).toBe("boom");
  });
});
