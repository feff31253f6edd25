// Where the launcher's logger writes (the destination of its root pino logger, main.ts): every
// process's output into its own file under <data dir>/logs/ (log-files.ts), and a short terminal.
//
// A record of a child's output line (`{ msg: "output", line }`, logged by managed-process.ts at the
// level its caller's `levelOf` gave it) is appended to the child's file as the child printed it,
// and shown on the terminal only when it is a warning or an error: a service's warn/error pino
// line, a Kafka ERROR line, a stack trace. Every other record is the launcher's own: appended to
// launcher.log, and shown on the terminal from the launcher's configured level up.
//
// The terminal gets either readable lines (log-format.ts), or JSON lines, one record each: the
// launcher's own as pino wrote them, a child's pino line as its own record with a `service` field
// naming its process (never the child's JSON quoted inside the launcher's), a child's plain line as
// `msg`. The logger above this must let debug records through, or the files miss the children's
// routine lines.
import { mkdirSync, openSync, writeSync } from "node:fs";
import { formatLine, parseRecord } from "./log-format.js";
import { LAUNCHER_SOURCE, logFilePath, logsDir, sourceOf } from "./log-files.js";

export interface LauncherOutputOptions {
  dataDir: string;
  /** The terminal; none (a launcher in the background) shows nothing there. */
  terminal?: { write(text: string): unknown };
  /** pino level number from which the launcher's own records are shown (30: info). */
  terminalLevel: number;
  /** Readable lines instead of JSON. */
  pretty: boolean;
  color?: boolean;
}

/** Children's lines at or above this pino level (warn) are shown on the terminal. */
const CHILD_SHOWN_LEVEL = 40;
/** Width of the source column of readable lines (the longest usual name: "redis-0-replica-1"). */
const SOURCE_WIDTH = 10;

export class LauncherOutput {
  private readonly files = new Map<string, number>();
  private failedWrite = false;

  constructor(private readonly o: LauncherOutputOptions) {
    mkdirSync(logsDir(o.dataDir), { recursive: true });
  }

  /** pino's DestinationStream: one serialized record (a JSON line) per call. */
  write(chunk: string): void {
    const text = chunk.endsWith("\n") ? chunk.slice(0, -1) : chunk;
    const record = parseRecord(text);
    const source = record?.msg === "output" && typeof record.line === "string" ? sourceOf(record) : undefined;
    if (record !== undefined && source !== undefined) this.child(source, record as unknown as ChildRecord);
    else this.own(text, record);
  }

  private child(source: string, record: ChildRecord): void {
    this.append(source, record.line);
    if (this.o.terminal === undefined || !(record.level >= CHILD_SHOWN_LEVEL)) return;
    if (this.o.pretty) {
      this.show(formatLine(record.line, { source, sourceWidth: SOURCE_WIDTH, color: this.o.color }));
      return;
    }
    const own = parseRecord(record.line);
    this.show(
      JSON.stringify(
        own !== undefined ? { service: source, ...own } : { level: record.level, time: record.time, service: source, msg: record.line },
      ),
    );
  }

  private own(text: string, record: Record<string, unknown> | undefined): void {
    this.append(LAUNCHER_SOURCE, text);
    if (this.o.terminal === undefined) return;
    const level = typeof record?.level === "number" ? record.level : Number.POSITIVE_INFINITY;
    if (level < this.o.terminalLevel) return;
    this.show(this.o.pretty ? formatLine(text, { source: LAUNCHER_SOURCE, sourceWidth: SOURCE_WIDTH, color: this.o.color }) : text);
  }

  private show(line: string): void {
    this.o.terminal?.write(`${line}\n`);
  }

  private append(source: string, line: string): void {
    try {
      let fd = this.files.get(source);
      if (fd === undefined) this.files.set(source, (fd = openSync(logFilePath(this.o.dataDir, source), "a")));
      writeSync(fd, `${line}\n`);
    } catch (err) {
      if (this.failedWrite) return; // said once; the terminal still gets its lines
      this.failedWrite = true;
      this.o.terminal?.write(`could not write the log file of ${source} under ${logsDir(this.o.dataDir)}: ${(err as Error).message}\n`);
    }
  }
}

interface ChildRecord {
  level: number;
  time?: number;
  line: string;
}
