/**
 * The last step of `npm run build` (after `tsc -b tsconfig.build.json` and copy-assets): each program
 * that runs as a process of its own many times over — the services, the CLI, the ACL tool of the
 * images — is bundled with esbuild from its compiled JavaScript
 * (`router/dist/main.js`) into one file beside it (`router/dist/main.bundle.js`), which is what
 * `builtEntry` (deploy/local/src/built-entry.ts), the npm scripts and the services image start.
 *
 * Why: a service's start spent most of its CPU resolving and compiling some 600 modules (its own
 * packages', kafkajs', grpc-js', ioredis', pino's…): about 0.8 s of a core before its first line of
 * work, paid by every start of every process (the test suite starts several hundred). One file is
 * read and compiled once: about half that. What runs is tsc's output, not a second compilation:
 * esbuild only joins the modules (no minifying, names and line structure kept for stack traces).
 *
 * Files read beside a module (`new URL("./lua/x.lua", import.meta.url)`: the store's Lua scripts, the
 * gateway's public files) stay where the build put them: in each of the repository's own modules,
 * `import.meta.url` is rewritten to that module's own URL, relative to the bundle, so the bundle
 * finds them wherever the checkout or the image puts the tree; CommonJS packages' `__dirname` and
 * `__filename` are their own files' in the same way (grpc-js's reflection reads its .proto files by
 * them), and they get a `require` for Node's built-ins (the banner).
 *
 * Runs with Node's own type stripping (`node scripts/bundle.ts`), like copy-assets. A bundle is
 * rewritten only when one of its inputs is newer than it, so a build with nothing new costs a stat of
 * each input (esbuild's metafile, kept beside the bundle, lists them).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { build, type Metafile, type Plugin } from "esbuild";

const ROOT = resolve(import.meta.dirname, "..");

/** The programs started as processes, by source file: each one's dist/ file is bundled beside it. */
const PROGRAMS = [
  "shard-node/src/main.ts",
  "router/src/main.ts",
  "ingest/src/main.ts",
  "gateway/src/main.ts",
  "cli/src/main.ts",
  "log/src/acls-main.ts",
];

/** `pkg/src/x.ts` → `pkg/dist/x.js` (as built-entry.ts maps it). */
const compiled = (source: string) => source.replace(/(^|\/)src\/(.*)\.ts$/, "$1dist/$2.js");
const bundleOf = (source: string) => compiled(source).replace(/\.js$/, ".bundle.js");

/** `file` relative to the directory of `outfile`, as a URL path starting with "./" or "../". */
function relativeTo(outfile: string, file: string): string {
  const rel = relative(dirname(outfile), file).split(sep).join("/");
  return rel.startsWith(".") ? rel : `./${rel}`;
}

/**
 * Keeps each module's own location: in the repository's modules, `import.meta.url` becomes the
 * module's own URL; in CommonJS packages that use `__dirname` or `__filename` (grpc-js's reflection
 * loads its .proto files by them), both are defined as the module's own, at the top of its wrapper.
 * Both are computed at run time from the bundle's URL, so the tree can move as a whole.
 */
function ownLocations(outfile: string): Plugin {
  return {
    name: "own-locations",
    setup(b) {
      b.onLoad({ filter: /\.(c|m)?js$/ }, (args) => {
        const text = readFileSync(args.path, "utf8");
        const rel = JSON.stringify(relativeTo(outfile, args.path));
        const resolveDir = dirname(args.path);
        if (!args.path.split(sep).includes("node_modules")) {
          if (!text.includes("import.meta.url")) return undefined;
          return { contents: text.replaceAll("import.meta.url", `new URL(${rel}, import.meta.url).href`), loader: "js", resolveDir };
        }
        if (!/\b__(dirname|filename)\b/.test(text) || /^\s*(import|export)\s/m.test(text)) return undefined;
        const own = `var __filename = __bundlePath(${rel}), __dirname = __bundleDirname(__filename);\n`;
        return { contents: own + text, loader: "js", resolveDir };
      });
    },
  };
}

/** Defines `require` (for CommonJS packages' use of Node's built-ins) and what ownLocations uses. */
const BANNER = [
  'import { createRequire as __bundleRequire } from "node:module";',
  'import { dirname as __bundleDirname } from "node:path";',
  'import { fileURLToPath as __bundleFileUrl } from "node:url";',
  "const require = __bundleRequire(import.meta.url);",
  "const __bundlePath = (rel) => __bundleFileUrl(new URL(rel, import.meta.url));",
].join("\n");

/** Whether the bundle at `outfile` is older than an input its last build listed (or missing). */
function stale(outfile: string): boolean {
  const meta = `${outfile}.meta.json`;
  if (!existsSync(outfile) || !existsSync(meta)) return true;
  const built = statSync(outfile).mtimeMs;
  if (statSync(import.meta.filename).mtimeMs > built) return true; // this script's options changed
  const inputs = Object.keys((JSON.parse(readFileSync(meta, "utf8")) as Metafile).inputs);
  return inputs.some((input) => {
    const s = statSync(join(ROOT, input), { throwIfNoEntry: false });
    return !s || s.mtimeMs > built;
  });
}

let bundled = 0;
for (const source of PROGRAMS) {
  const entry = join(ROOT, compiled(source));
  const outfile = join(ROOT, bundleOf(source));
  if (!stale(outfile)) continue;
  const result = await build({
    entryPoints: [entry],
    outfile,
    absWorkingDir: ROOT,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    metafile: true,
    logLevel: "warning",
    legalComments: "none",
    banner: { js: BANNER },
    plugins: [ownLocations(outfile)],
  });
  writeFileSync(`${outfile}.meta.json`, JSON.stringify(result.metafile));
  bundled++;
}
if (bundled > 0) console.log(`bundle: ${bundled} program(s) bundled into dist/*.bundle.js`);
