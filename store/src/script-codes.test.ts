import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { APPLY_OP, APPLY_STATUS, luaPrelude, READ_STATUS, TIE_MODE, WINDOW_COMBINE } from "./script-codes.js";

const LUA = new URL("./lua/", import.meta.url);
const files = (dir: URL, under = ""): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(new URL(`${d.name}/`, dir), `${under}${d.name}/`) : d.name.endsWith(".lua") ? [`${under}${d.name}`] : [],
  );
const source = (name: string) => readFileSync(new URL(name, LUA), "utf8");
/** The Lua without its comments (a header may name a code's value). */
const code = (name: string) =>
  source(name)
    .replace(/--\[\[[\s\S]*?\]\]/g, "")
    .replace(/--.*$/gm, "");
const SHARED = [
  "apply-events.lua",
  "read-header.lua",
  "read-top.lua",
  "read-window.lua",
  "read-entry.lua",
  "read-standing.lua",
  "read-batch.lua",
  ...files(LUA).filter((f) => f.startsWith("includes/")),
];

describe("script codes > lua prelude", () => {
  it("declares every shared code as a local with its TypeScript value", () => {
    const declared = new Map([...luaPrelude().matchAll(/^local ([A-Z_]+) = (-?\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
    const expected: Array<[string, Record<string, number>]> = [
      ["OP", APPLY_OP],
      ["APPLY", APPLY_STATUS],
      ["READ", READ_STATUS],
      ["COMBINE", WINDOW_COMBINE],
      ["TIE", TIE_MODE],
    ];
    const all = expected.flatMap(([prefix, codes]) => Object.entries(codes).map(([name, value]) => [`${prefix}_${name}`, value] as const));
    expect(new Map(all)).toEqual(declared);
    expect(APPLY_OP).toMatchObject({ SET: 1, INCREMENT: 2, BEST: 3 }); // the proto's Operation, passed through as is
  });

  it("names every code the scripts use (an undeclared one would be a nil global in Redis)", () => {
    const declared = new Set([...luaPrelude().matchAll(/^local ([A-Z_]+) =/gm)].map((m) => m[1]));
    for (const f of SHARED)
      for (const m of code(f).matchAll(/\b(?:OP|APPLY|READ|COMBINE|TIE)_[A-Z_]+\b/g)) expect(declared, `${f}: ${m[0]}`).toContain(m[0]);
  });

  it("leaves no bare code in the scripts that share them", () => {
    const bare = /\b(?:op|status|combine|tie)\s*[=~]=\s*-?\d|\breturn\s*\{\s*-\d|\bstatus\s*=\s*-\d|\{\s*0\s*[,}]/;
    for (const f of SHARED)
      code(f)
        .split("\n")
        .forEach((line, i) => expect(bare.test(line), `${f}:${i + 1}: ${line.trim()}`).toBe(false));
  });
});

describe("store > lua files", () => {
  it("are at most 250 lines each, and every include opens with an Input/Output header", () => {
    for (const f of files(LUA)) {
      const text = source(f);
      expect(text.split("\n").length, f).toBeLessThanOrEqual(251);
      if (f.startsWith("includes/")) expect(text, f).toMatch(/^--\[\[[\s\S]*Input:[\s\S]*Output:[\s\S]*?\]\]/);
    }
  });
});
