import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LadderClient } from "./ladder-client.js";
import { readTlsFile, TlsFileError } from "./tls-file.js";

const dir = mkdtempSync(join(tmpdir(), "ladder-tls-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("client > tls file", () => {
  it("reads a file that is there", () => {
    const path = join(dir, "ca.pem");
    writeFileSync(path, "pem bytes");
    expect(readTlsFile("tls.caFile", path).toString()).toBe("pem bytes");
  });

  it("names the option and the path when the CA file is missing, as the client is made", () => {
    const path = join(dir, "missing-ca.pem");
    let caught: unknown;
    try {
      new LadderClient({ router: "127.0.0.1:1", tls: { caFile: path } });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TlsFileError);
    expect((caught as TlsFileError).message).toBe(`LadderClient: options.tls.caFile: cannot read ${path} (no such file)`);
    expect(caught).toMatchObject({ option: "tls.caFile", path, code: "ENOENT" });
  });

  it("says a directory is not a file", () => {
    expect(() => readTlsFile("tls.caFile", dir)).toThrow(`LadderClient: options.tls.caFile: cannot read ${dir} (a directory, not a file)`);
  });
});
