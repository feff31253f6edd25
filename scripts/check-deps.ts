/**
 * The architecture check: the import graph is the architecture, so a wrong import must fail
 * the build. `npm test` (and `npm run typecheck`) run this after tsc.
 *
 * The layers, lowest first; a package may import only packages of lower layers, and the
 * services never import each other:
 *
 *   proto → client → common → store → {ingest, shard-node, router} → {cli, loadtest, deploy} → test
 *
 * and the browser gateway, a service beside them that reaches the router through the client
 * library only: proto → client → common → gateway (it never touches a shard's Redis).
 *
 * and, inside the top layers: loadtest may use deploy's launchers (it starts the clusters it
 * measures); the CLI may not (it runs against production clusters, not the local one). The
 * client library sits just above proto: a game server installs it without the cluster's
 * internals (common builds its servers' gRPC adapter on the client's stubs).
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
 *
 * and for the build (tsconfig.build.json): every package with a tsconfig.json is one of its
 * references, and that tsconfig.json references exactly the @ladder packages it depends on, so that
 * `tsc -b` builds a package after what it imports and again when that changed.
 */
import { builtinModules } from "node:module";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** Which @ladder packages each package may depend on. */
export const ALLOWED: Readonly<Record<string, readonly string[]>> = Object.freeze({
  proto: [],
  client: ["proto"],
  common: ["proto", "client"],
  store: ["proto", "common"],
  ingest: ["proto", "common", "store"],
  "shard-node": ["proto", "common", "store"],
  router: ["proto", "common", "store"],
  cli: ["proto", "client", "common"],
  gateway: ["proto", "client", "common"],
  deploy: ["proto", "common"],
  loadtest: ["proto", "client", "common", "store", "deploy"],
  test: ["proto", "common", "store", "deploy"],
});

/** Which more @ladder packages each package's test files may use (devDependencies only). */
export const TEST_ALLOWED: Readonly<Record<string, readonly string[]>> = Object.freeze({
  client: ["test"],
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
    if (name === "node_modules" || name === "results" || name === "dist") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** tsconfig files are JSON with comments. */
const readJsonc = (path: string) =>
  JSON.parse(readFileSync(path, "utf8").replace(/\/\*[\s\S]*?\*\/|("(?:\\.|[^"\\])*")|\/\/[^\n]*/g, (m, str: string | undefined) => str ?? ""));

/** Where the build's project references differ from the packages' @ladder dependencies. */
export function referenceProblems(root: string, packages: readonly PackageInfo[]): string[] {
  const problems: string[] = [];
  const built = new Set((readJsonc(join(root, "tsconfig.build.json")).references as { path: string }[]).map((r) => r.path.replace(/^\.\//, "")));
  for (const pkg of packages) {
    let config: { references?: { path: string }[] };
    try {
      config = readJsonc(join(root, pkg.dir, "tsconfig.json"));
    } catch {
      if (built.has(pkg.dir)) problems.push(`tsconfig.build.json: references ${pkg.dir}, which has no tsconfig.json`);
      continue;
    }
    if (!built.has(pkg.dir)) problems.push(`tsconfig.build.json: does not reference ${pkg.dir}, which has a tsconfig.json`);
    const refs = (config.references ?? []).map((r) => r.path.replace(/^\.\.\//, "")).sort();
    const deps = [...pkg.deps].filter((d) => d.startsWith("@ladder/")).map((d) => d.slice("@ladder/".length)).sort();
    if (refs.join() !== deps.join()) problems.push(`${pkg.dir}/tsconfig.json: references [${refs.join(", ")}], but ${pkg.dir}/package.json depends on [${deps.join(", ")}]`);
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const packages = readWorkspace(root);
  const problems = [...violations(packages), ...referenceProblems(root, packages)];
  for (const p of problems) console.error(`check-deps: ${p}`);
  if (problems.length) process.exit(1);
  console.log("check-deps: the import graph follows the architecture");
}
