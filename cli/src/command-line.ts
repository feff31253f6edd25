/**
 * The command line, read by the command tables (tables/): `<command> [--flag value | --flag=value]...`,
 * a group's subcommand second (`boards create`), the connection flags (tables/index.ts) anywhere
 * after the command. `--help`, `-h` or `help` (first) ask for help: the tool's, or a command's.
 *
 * Everything the tables do not list is refused with a UsageError of one line that names the
 * flag and the rule: an unknown command or flag (with the nearest name, if one is near), a value
 * that does not parse, a flag given twice, a required flag missing, flags that exclude each other.
 * A value may begin with one dash (`--min -5`); one that begins with two needs `--flag=--value`.
 */
import { INVOCATION, type Command } from "./command-table.js";
import { UsageError } from "./errors.js";
import type { Flag, Values } from "./flags.js";
import { commandHelp, groupHelp, toolHelp } from "./help.js";
import { COMMANDS, CONNECTION, GROUP_DEFAULTS, type CommandName } from "./tables/index.js";

export type CommandLine =
  | { readonly kind: "help"; readonly text: string }
  | {
      readonly kind: "run";
      readonly name: CommandName;
      readonly values: Readonly<Record<string, unknown>>;
      readonly connection: Values<typeof CONNECTION>;
    };

const HELP = new Set(["--help", "-h", "help"]);
const isHelp = (token: string) => token === "--help" || token === "-h";

/** What the command line asks for; throws a UsageError for anything the tables do not allow. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  if (argv.length === 0) throw new UsageError(`which command? ${INVOCATION} --help lists them`);
  const [first, ...rest] = argv as [string, ...string[]];
  if (HELP.has(first)) return rest.length ? helpOf(rest) : { kind: "help", text: toolHelp() };
  const { name, tokens } = commandOf(argv);
  if (name === undefined) return { kind: "help", text: groupHelp(first) };
  const spec: Command = COMMANDS[name];
  if (tokens.some(isHelp)) return { kind: "help", text: commandHelp(spec) };
  const given = readFlags(spec, tokens);
  const values: Record<string, unknown> = {};
  for (const [flag, f] of Object.entries(spec.flags)) values[flag] = given.get(flag) ?? defaultOf(f, flag);
  checkPresence(spec, given);
  const connection = Object.fromEntries(Object.keys(CONNECTION).map((k) => [k, given.get(k)])) as Values<typeof CONNECTION>;
  return { kind: "run", name, values, connection };
}

/** `help top`, `help boards create`: that command's help. */
function helpOf(words: readonly string[]): CommandLine {
  if (words.length === 1 && words[0]! in GROUP_DEFAULTS) return { kind: "help", text: groupHelp(words[0]!) };
  const { name, tokens } = commandOf(words);
  if (name === undefined) return { kind: "help", text: groupHelp(words[0]!) };
  if (tokens.length) throw new UsageError(`help takes a command only (got ${JSON.stringify(tokens.join(" "))})`);
  return { kind: "help", text: commandHelp(COMMANDS[name]) };
}

/** The command the words name and the tokens after it; no name for a group asked for help (`boards --help`). */
function commandOf(words: readonly string[]): { name: CommandName | undefined; tokens: readonly string[] } {
  const [first = "", second] = words;
  if (first.startsWith("-"))
    throw new UsageError(
      `the command comes first (got ${first}): ${INVOCATION} <command> [flags]; ${INVOCATION} --help lists the commands`,
    );
  if (first in COMMANDS) return { name: first as CommandName, tokens: words.slice(1) };
  const subcommands = Object.keys(COMMANDS).filter((n) => n.startsWith(`${first} `));
  if (subcommands.length === 0)
    throw new UsageError(
      `unknown command ${JSON.stringify(first)}${suggest(
        first,
        Object.keys(COMMANDS).map((n) => n.split(" ")[0]!),
      )}: ${INVOCATION} --help lists the commands`,
    );
  if (second === undefined || second.startsWith("-")) {
    if (second !== undefined && isHelp(second)) return { name: undefined, tokens: [] };
    return { name: GROUP_DEFAULTS[first]!, tokens: words.slice(1) };
  }
  const name = `${first} ${second}`;
  if (!(name in COMMANDS)) {
    const subs = subcommands.map((n) => n.split(" ")[1]!);
    throw new UsageError(`${first} has no subcommand ${JSON.stringify(second)}${suggest(second, subs)}: it has ${subs.join(", ")}`);
  }
  return { name: name as CommandName, tokens: words.slice(2) };
}

