import { describe, expect, it } from "vitest";
import type { TokenGrant } from "@ladder/platform/auth";
import { grantsFor, tokensEnv, withoutCredentials } from "./service-tokens.js";

const grants: TokenGrant[] = [
  { name: "game", token: "w".repeat(24), roles: ["write"] },
  { name: "ops", token: "a".repeat(24), roles: ["admin", "write", "read"] },
  { name: "dash", token: "m".repeat(24), roles: ["monitor"] },
];

describe("local cluster > service tokens", () => {
  it("gives the router every grant, ingest the writers as writers only, shard nodes none", () => {
    expect(grantsFor("router", grants)).toEqual(grants);
    expect(grantsFor("ingest", grants)).toEqual([
      { name: "game", token: "w".repeat(24), roles: ["write"] },
      { name: "ops", token: "a".repeat(24), roles: ["write"] },
    ]);
    expect(grantsFor("shard", grants)).toEqual([]);
  });

  it("leaves LADDER_TOKENS out of a service that gets no grant", () => {
    expect(tokensEnv("shard", grants)).toEqual({});
    expect(JSON.parse(tokensEnv("ingest", grants).LADDER_TOKENS!)).toHaveLength(2);
  });

  it("keeps the launcher's own credential variables from what a child inherits", () => {
    const env = {
      PATH: "/bin",
      LADDER_TOKENS: "[]",
      LADDER_GATEWAY_TOKEN: "g",
      LADDER_STREAM_SECRET: "s",
      LADDER_TOKEN: "t",
      LADDER_SLOTS: "12",
    };
    expect(withoutCredentials(env)).toEqual({ PATH: "/bin", LADDER_SLOTS: "12" });
  });
});
