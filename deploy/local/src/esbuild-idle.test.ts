// Every service runs its TypeScript through tsx, which compiles each module with esbuild's long-lived
// service process. esbuild 0.28 kept that process for the life of the service once anything was compiled,
// and it pings its parent every second: 0.002 of a core per service with nothing to do, a fifth of the idle
// cluster's budget on a first start (empty compile cache). patches/esbuild+0.28.2.patch stops it 5 s after
// the last compile; the next compile starts it again. Real processes: a TypeScript module run as the
// services run, with a fresh module compiled late.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("local cluster > esbuild's service process", () => {
  it("exits once a process has compiled nothing for a few seconds, and comes back for a late compile", async () => {
    const dir = await mkdtemp(join(tmpdir(), "esbuild-idle-"));
    dirs.push(dir);
    const tag = `${process.pid}${Date.now()}`; // new sources: nothing of them is in tsx's compile cache
    await writeFile(join(dir, "package.json"), '{"type":"module"}');
    await writeFile(join(dir, "early.ts"), `export const early: string = "early-${tag}";\n`);
    await writeFile(join(dir, "late.ts"), `export const late: string = "late-${tag}";\n`);
    await writeFile(join(dir, "main.ts"), `
import { execFileSync } from "node:child_process";
import { early } from "./early.ts";
const services = (): number => {
  try { return execFileSync("pgrep", ["-P", String(process.pid), "-x", "esbuild"]).toString().trim().split("\\n").length; }
  catch { return 0; } // pgrep: none
};
const until = async (want: number): Promise<number> => {
  for (let i = 0; i < 100 && services() !== want; i++) await new Promise((r) => setTimeout(r, 100));
  return services();
};
const seen: Array<[string, number]> = [["compiled", services()]];
seen.push(["idle", await until(0)]);
const { late } = await import("./late.ts");
seen.push(["late compile", services()]);
seen.push(["idle again", await until(0)]);
console.log(JSON.stringify({ early, late, seen }));
`);
    const { stdout } = await run(process.execPath, ["--import", "tsx", join(dir, "main.ts")], { cwd: process.cwd(), timeout: 60_000 });
    const out = JSON.parse(stdout.trim().split("\n").at(-1)!) as { early: string; late: string; seen: Array<[string, number]> };
    expect(out.early).toBe(`early-${tag}`);
    expect(out.late).toBe(`late-${tag}`);
    expect(out.seen).toEqual([["compiled", 1], ["idle", 0], ["late compile", 1], ["idle again", 0]]);
  }, 60_000);
});
