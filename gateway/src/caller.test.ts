import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { callerToken, clientOf } from "./caller.js";
import { toHttpFailure } from "./http-errors.js";

const request = (headers: Record<string, string>, remoteAddress = "10.0.0.9") =>
  ({ headers, socket: { remoteAddress } }) as unknown as IncomingMessage;
const query = (q: string) => new URLSearchParams(q);

describe("gateway > caller", () => {
  it("takes the bearer token from the Authorization header or access_token; none without either", () => {
    expect(callerToken(request({ authorization: "Bearer abc" }), query(""))).toBe("abc");
    expect(callerToken(request({ authorization: "bearer abc " }), query(""))).toBe("abc");
    expect(callerToken(request({}), query("access_token=xyz"))).toBe("xyz");
    expect(callerToken(request({ authorization: "Bearer abc" }), query("access_token=abc"))).toBe("abc");
    expect(callerToken(request({}), query(""))).toBeUndefined();
  });

  it("refuses a header that is not a bearer token (401) and two different tokens (400)", () => {
    const failure = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return toHttpFailure(err);
      }
    };
    expect(failure(() => callerToken(request({ authorization: "Basic dTpw" }), query("")))?.status).toBe(401);
    expect(failure(() => callerToken(request({ authorization: "Bearer abc" }), query("access_token=def")))?.status).toBe(400);
  });

  it("counts a client by its peer address, or behind a trusted proxy by the last X-Forwarded-For address", () => {
    const req = request({ "x-forwarded-for": "1.2.3.4, 5.6.7.8" });
    expect(clientOf(req, false)).toBe("10.0.0.9");
    expect(clientOf(req, true)).toBe("5.6.7.8");
    expect(clientOf(request({}), true)).toBe("10.0.0.9");
  });
});
