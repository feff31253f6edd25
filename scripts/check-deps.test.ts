import { describe, expect, it } from "vitest";
import { circles, importsOf, violations, type PackageInfo } from "./check-deps.js";

const pkg = (dir: string, deps: string[], files: Record<string, string>, devDeps: string[] = []): PackageInfo => ({
  dir,
  deps: new Set(deps),
  devDeps: new Set(devDeps),
  files: new Map(Object.entries(files)),
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
    expect(
      violations([
        pkg("platform", ["@ladder/proto", "pino"], { "src/a.ts": 'import pino from "pino"; import { x } from "@ladder/proto/v1/x";' }),
        pkg("router", ["@ladder/store", "@ladder/platform"], {
          "src/q.ts": 'import { ShardReader } from "@ladder/store"; import { readFileSync } from "node:fs"; import { join } from "path";',
        }),
        pkg("store", ["@ladder/model"], { "src/r.test.ts": 'import { it } from "vitest"; import { a } from "./a.js";' }, ["vitest"]),
      ]),
    ).toEqual([]);
  });

  it("refuses an import running up the layers, between services, or undeclared", () => {
    const found = violations([
      pkg("model", ["@ladder/store"], { "src/a.ts": 'import { ShardReader } from "@ladder/store";' }),
      pkg("router", ["@ladder/ingest"], { "src/b.ts": 'import { x } from "@ladder/ingest/y"; import { y } from "@ladder/platform/z";' }),
      pkg("cli", ["@ladder/platform"], {
        "src/c.ts": 'import { t } from "../../deploy/local/src/credentials.js"; import Redis from "ioredis";',
      }),
      pkg("store", [], { "src/d.ts": 'import { it } from "vitest";' }, ["vitest"]),
      pkg("webapp", [], {}),
    ]);
    expect(found).toEqual([
      "model/package.json: depends on @ladder/store, which the architecture forbids",
      "model/src/a.ts: imports @ladder/store, which the architecture forbids",
      "router/package.json: depends on @ladder/ingest, which the architecture forbids",
      "router/src/b.ts: imports @ladder/ingest, which the architecture forbids",
      "router/src/b.ts: imports @ladder/platform, which router/package.json does not depend on",
      'cli/src/c.ts: "../../deploy/local/src/credentials.js" reaches outside the package; import it by package name',
      "cli/src/c.ts: imports ioredis, which cli/package.json does not declare",
      "store/src/d.ts: imports vitest, which store/package.json does not declare",
      "webapp: not in the architecture table (scripts/check-deps.ts)",
    ]);
  });

  it("lets the client depend on proto only, and its test files on the test harness through devDependencies", () => {
    const found = violations([
      pkg(
        "client",
        ["@ladder/proto", "@grpc/grpc-js"],
        {
          "src/a.ts": 'import * as grpc from "@grpc/grpc-js"; import { X } from "@ladder/proto/leaderboard/v1/x";',
          "src/a.int.test.ts": 'import { startTestCluster } from "@ladder/test/cluster-harness";',
          "src/b.ts": 'import { startTestCluster } from "@ladder/test/cluster-harness";',
        },
        ["@ladder/test"],
      ),
      pkg("client", ["@ladder/platform"], { "src/c.ts": 'import { x } from "@ladder/platform/config";' }),
      pkg("platform", ["@ladder/proto"], { "src/d.test.ts": 'import { createClient } from "@ladder/client/grpc-stub";' }, [
        "@ladder/client",
      ]),
    ]);
    expect(found).toEqual([
      "client/src/b.ts: imports @ladder/test, which client/package.json does not depend on",
      "client/package.json: depends on @ladder/platform, which the architecture forbids",
      "client/src/c.ts: imports @ladder/platform, which the architecture forbids",
    ]);
  });

  it("lets log/ alone import the Kafka client, its internal modules included", () => {
    const found = violations([
      pkg("log", ["kafkajs"], {
        "src/k.ts": 'import type { Admin } from "kafkajs"; import Broker from "kafkajs/src/broker/index.js";',
      }),
      pkg("store", ["kafkajs"], { "src/s.ts": 'import type { Kafka } from "kafkajs";' }),
      pkg("ingest", ["kafkajs"], { "src/i.ts": 'import Encoder from "kafkajs/src/protocol/encoder.js";' }),
    ]);
    expect(found).toEqual([
      "store/src/s.ts: imports kafkajs; Kafka is used through @ladder/log only",
      "ingest/src/i.ts: imports kafkajs; Kafka is used through @ladder/log only",
    ]);
  });

  it("finds import circles between files, relative and across packages, type-only imports included", () => {
    const found = circles([
      pkg("model", [], {
        "src/a.ts": 'import type { B } from "./b.js";',
        "src/b.ts": 'import { a } from "./a.js";',
        "src/c.ts": 'import { c } from "./c.js";',
        "src/d.ts": 'import { a } from "./a.js";',
      }),
      pkg("platform", ["@ladder/store"], { "src/p.ts": 'import { s } from "@ladder/store/writer";' }),
      {
        ...pkg("store", ["@ladder/platform"], {
          "src/writer/index.ts": 'export { w } from "./w.js";',
          "src/writer/w.ts": 'import { p } from "@ladder/platform/p";',
        }),
        exports: { "./writer": "./src/writer/index.ts" },
      },
    ]);
    expect(found).toEqual([
      "import circle: model/src/a.ts → model/src/b.ts → model/src/a.ts",
      "import circle: model/src/c.ts → model/src/c.ts",
      "import circle: platform/src/p.ts → store/src/writer/index.ts → store/src/writer/w.ts → platform/src/p.ts",
    ]);
  });

  it("accepts a graph without circles, and finds one across files of another package", () => {
    const tree = [
      pkg("model", [], {
        "src/a.ts": 'import { b } from "./b.js"; import { c } from "./c.js";',
        "src/b.ts": 'import { c } from "./c.js";',
        "src/c.ts": "export const c = 1;",
      }),
      pkg("cli", [], {
        "src/x.ts": 'import { y } from "./y.js";',
        "src/y.ts": 'import { x } from "./x.js"; import { a } from "@ladder/model/a";',
      }),
    ];
    expect(circles([tree[0]!])).toEqual([]);
    expect(circles(tree)).toEqual(["import circle: cli/src/x.ts → cli/src/y.ts → cli/src/x.ts"]);
  });
});
