/**
 * Parsers of command-line values shared by the loadtest and the seeder. Each returns the
 * value or throws an Error naming the flag, so a caller can collect every problem: `readFlags`
 * does, and reports them all together.
 */
import { parseArgs } from "node:util";

/** An integer count, allowing 1_000_000, 1,000,000, 1e9 and suffixes k, M, G (10^3, 10^6, 10^9). */
export function parseCount(flag: string, text: string, min: number, max: number): number {
  const m = /^([0-9.e+]+)([kMG]?)$/.exec(text.replace(/[_,]/g, ""));
  const value = m ? Number(m[1]) * { "": 1, k: 1e3, M: 1e6, G: 1e9 }[m[2] as "" | "k" | "M" | "G"] : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw new Error(`--${flag}: "${text}" must be an integer from ${min} to ${max}`);
  return value;
}

/** A number, possibly fractional, in [min, max]. */
export function parseNumber(flag: string, text: string, min: number, max: number): number {
  const value = text.trim() === "" ? NaN : Number(text.replace(/_/g, ""));
  if (!Number.isFinite(value) || value < min || value > max) throw new Error(`--${flag}: "${text}" must be a number from ${min} to ${max}`);
  return value;
}

/** A duration: 500ms, 30s, 2m, 1h, 30d, or a bare number of seconds. Returns ms. */
export function parseDuration(flag: string, text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m) throw new Error(`--${flag}: "${text}" is not a duration like 30s, 500ms, 2m`);
  const ms = Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 }[(m[2] ?? "s") as "ms" | "s" | "m" | "h" | "d"];
  if (!(ms > 0)) throw new Error(`--${flag}: "${text}" must be longer than 0`);
  return ms;
}

/** host:port, where host must be a loopback address (this tool only loads local clusters). */
export function parseLoopbackAddress(flag: string, text: string): string {
  const m = /^(.+):(\d{1,5})$/.exec(text);
  if (!m || Number(m[2]) > 65535) throw new Error(`--${flag}: "${text}" is not host:port`);
  if (!isLoopbackHost(m[1]!))
    throw new Error(`--${flag}: "${text}" is not a loopback address; the loadtest only targets 127.0.0.0/8, ::1 or localhost`);
  return text;
}

/** Whether `host` (a name or an address, IPv6 possibly in brackets) is this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Prints `usage` and exits 0 when the command line asks for --help. */
export function exitOnHelp(usage: string): void {
  if (!process.argv.includes("--help")) return;
  console.log(usage);
  process.exit(0);
}

/** The options `parse` makes of the command line's arguments; prints its error and exits 2 when it throws. */
export function parseOrExit<T>(parse: (argv: string[]) => T): T {
  try {
    return parse(process.argv.slice(2));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
}

/**
 * The flags of `argv`: those `usage` lists, each at the start of one of its lines (`  --name ...`),
 * so that the help and the parser cannot disagree; they take a value, but `booleans`. The readers
 * parse a flag's value (`fallback` when it is not given), collect its problem instead of throwing
 * and return undefined then; `done` throws every problem collected, with the usage.
 */
export function readFlags(argv: readonly string[], usage: string, booleans: readonly string[] = []) {
  const names = [...usage.matchAll(/^ {2}--([a-z-]+)/gm)].map((m) => m[1]!);
  const type = (name: string) => (booleans.includes(name) ? ("boolean" as const) : ("string" as const));
  const { values } = parseArgs({ args: [...argv], strict: true, options: Object.fromEntries(names.map((n) => [n, { type: type(n) }])) });
  const problems: string[] = [];
  const get = <T>(name: string, fallback: string, parse: (text: string) => T): T => {
    try {
      return parse((values[name] as string | undefined) ?? fallback);
    } catch (err) {
      problems.push((err as Error).message);
      return undefined as T;
    }
  };
  return {
    /** The flags given, as written. */
    flag: values as Partial<Record<string, string>>,
    on: (name: string) => values[name] === true,
    problems,
    get,
    count: (name: string, fallback: string, min: number, max: number) => get(name, fallback, (t) => parseCount(name, t, min, max)),
    number: (name: string, fallback: string, min: number, max: number) => get(name, fallback, (t) => parseNumber(name, t, min, max)),
    duration: (name: string, fallback: string) => get(name, fallback, (t) => parseDuration(name, t)),
    done(): void {
      if (problems.length) throw new Error(`invalid options:\n  - ${problems.join("\n  - ")}\n${usage}`);
    },
  };
}
