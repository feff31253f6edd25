// Runs one long-lived child process (a Kafka broker, a redis-server) and controls how it ends.
//
// The child's stdout and stderr are split into lines, logged (debug unless the caller's `levelOf` says
// otherwise) and the last few kept for error messages. The child is sent `parentExitSignal` when this
// Node process exits normally, so it does not outlive its parent; a parent killed by a signal it does not
// handle (SIGKILL, or SIGTERM without a handler) cannot do that, so services should handle SIGTERM/SIGINT.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Logger } from "@ladder/platform/logger";

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all (e.g. ENOENT). */
  error?: Error;
}

export type LineLevel = "debug" | "info" | "warn" | "error";

export interface ManagedProcessOptions {
  command: string;
  args: string[];
  cwd?: string;
  /** The child's whole environment (as for child_process.spawn); this process's when absent. */
  env?: Record<string, string | undefined>;
  log: Logger;
  /** Level at which to log each output line; debug when absent. */
  levelOf?: (line: string) => LineLevel;
  /** Called with each output line (stdout and stderr) after it is logged, e.g. to spot a ready line. */
  onLine?: (line: string) => void;
  /** Signal sent to the child when this process exits; SIGTERM lets it shut down cleanly. */
  parentExitSignal?: NodeJS.Signals;
  /** How many output lines to keep for `output()`. */
  tailLines?: number;
}

export interface ManagedProcess {
  readonly pid: number | undefined;
  /** When it was spawned (Unix ms). */
  readonly startedAtMs: number;
  /** Resolves (never rejects) when the process has exited or failed to start. */
  readonly exited: Promise<ExitStatus>;
  hasExited(): boolean;
  /** The last lines the process printed, oldest first. */
  output(): string;
  /** SIGTERM, then SIGKILL if it is still running after `graceMs`; resolves once it has exited. */
  stop(graceMs: number): Promise<ExitStatus>;
  /** SIGKILL; resolves once it has exited. */
  kill(): Promise<ExitStatus>;
}

// One "exit" listener for all children (a listener each would trip Node's leak warning at 11).
const liveChildren = new Set<() => void>();
process.on("exit", () => {
  for (const killChild of liveChildren) killChild();
});

export function spawnManaged(opts: ManagedProcessOptions): ManagedProcess {
  const { command, args, cwd, env, log, levelOf = () => "debug", onLine: watch, parentExitSignal = "SIGTERM", tailLines = 60 } = opts;
  const startedAtMs = Date.now();
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const tail: string[] = [];
  let status: ExitStatus | undefined;

  const onLine = (line: string): void => {
    tail.push(line);
    if (tail.length > tailLines) tail.shift();
    log[levelOf(line)]({ line }, "output");
    watch?.(line);
  };
  createInterface({ input: child.stdout }).on("line", onLine);
  createInterface({ input: child.stderr }).on("line", onLine);

  const onParentExit = (): void => {
    child.kill(parentExitSignal);
  };
  liveChildren.add(onParentExit);

  const exited = new Promise<ExitStatus>((resolve) => {
    const finish = (s: ExitStatus): void => {
      if (status !== undefined) return;
      status = s;
      liveChildren.delete(onParentExit);
      resolve(s);
    };
    child.once("error", (error) => finish({ code: null, signal: null, error }));
    child.once("exit", (code, signal) => finish({ code, signal }));
  });

  const hasExited = (): boolean => status !== undefined;

  async function stop(graceMs: number): Promise<ExitStatus> {
    if (hasExited()) return exited;
    child.kill("SIGTERM");
    const timer = setTimeout(() => {
      log.warn({ pid: child.pid, graceMs }, "process ignored SIGTERM; sending SIGKILL");
      child.kill("SIGKILL");
    }, graceMs);
    const s = await exited;
    clearTimeout(timer);
    return s;
  }

  async function kill(): Promise<ExitStatus> {
    if (!hasExited()) child.kill("SIGKILL");
    return exited;
  }

  return { pid: child.pid, startedAtMs, exited, hasExited, output: () => tail.join("\n"), stop, kill };
}

/** "exited with code 1", "killed by SIGKILL" or "failed to start: ..." for error messages. */
export function describeExit(s: ExitStatus): string {
  if (s.error !== undefined) return `failed to start: ${s.error.message}`;
  if (s.signal !== null) return `killed by ${s.signal}`;
  return `exited with code ${s.code}`;
}