/** The flags given, parsed, by name. */
function readFlags(spec: Command, tokens: readonly string[]): Map<string, unknown> {
  const given = new Map<string, unknown>();
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (!token.startsWith("--"))
      throw new UsageError(`${spec.name}: unexpected ${JSON.stringify(token)}: flags are --name value (${INVOCATION} ${spec.name} --help)`);
    const eq = token.indexOf("=");
    const name = token.slice(2, eq < 0 ? undefined : eq);
    const flag: Flag | undefined = Object.hasOwn(spec.flags, name)
      ? spec.flags[name]
      : Object.hasOwn(CONNECTION, name)
        ? CONNECTION[name as keyof typeof CONNECTION]
        : undefined;
    if (!flag) {
      const near = suggest(name, [...Object.keys(spec.flags), ...Object.keys(CONNECTION)], "--");
      throw new UsageError(`${spec.name} has no flag --${name}${near}: ${INVOCATION} ${spec.name} --help lists its flags`);
    }
    if (given.has(name)) throw new UsageError(`--${name} is given twice`);
    let text: string | undefined;
    if (eq >= 0) text = token.slice(eq + 1);
    else {
      const next = tokens[i + 1];
      const takesNext = next !== undefined && !next.startsWith("--") && (flag.bare === undefined || flag.parse(next).ok);
      if (takesNext) text = tokens[++i];
      else if (flag.bare === undefined) throw new UsageError(`--${name} needs a value: ${flag.placeholder} (${flag.meaning})`);
    }
    if (text === undefined) {
      given.set(name, flag.bare);
      continue;
    }
    const parsed = flag.parse(text);
    if (!parsed.ok) throw new UsageError(`--${name} ${parsed.rule}`);
    given.set(name, parsed.value);
  }
  return given;
}

/** Required flags, and the sets of which one (or at least one) must be given. */
function checkPresence(spec: Command, given: ReadonlyMap<string, unknown>): void {
  const missing = Object.entries(spec.flags)
    .filter(([name, f]) => f.required && !given.has(name))
    .map(([name]) => `--${name}`);
  if (missing.length)
    throw new UsageError(
      `${spec.name} needs ${missing.join(" and ")}${missing.length === 1 ? ` (${spec.flags[missing[0]!.slice(2)]!.meaning})` : ""}`,
    );
  for (const set of spec.exactlyOne ?? []) {
    const there = set.filter((n) => given.has(n));
    if (there.length === 0) throw new UsageError(`${spec.name} needs one of ${set.map((n) => `--${n}`).join(", ")}`);
    if (there.length > 1) throw new UsageError(`${spec.name} takes only one of ${there.map((n) => `--${n}`).join(", ")}`);
  }
  for (const set of spec.atLeastOne ?? []) {
    if (!set.some((n) => given.has(n))) throw new UsageError(`${spec.name} needs ${set.map((n) => `--${n}`).join(" or ")} (or both)`);
  }
}

/** A flag's default, parsed as a given value would be; undefined without one. */
function defaultOf(f: Flag, name: string): unknown {
  if (f.default === undefined) return undefined;
  const parsed = f.parse(f.default);
  if (!parsed.ok) throw new Error(`the table's default of --${name} ${parsed.rule}`);
  return parsed.value;
}

/** " (did you mean X?)" for the nearest of `names` within two edits (or sharing its start), else "". */
export function suggest(word: string, names: readonly string[], prefix = ""): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const n of new Set(names)) {
    const d = n.startsWith(word) && word.length >= 3 ? 1 : distance(word, n);
    if (d < bestDistance) [best, bestDistance] = [n, d];
  }
  return best === undefined ? "" : ` (did you mean ${prefix}${best}?)`;
}

/** Levenshtein distance. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}
