// The CLI as a user runs it (its build, node cli/dist/main.bundle.js, as `npm run cli` runs it; `npm test` builds first): exit statuses, one line per error,
// a refused connection against a closed port of 127.0.0.1; and what main.ts loads before it knows
// the command line is valid.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../..");
const dataDir = mkdtempSync(join(tmpdir(), "ladder-cli-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const env = { PATH: process.env.PATH ?? "", LADDER_DATA_DIR: dataDir };
    const child = spawn(process.execPath, [join(REPO, "cli/dist/main.bundle.js"), ...args], {
      cwd: REPO,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => void (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => void (stderr += b.toString()));
    child.once("exit", (code) => done({ code, stdout, stderr }));
  });
}

/** A port of 127.0.0.1 that nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe("cli > main", () => {
  it("prints the usage with --help and exits 0", async () => {
    const r = await cli(["--help"]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toMatch(/^ladder's command line/);
    expect(r.stdout).toContain("  boards create  ");
  }, 60_000);

  it("refuses a bad value in one line, exit status 2", async () => {
    expect(await cli(["submit", "--board", "g", "--player", "a", "--value", "abc"])).toEqual({
      code: 2,
      stdout: "",
      stderr: 'ladder: --value must be an integer (got "abc")\n',
    });
  }, 60_000);

  it("names the address and npm start when the connection is refused", async () => {
    const port = await closedPort();
    expect(await cli(["top", "--board", "global", "--router", `127.0.0.1:${port}`])).toEqual({
      code: 1,
      stdout: "",
      stderr: `ladder: cannot reach the router at 127.0.0.1:${port} (connection refused): is the cluster running? Start it with npm start\n`,
    });
    const r = await cli(["submit", "--board", "g", "--player", "a", "--value", "1", "--ingest", `127.0.0.1:${port}`]);
    expect(r.stderr).toBe(
      `ladder: cannot reach the ingest at 127.0.0.1:${port} (connection refused): is the cluster running? Start it with npm start\n`,
    );
  }, 60_000);

  it("loads neither gRPC, the generated code nor the config before the command line is valid", () => {
    const seen = new Set<string>();
    const bare: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = readFileSync(file, "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/^\s*\/\/.*$/gm, "");
      for (const m of code.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gm)) {
        const spec = m[1]!;
        if (spec.startsWith(".")) visit(resolve(dirname(file), spec.replace(/\.js$/, ".ts")));
        else bare.push(spec);
      }
    };
    visit(join(HERE, "main.ts"));
    expect(seen.size).toBeGreaterThan(5);
    expect(bare).toEqual(["node:module"]); // the compile cache, Node's own
    expect([...seen].map((f) => f.slice(HERE.length + 1))).not.toContain("run.ts");
  });
});
