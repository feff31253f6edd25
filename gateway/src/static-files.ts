/**
 * The dashboard's files (gateway/public/: HTML, plain JavaScript modules, CSS; no build step),
 * read once at start and served from memory: only those files exist, so no path can reach
 * anything else. `/` is index.html. Served with `Cache-Control: no-cache` (a browser revalidates,
 * and a new checkout is seen at once) and a Content-Security-Policy that lets the page load only
 * its own scripts and styles and talk only to the gateway.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const PUBLIC_DIR = fileURLToPath(new URL("../public/", import.meta.url));

const TYPES: Readonly<Record<string, string>> = Object.freeze({
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
});

const HEADERS = Object.freeze({
  "Cache-Control": "no-cache",
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
});

export interface StaticFile {
  body: Buffer;
  headers: Record<string, string>;
}

/** Every file under `dir` by its URL path ("/index.html", "/js/app.js"), and "/" for index.html. */
export function loadStaticFiles(dir = PUBLIC_DIR): ReadonlyMap<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const path of walk(dir)) {
    const type = TYPES[extname(path)];
    if (type === undefined) continue;
    const urlPath = "/" + relative(dir, path).split(sep).join("/");
    files.set(urlPath, { body: readFileSync(path), headers: { ...HEADERS, "Content-Type": type } });
  }
  const index = files.get("/index.html");
  if (index) files.set("/", index);
  return files;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}
