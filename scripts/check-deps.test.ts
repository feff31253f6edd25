import { describe, expect, it } from "vitest";
import { importsOf, violations, type PackageInfo } from "./check-deps.js";

const pkg = (dir: string, deps: string[], files: Record<string, string>, devDeps: string[] = []): PackageInfo => ({
  dir, deps: new Set(deps), devDeps: new Set(devDeps), files: new Map(Object.entries(files)),
});

describe("scripts > check-deps", () => {
  it("finds static, side-effect, re-export and dynamic imports, not those in comments", () => {
    const src = [
      'import { a } from "x";',
      'import type { B } from "@s/y/z";',
      'export { c } from "./c.js";',
      'import "side";',
      'const m = await import("dyn");',
      '// import { no } from "commented";',
      '/* import { no } from "block"; */',
    ].join("\n");
    expect(importsOf(src)).toEqual(["x", "@s/y/z", "./c.js", "side", "dyn"]);
  });

  it("accepts a tree that follows the architecture", () => {
    expect(violations([
      pkg("common", ["@ladder/proto", "pino"], { "src/a.ts": 'import pino from "pino"; import { x } from "@ladder/proto/v1/x";' }),
      pkg("router", ["@ladder/store", "@ladder/common"], { "src/q.ts": 'import { ShardReader } from "@ladder/store"; import { readFileSync } from "node:fs"; import { join } from "path";' }),
      pkg("store", ["@ladder/common"], { "src/r.test.ts": 'import { it } from "vitest"; import { a } from "./a.js";' }, ["vitest"]),
    ])).toEqual([]);
  });

  it("refuses an import running up the layers, between services, or undeclared", () => {
    const found = violations([
      pkg("common", ["@ladder/store"], { "src/a.ts": 'import { ShardReader } from "@ladder/store";' }),
      pkg("router", ["@ladder/ingest"], { "src/b.ts": 'import { x } from "@ladder/ingest/y"; import { y } from "@ladder/common/z";' }),
      pkg("cli", ["@ladder/common"], { "src/c.ts": 'import { t } from "../../deploy/local/src/credentials.js"; import Redis from "ioredis";' }),
      pkg("store", [], { "src/d.ts": 'import { it } from "vitest";' }, ["vitest"]),
      pkg("gateway", [], {}),
    ]);
    expect(found).toEqual([
      "common/package.json: depends on @ladder/store, which the architecture forbids",
      "common/src/a.ts: imports @ladder/store, which the architecture forbids",
      "router/package.json: depends on @ladder/ingest, which the architecture forbids",
      "router/src/b.ts: imports @ladder/ingest, which the architecture forbids",
      "router/src/b.ts: imports @ladder/common, which router/package.json does not depend on",
      'cli/src/c.ts: "../../deploy/local/src/credentials.js" reaches outside the package; import it by package name',
      "cli/src/c.ts: imports ioredis, which cli/package.json does not declare",
      "store/src/d.ts: imports vitest, which store/package.json does not declare",
      "gateway: not in the architecture table (scripts/check-deps.ts)",
    ]);
  });
});
