import { describe, expect, it } from "vitest";
import { Code } from "@ladder/model/errors";
import { randomSecret, ResumeTokens, type ResumeScope } from "./resume-token.js";

const top: ResumeScope = { rpc: "WatchTop", board: "arena", period: "", window: "" };
const player: ResumeScope = { rpc: "WatchPlayer", board: "arena", period: "", window: "", playerId: "p1" };
const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return "ok";
  } catch (e) {
    return (e as { code: number; message: string }).code;
  }
};

describe("router > push > resume tokens", () => {
  const tokens = new ResumeTokens(randomSecret());

  it("gives back the state a token was made with, for the same stream", () => {
    expect(tokens.decode(top, tokens.encode(top, { s: 7, h: "beef" }))).toEqual({ s: 7, h: "beef" });
    expect(tokens.decode(player, tokens.encode(player, { s: 3, r: 12, k: 99 }))).toEqual({ s: 3, r: 12, k: 99 });
    expect(tokens.decode(top, "")).toBeUndefined();
  });

  it("refuses a crafted, altered, truncated token or another stream's with INVALID_ARGUMENT naming resume_token", () => {
    const genuine = tokens.encode(player, { s: 3, r: 12, k: 99 });
    const [payload, mac] = genuine.split(".") as [string, string];
    const crafted = Buffer.from(JSON.stringify({ s: 9999, h: "deadbeef" })).toString("base64url");
    const refused = [
      crafted, // the unsigned form
      `${crafted}.${mac}`, // another state under a genuine MAC
      `${Buffer.from(JSON.stringify({ s: 9999, r: 1, k: 99 })).toString("base64url")}.${mac}`,
      genuine.slice(0, -1),
      genuine.slice(0, genuine.length - 10),
      payload,
      `${payload}.`,
      `.${mac}`,
      "not a token",
    ];
    for (const t of refused)
      expect(
        codeOf(() => tokens.decode(player, t)),
        t,
      ).toBe(Code.INVALID_ARGUMENT);
    for (const other of [
      { ...player, playerId: "p2" },
      { ...player, board: "other" },
      { ...player, period: "2026-12-04" },
      { ...player, window: "7d" },
    ])
      expect(codeOf(() => tokens.decode(other, genuine))).toBe(Code.INVALID_ARGUMENT);
    expect(codeOf(() => tokens.decode(top, tokens.encode({ ...top, board: "b2" }, { s: 1, h: "0" })))).toBe(Code.INVALID_ARGUMENT);
    expect(codeOf(() => new ResumeTokens(randomSecret()).decode(player, genuine))).toBe(Code.INVALID_ARGUMENT);
    expect(() => tokens.decode(player, `${crafted}.${mac}`)).toThrow(/^resume_token: /);
  });

  it("accepts another router's token when they share the secret", () => {
    const secret = randomSecret();
    expect(new ResumeTokens(secret).decode(top, new ResumeTokens(secret).encode(top, { s: 2, h: "1" }))).toEqual({ s: 2, h: "1" });
  });
});
