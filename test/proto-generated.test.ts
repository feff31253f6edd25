import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..");
const buf = join(repo, "node_modules", ".bin", "buf");
const out = mkdtempSync(join(tmpdir(), "ladder-gen-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => relative(dir, join(d.parentPath, d.name)))
    .sort();
}

describe("proto > generated code", () => {
  it("is what `npm run gen` makes from proto/ today", () => {
    execFileSync(buf, ["generate", "-o", out], { cwd: repo, stdio: "pipe" });
    const fresh = join(out, "proto", "gen");
    const committed = join(repo, "proto", "gen");
    expect(files(committed)).toEqual(files(fresh));
    for (const f of files(fresh)) {
      expect(readFileSync(join(committed, f), "utf8"), `proto/gen/${f} is stale: run npm run gen`).toBe(
        readFileSync(join(fresh, f), "utf8"),
      );
    }
  });

  it("passes buf lint", () => {
    expect(() => execFileSync(buf, ["lint"], { cwd: repo, stdio: "pipe" })).not.toThrow();
  });
});
