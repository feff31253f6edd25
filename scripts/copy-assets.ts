/**
 * The second half of `npm run build` (after `tsc -b tsconfig.build.json`): copies every file of each
 * built package's source root that tsc does not compile (Lua scripts, .mjs probes, anything not .ts)
 * to the same place under its output root, so code that reads them beside itself
 * (`new URL("./lua/x.lua", import.meta.url)`) finds them from dist/ as from src/. A file is copied
 * only when missing or different in size or age, so a build with nothing new costs a directory walk.
 *
 * Runs with Node's own type stripping (`node scripts/copy-assets.ts`): it imports only built-ins, so
 * it needs neither tsx nor a build. The packages are the references of tsconfig.build.json; each one's
 * roots are its tsconfig.json's rootDir and outDir (default src and dist, as tsconfig.package.json),
 * and the folders walked its `include` (default the rootDir): proto's root holds gen/ and src/ beside
 * its .proto sources and its dist/, and only the two included folders are its build's.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");

/** tsconfig files are JSON with comments. */
function readJsonc(path: string): any {
  const text = readFileSync(path, "utf8").replace(/\/\*[\s\S]*?\*\/|("(?:\\.|[^"\\])*")|\/\/[^\n]*/g, (m, str) => str ?? "");
  return JSON.parse(text);
}

function* filesUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield path;
  }
}

let copied = 0;
for (const ref of readJsonc(join(ROOT, "tsconfig.build.json")).references as { path: string }[]) {
  const pkg = resolve(ROOT, ref.path);
  const options = readJsonc(join(pkg, "tsconfig.json")).compilerOptions ?? {};
  const src = resolve(pkg, options.rootDir ?? "src");
  const out = resolve(pkg, options.outDir ?? "dist");
  const included = ((readJsonc(join(pkg, "tsconfig.json")).include as string[] | undefined) ?? [src]).map((d) =>
    resolve(pkg, d.replace("${configDir}/", "")),
  );
  for (const file of included.flatMap((d) => [...filesUnder(d)])) {
    if (file.endsWith(".ts")) continue;
    const target = join(out, relative(src, file));
    const from = statSync(file);
    const to = statSync(target, { throwIfNoEntry: false });
    if (to && to.size === from.size && to.mtimeMs >= from.mtimeMs) continue;
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(file, target);
    copied++;
  }
}
if (copied > 0) console.log(`copy-assets: ${copied} file(s) copied into dist/`);
