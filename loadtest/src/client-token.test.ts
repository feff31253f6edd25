import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { clientToken } from "./client-token.js";

const dir = mkdtempSync(join(tmpdir(), "ladder-token-"));
const file = join(dir, "credentials.json");
writeFileSync(
  file,
  JSON.stringify([
    { name: "reader", token: "r", roles: ["read"] },
    { name: "game", token: "w", roles: ["write"] },
  ]),
);
const none = { clientToken: undefined, clientCredentialsFile: join(dir, "missing.json") };

describe("loadtest > client token", () => {
  it("takes --token, then LADDER_TOKEN, then the credentials file's first write grant", () => {
    expect(clientToken({ token: "t", credentials: file }, { ...none, clientToken: "env" })).toEqual({ token: "t", source: "--token" });
    expect(clientToken({ credentials: file }, { ...none, clientToken: "env" })).toEqual({ token: "env", source: "LADDER_TOKEN" });
    expect(clientToken({}, { ...none, clientCredentialsFile: file })).toEqual({ token: "w", source: file });
    expect(clientToken({ credentials: file }, none)).toEqual({ token: "w", source: file });
  });

  it("has no token when there is no file, and throws on a file that is not a credentials file", () => {
    expect(clientToken({}, none)).toEqual({ token: undefined, source: "none" });
    const bad = join(dir, "bad.json");
    writeFileSync(bad, "{}");
    expect(() => clientToken({ credentials: bad }, none)).toThrow(/not a JSON array/);
  });
});
