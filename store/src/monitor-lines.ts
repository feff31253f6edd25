/**
 * Redis's MONITOR read over a plain socket, for tests that check which commands a client sent.
 * ioredis's monitor mode can take a line that arrives with MONITOR's own "+OK" for the reply of a
 * command ("Command queue state error", thrown where no test can catch it) on a server that other
 * clients keep busy; here every line after "+OK" is a command seen.
 *
 * A line is `+<unix time> [<db> <client address>|lua] "<command>" "<arg>" ...`, each string quoted
 * with C-like escapes (\" \\ \n \r \t \a \b \xHH), as Redis's sdscatrepr writes them.
 */
import { connect } from "node:net";

export interface MonitorLines {
  /** Resolves once the server answered MONITOR: every command sent after it is seen. */
  readonly ready: Promise<void>;
  close(): void;
}

/** Calls `onCommand` with the command and its arguments of every line MONITOR shows on `redisUrl`. */
export function monitorLines(redisUrl: string, onCommand: (args: string[]) => void): MonitorLines {
  const url = new URL(redisUrl);
  const socket = connect(Number(url.port || 6379), url.hostname || "127.0.0.1");
  const auth = url.password
    ? `AUTH ${url.username ? `${decodeURIComponent(url.username)} ` : ""}${decodeURIComponent(url.password)}\r\n`
    : "";
  let pending = auth ? 2 : 1; // replies before MONITOR's lines start: AUTH's, then MONITOR's
  let buffered = "";
  const ready = new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("latin1");
      for (let end = buffered.indexOf("\r\n"); end >= 0; end = buffered.indexOf("\r\n")) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (pending > 0) {
          if (!line.startsWith("+OK")) return reject(new Error(`MONITOR refused: ${line}`));
          if (--pending === 0) resolve();
          continue;
        }
        if (line.startsWith("+")) onCommand(monitorArgs(line));
      }
    });
  });
  socket.write(`${auth}MONITOR\r\n`);
  return { ready, close: () => void socket.destroy() };
}

/** The quoted strings of one MONITOR line: the command, then its arguments. */
export function monitorArgs(line: string): string[] {
  const out: string[] = [];
  const escapes: Record<string, string> = { n: "\n", r: "\r", t: "\t", a: "\x07", b: "\b" };
  let i = line.indexOf("] ");
  if (i < 0) return out;
  for (i += 2; i < line.length; i++) {
    if (line[i] !== '"') continue;
    let value = "";
    for (i++; i < line.length && line[i] !== '"'; i++) {
      if (line[i] !== "\\") {
        value += line[i];
        continue;
      }
      const next = line[++i]!;
      if (next === "x") {
        value += String.fromCharCode(Number.parseInt(line.slice(i + 1, i + 3), 16));
        i += 2;
      } else value += escapes[next] ?? next;
    }
    out.push(Buffer.from(value, "latin1").toString("utf8"));
  }
  return out;
}
