/**
 * Help, written from the command tables (tables/): the tool's (every command, one line each, and
 * the connection flags), a group's (`boards --help`), and a command's (its usage line, each flag
 * with its default and meaning, one example). Nothing here is written by hand per command, so
 * help says what parsing (command-line.ts) takes.
 */
import { INVOCATION, type Command } from "./command-table.js";
import type { Flag, Flags } from "./flags.js";
import { ALL, CONNECTION } from "./tables/index.js";

const WIDTH = 100;

export function toolHelp(): string {
  const width = Math.max(...ALL.map((c) => c.name.length));
  return [
    "ladder's command line: talk to a running cluster (start a local one with npm start).",
    "",
    `usage: ${INVOCATION} <command> [flags]`,
    `       ${INVOCATION} <command> --help    (its flags, their defaults, an example)`,
    "",
    "commands:",
    ...ALL.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "connection flags, taken by every command:",
    ...flagLines(CONNECTION),
    "",
    '-s keeps npm from printing its "> ladder@0.1.0 cli" banner; `npm run cli -- ...` works the same with it.',
  ].join("\n");
}

/** `boards --help`: the group's subcommands. */
export function groupHelp(group: string): string {
  const members = ALL.filter((c) => c.name.startsWith(`${group} `));
  const width = Math.max(...members.map((c) => c.name.length));
  return [
    `usage: ${INVOCATION} ${group} <${members.map((c) => c.name.slice(group.length + 1)).join("|")}> [flags]`,
    "",
    ...members.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    `${INVOCATION} ${group} <subcommand> --help shows its flags.`,
  ].join("\n");
}

export function commandHelp(c: Command): string {
  const own = Object.keys(c.flags).length ? ["flags:", ...flagLines(c.flags, c)] : ["flags: none of its own"];
  return [
    usageLine(c),
    "",
    ...wrap(sentence(c.summary) + (c.about ? ` ${c.about}` : "")),
    "",
    ...own,
    "",
    "connection flags:",
    ...flagLines(CONNECTION),
    "",
    "example:",
    `  ${INVOCATION} ${c.example}`,
  ].join("\n");
}

/** `usage: npm run -s cli -- at --board B (--rank K | --top P) [--view NAME]`, wrapped; a set where its first flag is. */
function usageLine(c: Command): string {
  const sets = [...(c.exactlyOne ?? []).map((s) => ({ s, exactly: true })), ...(c.atLeastOne ?? []).map((s) => ({ s, exactly: false }))];
  const parts: string[] = [];
  for (const [name, f] of Object.entries(c.flags)) {
    const set = sets.find(({ s }) => s.includes(name));
    if (!set) parts.push(f.required ? `--${name} ${f.placeholder}` : `[--${name} ${f.placeholder}]`);
    else if (set.s[0] === name) {
      const members = set.s.map((n) => `--${n} ${c.flags[n]!.placeholder}`);
      parts.push(set.exactly ? `(${members.join(" | ")})` : `(${members.map((m) => `[${m}]`).join(" ")}, one at least)`);
    }
  }
  const head = `usage: ${INVOCATION} ${c.name}`;
  const lines = [head];
  for (const p of parts) {
    if (lines.at(-1)!.length + 1 + p.length > WIDTH) lines.push(" ".repeat(head.length));
    lines[lines.length - 1] += ` ${p}`;
  }
  return lines.join("\n");
}

/** One line per flag: name and placeholder, meaning, rule, default. */
function flagLines(flags: Flags, c?: Command): string[] {
  const heads = Object.entries(flags).map(([name, f]) => `--${name} ${f.bare !== undefined ? `[${f.placeholder}]` : f.placeholder}`);
  const width = Math.max(...heads.map((h) => h.length));
  return Object.values(flags).map(
    (f, i) => `  ${heads[i]!.padEnd(width)}  ${f.meaning}${f.rule ? `, ${f.rule}` : ""}; ${presence(f, Object.keys(flags)[i]!, c)}`,
  );
}

/** "required", "default 10", "default: every board", "one of --rank, --top". */
function presence(f: Flag, name: string, c: Command | undefined): string {
  if (f.required) return "required";
  const set = [...(c?.exactlyOne ?? []), ...(c?.atLeastOne ?? [])].find((s) => s.includes(name));
  const bare = f.bare !== undefined ? "; alone: yes" : "";
  if (f.default !== undefined) return `default ${f.default}${bare}`;
  if (set)
    return `${c?.exactlyOne?.includes(set) ? "exactly" : "at least"} one of ${set.map((n) => `--${n}`).join(", ")}${f.unsetMeans ? `; default: ${f.unsetMeans}` : ""}`;
  return `default: ${f.unsetMeans ?? "none"}${bare}`;
}

const sentence = (s: string) => `${s[0]!.toUpperCase()}${s.slice(1)}.`;

/** Words in lines of at most WIDTH characters. */
function wrap(text: string): string[] {
  const lines = [""];
  for (const word of text.split(" ")) {
    if (lines.at(-1)!.length > 0 && lines.at(-1)!.length + 1 + word.length > WIDTH) lines.push("");
    lines[lines.length - 1] += lines.at(-1)!.length ? ` ${word}` : word;
  }
  return lines;
}
