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
    };

export const CONTROL_USAGE = [
  "usage: npm run cluster -- <command>",
  "  start                 start the local cluster in the background (as npm start -- --background)",
  "  stop                  stop it (as Ctrl-C does: services, then Redis, then Kafka) and wait (npm run stop)",
  "  status                whether it runs: the launcher's pid, each process's state, pid and address",
  "  reset                 remove the data dir's cluster state (Kafka's log, Redis, credentials, logs); refused while it runs",
  "  logs [name...]        follow the processes' log files, readable (npm run logs [-- name...])",
  "       [--no-follow] [--lines N] [--json]",
].join("\n");

/** Lines of each file printed before following it. */
const DEFAULT_LINES = 20;

export function parseControlArgs(argv: readonly string[]): ControlArgs {
  const [command, ...rest] = argv;
  if (command === "start" || command === "stop" || command === "status" || command === "reset") {
    if (rest.length > 0) throw new UsageError(`${command} takes no arguments (got ${rest.join(" ")})\n${CONTROL_USAGE}`);
    return { command };
  }
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
