/**
 * The architecture check: the import graph is the architecture, so a wrong import must fail
 * the build. `npm test` (and `npm run typecheck`) run this after tsc.
 *
 * The layers, lowest first; a package may import only packages of lower layers, and packages
 * of one layer never import each other:
 *
 *   proto → model → platform → {log, store} → {ingest, shard-node, router, gateway} → {cli, loadtest, deploy} → test
 *
 *   - proto: the API and the log record (generated), and the grpc-js codec of its services;
 *   - model: the domain, pure code without I/O (score encoding, boards, periods, windows,
 *     placement, validation, the score record, errors);
 *   - platform: what every process runs on (config, logging, metrics, auth, TLS, backoff, the
 *     gRPC adapter, health, shutdown);
 *   - log: every use of Kafka, behind a small typed interface; the only package that may import
 *     kafkajs or @platformatic/kafka (KAFKA_ONLY_IN below);
 *   - store: a shard's Redis, and only that;
 *   - the services glue log and store together (a shard node's apply loop) and serve them; the
 *     browser gateway reaches the router through the client library only (no log, no store);
 *   - the tools: loadtest may use deploy's launchers (it starts the clusters it measures); the
 *     CLI may not (it runs against production clusters, not the local one).
 *
 * The client library sits beside them on proto alone: a game server installs it without the
 * cluster's internals. The tools, the gateway and the tests may use it.
 *
 * Test files may use more where TEST_ALLOWED says so, through devDependencies: the client's
 * integration test runs a real cluster with test/'s harness, which the library never imports.
 *
 * Checked for every TypeScript file of every workspace package:
 *   - a relative import stays inside its own package;
 *   - an `@ladder/x` import names a package that the importer's package.json depends on, and
 *     that dependency is an allowed edge of the table below;
 *   - any other bare import is a Node built-in or declared in the importer's package.json
 *     (devDependencies count only for test files: *.test.ts, test/).
 */
import { builtinModules } from "node:module";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** Which @ladder packages each package may depend on. */
/** Which @ladder packages each package may depend on. */
export const ALLOWED: Readonly<Record<string, readonly string[]>> = Object.freeze({
  proto: [],
  client: ["proto"],
  model: ["proto"],
  platform: ["proto", "model"],
  log: ["proto", "model", "platform"],
  store: ["proto", "model", "platform", "log"],
  ingest: ["proto", "model", "platform", "log", "store"],
  "shard-node": ["proto", "model", "platform", "log", "store"],
  router: ["proto", "model", "platform", "log", "store"],
  gateway: ["proto", "client", "model", "platform"],
  cli: ["proto", "client", "model", "platform"],
  deploy: ["proto", "model", "platform", "log"],
  loadtest: ["proto", "client", "model", "platform", "log", "store", "deploy"],
  test: ["proto", "client", "model", "platform", "log", "store", "deploy"],
});

/** Which more @ladder packages each package's test files may use (devDependencies only). */
export const TEST_ALLOWED: Readonly<Record<string, readonly string[]>> = Object.freeze({
  client: ["test"],
  platform: ["client"], // the gRPC adapter's tests call their servers through the client's stubs
});

export interface PackageInfo {
  /** Folder name, e.g. "store". */
  dir: string;
  deps: ReadonlySet<string>;
  devDeps: ReadonlySet<string>;
  /** Files of the package: path relative to the package folder → source text. */
  files: ReadonlyMap<string, string>;
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^"'`;]*?from\s*["']([^"']+)["']|(?:^|[\s;(])import\s*\(?\s*["']([^"']+)["']/gm;
const BUILTINS = new Set(builtinModules);

/** Import specifiers of a TypeScript source (static, side-effect and dynamic with a literal). */
export function importsOf(source: string): string[] {
  const out: string[] = [];
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  for (const m of code.matchAll(IMPORT)) out.push((m[1] ?? m[2])!);
  return out;
}

const packageName = (spec: string) => (spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!);
const isTestFile = (dir: string, file: string) => dir === "test" || /\.test\.ts$/.test(file);

/** Every violation of the rules above, as readable lines (empty when the tree is clean). */
export function violations(packages: readonly PackageInfo[]): string[] {
  const problems: string[] = [];
  for (const pkg of packages) {
    const allowed = ALLOWED[pkg.dir];
    if (!allowed) {
      problems.push(`${pkg.dir}: not in the architecture table (scripts/check-deps.ts)`);
      continue;
    }
    const forTests = TEST_ALLOWED[pkg.dir] ?? [];
    const allowedDep = (dep: string, dev: boolean) => allowed.includes(dep.slice("@ladder/".length)) || (dev && forTests.includes(dep.slice("@ladder/".length)));
    for (const dep of pkg.deps) if (dep.startsWith("@ladder/") && !allowedDep(dep, false)) problems.push(`${pkg.dir}/package.json: depends on ${dep}, which the architecture forbids`);
    for (const dep of pkg.devDeps) if (dep.startsWith("@ladder/") && !allowedDep(dep, true)) problems.push(`${pkg.dir}/package.json: depends on ${dep}, which the architecture forbids`);
    for (const [file, source] of pkg.files) {
      for (const spec of importsOf(source)) {
        const where = `${pkg.dir}/${file}`;
        if (spec.startsWith(".")) {
          const target = join(dirname(file), spec);
          if (target.startsWith("..")) problems.push(`${where}: "${spec}" reaches outside the package; import it by package name`);
          continue;
        }
        if (spec.startsWith("node:") || BUILTINS.has(spec)) continue;
        const name = packageName(spec);
        if (name.startsWith("@ladder/")) {
          if (isTestFile(pkg.dir, file) && pkg.devDeps.has(name) && allowedDep(name, true)) continue;
          if (!pkg.deps.has(name)) problems.push(`${where}: imports ${name}, which ${pkg.dir}/package.json does not depend on`);
          else if (!allowed.includes(name.slice("@ladder/".length))) problems.push(`${where}: imports ${name}, which the architecture forbids`);
          continue;
        }
        if (!pkg.deps.has(name) && !(isTestFile(pkg.dir, file) && pkg.devDeps.has(name))) problems.push(`${where}: imports ${name}, which ${pkg.dir}/package.json does not declare`);
      }
    }
  }
  return problems;
}

/** Reads the workspace packages named in the root package.json. */
export function readWorkspace(root: string): PackageInfo[] {
  const rootPkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { workspaces: string[] };
  return rootPkg.workspaces.map((dir) => {
    const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as { dependencies?: object; devDependencies?: object };
    const files = new Map<string, string>();
    for (const path of walk(join(root, dir))) files.set(relative(join(root, dir), path).split(sep).join("/"), readFileSync(path, "utf8"));
    return { dir, deps: new Set(Object.keys(pkg.dependencies ?? {})), devDeps: new Set(Object.keys(pkg.devDependencies ?? {})), files };
  });
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "results") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = violations(readWorkspace(resolve(dirname(fileURLToPath(import.meta.url)), "..")));
  for (const p of problems) console.error(`check-deps: ${p}`);
  if (problems.length) process.exit(1);
  console.log("check-deps: the import graph follows the architecture");
}
