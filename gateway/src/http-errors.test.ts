import { Metadata } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { Code, LadderError } from "@ladder/model/errors";
import { httpStatusOf, refuse, toHttpFailure } from "./http-errors.js";

describe("gateway > errors as HTTP", () => {
  it("maps every gRPC code to its HTTP status", () => {
    const statuses = Object.fromEntries(
      [
        Code.INVALID_ARGUMENT,
        Code.FAILED_PRECONDITION,
        Code.OUT_OF_RANGE,
        Code.UNAUTHENTICATED,
        Code.PERMISSION_DENIED,
        Code.NOT_FOUND,
        Code.ALREADY_EXISTS,
        Code.ABORTED,
        Code.RESOURCE_EXHAUSTED,
        Code.CANCELLED,
        Code.UNIMPLEMENTED,
        Code.UNAVAILABLE,
        Code.DEADLINE_EXCEEDED,
        Code.INTERNAL,
        Code.UNKNOWN,
        Code.DATA_LOSS,
      ].map((c) => [Code[c], httpStatusOf(c)]),
    );
    expect(statuses).toEqual({
      INVALID_ARGUMENT: 400,
      FAILED_PRECONDITION: 400,
      OUT_OF_RANGE: 400,
      UNAUTHENTICATED: 401,
      PERMISSION_DENIED: 403,
      NOT_FOUND: 404,
      ALREADY_EXISTS: 409,
      ABORTED: 409,
      RESOURCE_EXHAUSTED: 429,
      CANCELLED: 499,
      UNIMPLEMENTED: 501,
      UNAVAILABLE: 503,
      DEADLINE_EXCEEDED: 504,
      INTERNAL: 500,
      UNKNOWN: 500,
      DATA_LOSS: 500,
    });
  });

  it("passes on a router's status with its message, hides an internal error's, keeps a refusal's own status and headers", () => {
    const fromRouter = Object.assign(new Error("5 NOT_FOUND: player bob has no score"), {
      code: Code.NOT_FOUND,
      details: "player bob has no score",
      metadata: new Metadata(),
    });
    expect(toHttpFailure(fromRouter)).toEqual({
      status: 404,
      headers: {},
      body: { error: { code: "NOT_FOUND", message: "player bob has no score" } },
    });
    const internal = toHttpFailure(new TypeError("x is undefined"));
    expect(internal).toMatchObject({ status: 500, body: { error: { code: "INTERNAL", message: "internal error" } } });
    expect(internal.internal).toBeInstanceOf(LadderError);
    expect(toHttpFailure(refuse(Code.RESOURCE_EXHAUSTED, "slow down", { headers: { "Retry-After": "2" } }))).toEqual({
      status: 429,
      headers: { "Retry-After": "2" },
      body: { error: { code: "RESOURCE_EXHAUSTED", message: "slow down" } },
    });
    expect(toHttpFailure(refuse(Code.UNIMPLEMENTED, "GET only", { status: 405, headers: { Allow: "GET, OPTIONS" } })).status).toBe(405);
  });
});
