import { describe, expect, it } from "vitest";
import { commandHelp, groupHelp, toolHelp } from "./help.js";
import { ALL, CONNECTION } from "./tables/index.js";

describe("cli > help", () => {
  it("lists every command in the tool's help, one line each", () => {
    const lines = toolHelp().split("\n");
    for (const c of ALL)
      expect(
        lines.filter((l) => l.startsWith(`  ${c.name} `)),
        c.name,
      ).toEqual([expect.stringContaining(c.summary)]);
    expect(toolHelp()).not.toContain("see cli/src/main.ts");
    expect(toolHelp()).toMatch(/^usage: npm run -s cli -- <command> \[flags\]$/m);
  });

  it("gives every command a usage line naming each flag, each flag's meaning and default, and an example", () => {
    for (const c of ALL) {
      const help = commandHelp(c);
      const usage = help.slice(0, help.indexOf("\n\n"));
      expect(usage, c.name).toMatch(new RegExp(`^usage: npm run -s cli -- ${c.name}\\b`));
      expect(help, c.name).toContain(`example:\n  npm run -s cli -- ${c.example}`);
      for (const [name, f] of Object.entries({ ...c.flags, ...CONNECTION })) {
        if (name in c.flags) expect(usage, `${c.name} --${name}`).toContain(`--${name} ${f.placeholder}`);
        const line = help.split("\n").find((l) => l.startsWith(`  --${name} `));
        expect(line, `${c.name} --${name}`).toBeDefined();
        expect(line, `${c.name} --${name}`).toContain(f.meaning);
        expect(line, `${c.name} --${name}`).toMatch(/; (required|default|exactly one of|at least one of)/);
      }
    }
  });

  it("documents every flag: a meaning, and a default or what leaving it out means", () => {
    for (const c of ALL) {
      const grouped = new Set([...(c.exactlyOne ?? []), ...(c.atLeastOne ?? [])].flat());
      for (const name of grouped) expect(c.flags, `${c.name}: its sets name its flags`).toHaveProperty([name]);
      for (const [name, f] of Object.entries(c.flags)) {
        expect(f.meaning.length, `${c.name} --${name}`).toBeGreaterThan(5);
        if (!f.required && !grouped.has(name)) expect(f.default ?? f.unsetMeans, `${c.name} --${name}: its default`).toBeDefined();
        if (f.default !== undefined) expect(f.parse(f.default).ok, `${c.name} --${name}: its default parses`).toBe(true);
      }
    }
  });

  it("shows a rule beside the flags whose placeholder does not say it", () => {
    const top = ALL.find((c) => c.name === "top")!;
    expect(commandHelp(top)).toMatch(/^ {2}--limit N +entries on the page, 1\.\.1000; default 10$/m);
    const at = ALL.find((c) => c.name === "at")!;
    expect(commandHelp(at)).toMatch(/^usage: npm run -s cli -- at --board B \(--rank K \| --top P\) \[--view NAME\]/);
    expect(commandHelp(at)).toMatch(/--top P +.*a number above 0 and at most 100; exactly one of --rank, --top$/m);
  });

  it("lists a group's subcommands", () => {
    expect(
      groupHelp("boards")
        .split("\n")
        .filter((l) => l.startsWith("  boards ")),
    ).toHaveLength(5);
  });
});
