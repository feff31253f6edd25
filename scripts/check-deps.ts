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
 *     kafkajs, its internal modules included (KAFKA_ONLY_IN below);
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
 *     (devDependencies count only for test files: *.test.ts, test/);
 *   - kafkajs (and any kafkajs/… module) is imported by log/ alone (KAFKA_ONLY_IN);
 *   - no import circle between files, in any package, through relative and @ladder imports
 *     alike (type-only imports count: a circle of types is a circle of ideas).
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
/** Which @ladder packages each package may depend on. */
export const ALLOWED: Readonly<Record<string, readonly string[]>> = Object.freeze({
  proto: [],
  client: ["proto"],
  model: ["proto"],
  platform: ["proto", "model"],
  log: ["proto", "model", "platform"],
  store: ["proto", "model", "platform"],
  ingest: ["proto", "model", "platform", "log", "store"],
  "shard-node": ["proto", "model", "platform", "log", "store"],
  router: ["proto", "model", "platform", "log", "store"],
  gateway: ["proto", "client", "model", "platform"],
  cli: ["proto", "client", "model", "platform"],
  deploy: ["proto", "model", "platform", "log"],
  loadtest: ["proto", "client", "model", "platform", "log", "store", "deploy"],
  test: ["proto", "client", "model", "platform", "log", "store", "deploy"],
});

/** The Kafka client library, and the one package that may import it. */
export const KAFKA_CLIENTS: readonly string[] = Object.freeze(["kafkajs"]);
export const KAFKA_ONLY_IN = "log";

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
  /** package.json `exports` (subpath → source file: the "@ladder/source" condition's), for resolving `@ladder/x/y` to a file; default `./*` → `./src/*.ts`. */
  exports?: Readonly<Record<string, string>>;
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
    const allowedDep = (dep: string, dev: boolean) =>
      allowed.includes(dep.slice("@ladder/".length)) || (dev && forTests.includes(dep.slice("@ladder/".length)));
    for (const dep of pkg.deps)
      if (dep.startsWith("@ladder/") && !allowedDep(dep, false))
        problems.push(`${pkg.dir}/package.json: depends on ${dep}, which the architecture forbids`);
    for (const dep of pkg.devDeps)
      if (dep.startsWith("@ladder/") && !allowedDep(dep, true))
        problems.push(`${pkg.dir}/package.json: depends on ${dep}, which the architecture forbids`);
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
          else if (!allowed.includes(name.slice("@ladder/".length)))
            problems.push(`${where}: imports ${name}, which the architecture forbids`);
          continue;
        }
        if (!pkg.deps.has(name) && !(isTestFile(pkg.dir, file) && pkg.devDeps.has(name)))
          problems.push(`${where}: imports ${name}, which ${pkg.dir}/package.json does not declare`);
        if (KAFKA_CLIENTS.includes(name) && pkg.dir !== KAFKA_ONLY_IN)
          problems.push(`${where}: imports ${name}; Kafka is used through @ladder/log only`);
      }
    }
  }
  return [...problems, ...circles(packages)];
}

/** Each export's source file: the "@ladder/source" condition of a conditional export, or the export itself. */
function sourceExports(exports: Record<string, string | Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(exports).map(([k, v]) => [k, typeof v === "string" ? v : (v["@ladder/source"] ?? v.default ?? "")]),
  );
}

/** The file an import names, as "<package dir>/<path>", or undefined (not a workspace file). */
function resolveImport(byName: ReadonlyMap<string, PackageInfo>, pkg: PackageInfo, file: string, spec: string): string | undefined {
  let target: PackageInfo | undefined;
  let path: string | undefined;
  if (spec.startsWith(".")) {
    target = pkg;
    path = join(dirname(file), spec).split(sep).join("/").replace(/\.js$/, ".ts");
  } else if (spec.startsWith("@ladder/")) {
    target = byName.get(packageName(spec));
    if (!target) return undefined;
    const sub = `.${spec.slice(packageName(spec).length)}`;
    const exports = target.exports ?? { "./*": "./src/*.ts" };
    const exact = exports[sub];
    const wild = Object.entries(exports).find(([k]) => k.endsWith("*") && sub.startsWith(k.slice(0, -1)));
    const to = exact ?? wild?.[1].replace("*", sub.slice(wild[0].length - 1));
    path = to?.replace(/^\.\//, "");
  }
  if (!target || path === undefined) return undefined;
  for (const candidate of [path, `${path}.ts`, path.replace(/\.ts$/, ".d.ts")])
    if (target.files.has(candidate)) return `${target.dir}/${candidate}`;
  return undefined;
}

/**
 * Every import circle between files, one line each ("import circle: a → b → a"), found as the
 * strongly connected components of the file graph (Tarjan).
 */
export function circles(packages: readonly PackageInfo[]): string[] {
  const byName = new Map(packages.map((p) => [`@ladder/${p.dir}`, p]));
  const edges = new Map<string, string[]>();
  for (const pkg of packages) {
    for (const [file, source] of pkg.files) {
      const id = `${pkg.dir}/${file}`;
      const out = new Set<string>();
      for (const spec of importsOf(source)) {
        const to = resolveImport(byName, pkg, file, spec);
        if (to) out.add(to);
      }
      edges.set(id, [...out].sort());
    }
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = new Set<string>();
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.add(w);
      if (w === v) break;
    }
    if (component.size > 1 || (edges.get(v) ?? []).includes(v)) found.push(`import circle: ${cycleIn(component, edges).join(" → ")}`);
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort();
}

/** One cycle through the first file (by name) of a strongly connected component: a shortest way back to it. */
function cycleIn(component: ReadonlySet<string>, edges: ReadonlyMap<string, readonly string[]>): string[] {
  const start = [...component].sort()[0]!;
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of edges.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u = v; u !== start; u = from.get(u)!) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/** Reads the workspace packages named in the root package.json. */
export function readWorkspace(root: string): PackageInfo[] {
  const rootPkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { workspaces: string[] };
  return rootPkg.workspaces.map((dir) => {
    const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as {
      dependencies?: object;
      devDependencies?: object;
      exports?: Record<string, string | Record<string, string>>;
    };
    const files = new Map<string, string>();
    for (const path of walk(join(root, dir))) files.set(relative(join(root, dir), path).split(sep).join("/"), readFileSync(path, "utf8"));
    return {
      dir,
      deps: new Set(Object.keys(pkg.dependencies ?? {})),
      devDeps: new Set(Object.keys(pkg.devDependencies ?? {})),
      files,
      ...(pkg.exports ? { exports: sourceExports(pkg.exports) } : {}),
    };
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
  JSON.parse(
    readFileSync(path, "utf8").replace(/\/\*[\s\S]*?\*\/|("(?:\\.|[^"\\])*")|\/\/[^\n]*/g, (m, str: string | undefined) => str ?? ""),
  );

/** Where the build's project references differ from the packages' @ladder dependencies. */
export function referenceProblems(root: string, packages: readonly PackageInfo[]): string[] {
  const problems: string[] = [];
  const built = new Set(
    (readJsonc(join(root, "tsconfig.build.json")).references as { path: string }[]).map((r) => r.path.replace(/^\.\//, "")),
  );
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
    const deps = [...pkg.deps]
      .filter((d) => d.startsWith("@ladder/"))
      .map((d) => d.slice("@ladder/".length))
      .sort();
    if (refs.join() !== deps.join())
      problems.push(
        `${pkg.dir}/tsconfig.json: references [${refs.join(", ")}], but ${pkg.dir}/package.json depends on [${deps.join(", ")}]`,
      );
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
