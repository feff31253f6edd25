import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { corsHeaders, isPreflight, preflight } from "./cors.js";

const request = (method: string, headers: Record<string, string>) => ({ method, headers }) as unknown as IncomingMessage;

describe("gateway > CORS", () => {
  it("allows a listed origin by name, any origin with *, none when none is listed", () => {
    const listed = ["https://game.example"];
    expect(corsHeaders("https://game.example", listed)).toEqual({
      Vary: "Origin",
      "Access-Control-Allow-Origin": "https://game.example",
      "Access-Control-Expose-Headers": "Retry-After",
    });
    expect(corsHeaders("https://evil.example", listed)).toEqual({ Vary: "Origin" });
    expect(corsHeaders(undefined, listed)).toEqual({ Vary: "Origin" }); // caches keep answers per origin
    expect(corsHeaders("https://any.example", ["*"])).toEqual({
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Expose-Headers": "Retry-After",
    });
    expect(corsHeaders("https://game.example", [])).toEqual({});
  });

  it("answers a preflight for GET from an allowed origin with the headers a client sends, refuses the others", () => {
    const ask = (origin: string, method = "GET") =>
      request("OPTIONS", { origin, "access-control-request-method": method, "access-control-request-headers": "authorization" });
    expect(isPreflight(ask("https://game.example"))).toBe(true);
    expect(isPreflight(request("OPTIONS", {}))).toBe(false);
    expect(preflight(ask("https://game.example"), ["https://game.example"])).toEqual({
      status: 204,
      headers: {
        Vary: "Origin",
        "Access-Control-Allow-Origin": "https://game.example",
        "Access-Control-Expose-Headers": "Retry-After",
        "Access-Control-Allow-Methods": "GET",
        "Access-Control-Allow-Headers": "Authorization, Last-Event-ID",
        "Access-Control-Max-Age": "600",
      },
    });
    expect(preflight(ask("https://evil.example"), ["https://game.example"]).status).toBe(403);
    expect(preflight(ask("https://game.example", "POST"), ["https://game.example"]).status).toBe(403);
  });
});
