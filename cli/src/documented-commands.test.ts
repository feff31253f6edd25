/**
 * The commands the documents show are commands that exist: every `npm run <script>` in README.md,
 * docs/*.md and the packages' READMEs names a script of package.json, and every CLI call they show
 * (`npm run -s cli -- <command> --flag ...`) names a command of the tables (tables/) and only flags
 * that command or the connection takes. Values are not parsed: a document may show a placeholder
 * (`--token "<token>"`) or a shell substitution; readme-tour.int.test.ts runs the README's tour.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS, CONNECTION, GROUP_DEFAULTS, type CommandName } from "./tables/index.js";

const REPO = join(import.meta.dirname, "..", "..");

/** The documents: README.md, docs/*.md, and each package's README.md. */
function documents(): { file: string; text: string }[] {
  const files = [
    "README.md",
    ...readdirSync(join(REPO, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  for (const entry of readdirSync(REPO, { withFileTypes: true }))
    if (entry.isDirectory() && !entry.name.startsWith(".") && entry.name !== "node_modules")
      if (readdirSync(join(REPO, entry.name)).includes("README.md")) files.push(`${entry.name}/README.md`);
  return files.map((file) => ({ file, text: readFileSync(join(REPO, file), "utf8") }));
}

/**
 * The shell words from `text[at]` to the end of the command: a newline, a backtick, a comment, a
 * pipe, `;`, `&&` or a `)` outside quotes ends it. Quotes are kept out of the words; a quoted word
 * (a substitution included) is one word.
 */
function shellWords(text: string, at: number): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = at; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const end = text.indexOf(c, i + 1);
      word = (word ?? "") + text.slice(i + 1, end < 0 ? undefined : end);
      i = end < 0 ? text.length : end;
    } else if (c === " " || c === "\t") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if ("\n`|;)".includes(c) || (c === "#" && word === undefined) || text.startsWith("&&", i)) break;
    else word = (word ?? "") + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

interface CliCall {
  readonly where: string;
  readonly words: readonly string[];
}

/** Every CLI call the documents show, with where it is (file:line). */
function cliCalls(): CliCall[] {
  const calls: CliCall[] = [];
  for (const { file, text } of documents())
    for (const m of text.matchAll(/npm run (?:-s |--silent )?cli -- /g)) {
      const words = shellWords(text, m.index + m[0].length).map((w) => w.replace(/^\[|\]$/g, ""));
      const line = text.slice(0, m.index).split("\n").length;
      if (words.length === 0 || /^(<|…|--help$|-h$|help$)/.test(words[0]!)) continue; // `<command> --help`, `…`
      calls.push({ where: `${file}:${line}`, words });
    }
  return calls;
}

/** The problem with a call (an unknown command, a flag its command does not take), or undefined. */
function callProblem(words: readonly string[]): string | undefined {
  const two = `${words[0]} ${words[1]}`;
  const name: CommandName | undefined =
    two in COMMANDS ? (two as CommandName) : words[0]! in COMMANDS ? (words[0] as CommandName) : GROUP_DEFAULTS[words[0]!];
  if (name === undefined) return `no command "${words[0]}"`;
  const grouped = !(two in COMMANDS) && !(words[0]! in COMMANDS); // `boards` alone: `boards list`
  if (grouped && words[1] !== undefined && !words[1].startsWith("--")) return `no command "${two}"`;
  const flags: Record<string, unknown> = { ...COMMANDS[name].flags, ...CONNECTION };
  for (const w of words.filter((x) => x.startsWith("--"))) {
    const flag = w.slice(2).split("=")[0]!;
    if (flag !== "help" && !(flag in flags)) return `${name} takes no --${flag}`;
  }
  return undefined;
}

describe("cli > documented commands", () => {
  it("finds the documents' CLI calls", () => {
    expect(cliCalls().length).toBeGreaterThan(40);
    expect(shellWords(`top --board demo --cursor "$(npm run -s cli -- top | sed 's/x//p')" --limit 5  # c`, 0)).toEqual([
      "top",
      "--board",
      "demo",
      "--cursor",
      "$(npm run -s cli -- top | sed 's/x//p')",
      "--limit",
      "5",
    ]);
    expect(callProblem(["top", "--board", "b", "--limt", "5"])).toBe("top takes no --limt");
    expect(callProblem(["boards", "craete"])).toBe('no command "boards craete"');
    expect(callProblem(["boards", "--prefix", "d"])).toBeUndefined(); // `boards` alone is `boards list`
    expect(callProblem(["tops"])).toBe('no command "tops"');
  });

  it("every CLI call a document shows names a command of the tables and only flags it takes", () => {
    const problems = cliCalls().flatMap(({ where, words }) => {
      const problem = callProblem(words);
      return problem ? [`${where}: cli -- ${words.join(" ")}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it("every `npm run <script>` a document shows names a script of package.json", () => {
    const scripts = Object.keys(JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).scripts);
    const shown = documents().flatMap(({ file, text }) =>
      [...text.matchAll(/npm run (?:-s |--silent )?([a-z][\w:-]*)/g)].map((m) => ({ file, script: m[1]! })),
    );
    expect(shown.length).toBeGreaterThan(50);
    expect(shown.filter((s) => !scripts.includes(s.script)).map((s) => `${s.file}: npm run ${s.script}`)).toEqual([]);
  });
});
