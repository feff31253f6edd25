import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtEntry, nodeCommand, REPO } from "./built-entry.js";

describe("deploy > built entry", () => {
  it("maps a source file to its build under dist/: its bundle where the build made one", () => {
    expect(builtEntry("router/src/main.ts")).toBe(join(REPO, "router/dist/main.bundle.js"));
    expect(builtEntry("deploy/local/src/main.ts")).toBe(join(REPO, "deploy/local/dist/main.js"));
    expect(builtEntry("loadtest/src/seed/main.ts")).toBe(join(REPO, "loadtest/dist/seed/main.js"));
  });

  it("refuses what is not a source file, and a build that is missing", () => {
    expect(() => builtEntry("router/dist/main.js")).toThrow(/not a TypeScript file under a src\/ folder/);
    expect(() => builtEntry("router/xsrc/main.ts")).toThrow(/not a TypeScript file/);
    expect(() => builtEntry("router/src/no-such-file.ts")).toThrow(/router\/dist\/no-such-file\.js is missing: run `npm run build`/);
  });

  it("starts the services and the CLI with this Node on their bundles: no loader, no TypeScript", () => {
    for (const service of ["shard-node", "router", "ingest", "gateway", "cli"]) {
      const { command, args } = nodeCommand(`${service}/src/main.ts`, ["--x"]);
      expect(command).toBe(process.execPath);
      expect(args).toEqual([join(REPO, `${service}/dist/main.bundle.js`), "--x"]);
    }
  });

  it("runs on Node 24 or later (the tests, and every process they start with process.execPath)", () => {
    expect(Number(process.versions.node.split(".")[0])).toBeGreaterThanOrEqual(24);
  });
});
