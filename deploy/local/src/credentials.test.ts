import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readCredentialsFile } from "@ladder/platform/credentials-file";
import { localCredentials, localStreamSecret, monitorToken, streamSecretPath } from "./credentials.js";

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe("local cluster > credentials", () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("makes a writer, an admin and a monitor token once, 0600, and reuses them", () => {
    dir = mkdtempSync(join(tmpdir(), "ladder-credentials-"));
    const grants = localCredentials(dir);
    expect(grants.map((g) => [g.name, g.roles])).toEqual([
      ["local-game-server", ["write"]],
      ["local-admin", ["admin", "write", "read"]],
      ["local-gateway", ["monitor"]],
    ]);
    expect(modeOf(join(dir, "credentials.json"))).toBe("600");
    expect(localCredentials(dir)).toEqual(grants);
    expect(monitorToken(grants)).toBe(grants[2]!.token);
  });

  it("adds a monitor grant to a file written without one, keeping the others", () => {
    dir = mkdtempSync(join(tmpdir(), "ladder-credentials-"));
    const old = [{ name: "local-admin", token: "a".repeat(32), roles: ["admin", "write", "read"] }];
    writeFileSync(join(dir, "credentials.json"), JSON.stringify(old), { mode: 0o600 });
    const grants = localCredentials(dir);
    expect(grants.slice(0, 1)).toEqual(old);
    expect(grants[1]).toMatchObject({ name: "local-gateway", roles: ["monitor"] });
    expect(readCredentialsFile(join(dir, "credentials.json"))).toEqual(grants);
  });

  it("keeps one stream secret of 32 random bytes, 0600", () => {
    dir = mkdtempSync(join(tmpdir(), "ladder-credentials-"));
    const secret = localStreamSecret(dir);
    expect(Buffer.from(secret, "base64url")).toHaveLength(32);
    expect(localStreamSecret(dir)).toBe(secret);
    expect(modeOf(streamSecretPath(dir))).toBe("600");
  });
});
