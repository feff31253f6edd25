// The command lines of the launcher (`npm start -- [options]`, main.ts) and of its control
// commands (`npm run cluster -- <command>`, control.ts; `npm run stop` and `npm run logs` are
// shortcuts), parsed into plain objects. A word that is not understood is a UsageError naming it.
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export interface StartArgs {
  /** Start, wait until the cluster runs, print where it is, and return (the launcher stays behind). */
  readonly background: boolean;
  /** Internal: this is the launcher a background start left behind (no terminal, logs only). */
  readonly detached: boolean;
  /** The terminal's lines: readable, or JSON (default: readable on a terminal, JSON otherwise). */
  readonly format: "pretty" | "json" | undefined;
}

export const START_USAGE = "usage: npm start [-- --background] [-- --pretty | --json]";

export function parseStartArgs(argv: readonly string[]): StartArgs {
  let background = false;
  let detached = false;
  let format: StartArgs["format"];
  for (const arg of argv) {
    if (arg === "--background" || arg === "-b") background = true;
    else if (arg === "--detached") detached = true;
    else if (arg === "--pretty" || arg === "--json") format = arg === "--pretty" ? "pretty" : "json";
    else throw new UsageError(`unknown option ${arg}; ${START_USAGE}`);
  }
  return { background, detached, format };
}

export type ControlArgs =
  | { readonly command: "start" | "stop" | "status" | "reset" }
  | {
      readonly command: "logs";
      readonly names: readonly string[];
      readonly follow: boolean;
      readonly lines: number;
      readonly json: boolean;
    }
  | {
      readonly command: "profile";
      readonly name: string;
      readonly seconds: number;
      /** Where the profile goes; undefined: <data dir>/profiles/<name>-<time>.cpuprofile. */
      readonly out: string | undefined;
    };

export const CONTROL_USAGE = [
  "usage: npm run cluster -- <command>",
  "  start                 start the local cluster in the background (as npm start -- --background)",
  "  stop                  stop it (as Ctrl-C does: services, then Redis, then Kafka) and wait (npm run stop)",
  "  status                whether it runs: the launcher's pid, each process's state, pid and address",
  "  reset                 remove the data dir's cluster state (Kafka's log, Redis, credentials, logs); refused while it runs",
  "  logs [name...]        follow the processes' log files, readable (npm run logs [-- name...])",
  "       [--no-follow] [--lines N] [--json]",
  "  profile <name>        a CPU profile of a running service (shard-N, router, ingest, gateway) without",
  "       [--seconds N]    restarting it: N seconds (10; 1 to 600) of samples into a .cpuprofile",
  "       [--out file]     (<data dir>/profiles/<name>-<time>.cpuprofile) and its hottest functions",
].join("\n");

/** Seconds a profile samples unless told. */
const DEFAULT_PROFILE_SECONDS = 10;
const MAX_PROFILE_SECONDS = 600;

/** Lines of each file printed before following it. */
const DEFAULT_LINES = 20;

export function parseControlArgs(argv: readonly string[]): ControlArgs {
  const [command, ...rest] = argv;
  if (command === "start" || command === "stop" || command === "status" || command === "reset") {
    if (rest.length > 0) throw new UsageError(`${command} takes no arguments (got ${rest.join(" ")})\n${CONTROL_USAGE}`);
    return { command };
  }
  if (command === "profile") return parseProfileArgs(rest);
  if (command !== "logs") throw new UsageError(`${command === undefined ? "no command" : `unknown command ${command}`}\n${CONTROL_USAGE}`);
  const names: string[] = [];
  let follow = true;
  let json = false;
  let lines = DEFAULT_LINES;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--no-follow") follow = false;
    else if (arg === "--json") json = true;
    else if (arg === "--lines" || arg === "-n") {
      const n = Number(rest[++i]);
      if (!Number.isInteger(n) || n < 0) throw new UsageError(`${arg} takes a number of lines (got ${rest[i] ?? "nothing"})`);
      lines = n;
    } else if (arg.startsWith("-")) throw new UsageError(`unknown option ${arg}\n${CONTROL_USAGE}`);
    else names.push(arg.replace(/\.log$/, ""));
  }
  return { command, names, follow, lines, json };
}

function parseProfileArgs(rest: readonly string[]): ControlArgs {
  let name: string | undefined;
  let seconds = DEFAULT_PROFILE_SECONDS;
  let out: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--seconds") {
      const n = Number(rest[++i]);
      if (!Number.isInteger(n) || n < 1 || n > MAX_PROFILE_SECONDS)
        throw new UsageError(`--seconds takes 1 to ${MAX_PROFILE_SECONDS} (got ${rest[i] ?? "nothing"})`);
      seconds = n;
    } else if (arg === "--out") {
      out = rest[++i];
      if (out === undefined || out === "") throw new UsageError("--out takes a file name");
    } else if (arg.startsWith("-")) throw new UsageError(`unknown option ${arg}\n${CONTROL_USAGE}`);
    else if (name === undefined) name = arg;
    else throw new UsageError(`profile takes one process name (got ${name} and ${arg})`);
  }
  if (name === undefined) throw new UsageError(`profile needs a process name (shard-0, router, ingest, gateway)\n${CONTROL_USAGE}`);
  return { command: "profile", name, seconds, out };
}
