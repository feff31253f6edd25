// Processes started from this checkout (the services, the launcher, the CLI, the load tools) run the
// JavaScript `npm run build` compiled, never TypeScript through a loader: callers name a program by
// its source file, as the code and the docs do (router/src/main.ts), and start the file it compiles
// to (router/dist/main.js: each package's src/ builds into its dist/, tsconfig.build.json) — or, for
// the programs started many times over (the services, the CLI), the one-file bundle of it beside it
// (router/dist/main.bundle.js, scripts/bundle.ts), which starts in about half the CPU.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The absolute path of the compiled file of `source` (relative to the repository, under a src/
 * folder, .ts): its last `src/` becomes `dist/`, `.ts` becomes `.js` (`.bundle.js` where the build
 * bundled it). Throws when `source` is not a source file, or when its build is missing (then `npm
 * run build` makes it).
 */
export function builtEntry(source: string): string {
  const at = source.lastIndexOf("src/");
  if (!source.endsWith(".ts") || at < 0 || (at > 0 && source[at - 1] !== "/")) {
    throw new Error(`"${source}" is not a TypeScript file under a src/ folder`);
  }
  const built = join(REPO, `${source.slice(0, at)}dist/${source.slice(at + 4, -3)}.js`);
  if (!existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` first`);
  const bundle = built.replace(/\.js$/, ".bundle.js");
  return existsSync(bundle) ? bundle : built;
}

/** The command and arguments that start `source`'s build with this process's Node. */
export function nodeCommand(source: string, args: readonly string[] = []): { command: string; args: string[] } {
  return { command: process.execPath, args: [builtEntry(source), ...args] };
}
