// `npm run logs [-- name...]`: the local cluster's log files (<data dir>/logs/, log-files.ts), the
// last lines of each, then, unless --no-follow, every line appended after, as it comes (the files
// are polled; a file that shrank, rewritten, is read from its start). Lines are made readable
// (log-format.ts) with their process's name, or printed as they are with --json.
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { formatLine } from "./log-format.js";
import { logFilePath, logsDir } from "./log-files.js";

export interface FollowOptions {
  dataDir: string;
  /** Processes to show (file names without .log); every file when empty. */
  names: readonly string[];
  follow: boolean;
  /** Lines of each file printed first. */
  lines: number;
  json: boolean;
  write(text: string): void;
  pollMs?: number;
}

/** The processes that have a log file, sorted. */
export function logNames(dataDir: string): string[] {
  try {
    return readdirSync(logsDir(dataDir))
      .filter((f) => f.endsWith(".log"))
      .map((f) => f.slice(0, -4))
      .sort();
  } catch {
    return [];
  }
}

/** Prints, then follows (until the process ends) the chosen files; throws naming the files there are when a name has none. */
export async function followLogs(o: FollowOptions): Promise<void> {
  const available = logNames(o.dataDir);
  const names = o.names.length > 0 ? [...o.names] : available;
  const missing = names.filter((n) => !available.includes(n));
  if (missing.length > 0)
    throw new Error(
      `no log of ${missing.join(", ")} in ${logsDir(o.dataDir)}; there are: ${available.join(", ") || "none (has the cluster run here?)"}`,
    );
  const width = Math.max(0, ...names.map((n) => n.length));
  const show = (name: string, line: string) => o.write(`${o.json ? line : formatLine(line, { source: name, sourceWidth: width })}\n`);
  const offsets = new Map<string, number>();
  for (const name of names) {
    const { text } = readFrom(logFilePath(o.dataDir, name), 0);
    const lines = completeLines(text);
    for (const line of o.lines > 0 ? lines.slice(-o.lines) : []) show(name, line);
    offsets.set(name, Buffer.byteLength(text.slice(0, text.lastIndexOf("\n") + 1)));
  }
  while (o.follow) {
    await new Promise((r) => setTimeout(r, o.pollMs ?? 200));
    for (const name of names) {
      const path = logFilePath(o.dataDir, name);
      let at = offsets.get(name)!;
      if (sizeOf(path) < at) at = 0;
      const { text } = readFrom(path, at);
      const end = text.lastIndexOf("\n") + 1;
      for (const line of completeLines(text.slice(0, end))) show(name, line);
      offsets.set(name, at + Buffer.byteLength(text.slice(0, end)));
    }
  }
}

function completeLines(text: string): string[] {
  const end = text.lastIndexOf("\n");
  return end < 0 ? [] : text.slice(0, end).split("\n");
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function readFrom(path: string, offset: number): { text: string; size: number } {
  const size = sizeOf(path);
  if (size <= offset) return { text: "", size };
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(size - offset);
    const n = readSync(fd, buf, 0, buf.length, offset);
    return { text: buf.subarray(0, n).toString("utf8"), size: offset + n };
  } finally {
    closeSync(fd);
  }
}
