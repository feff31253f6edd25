// Pino lines made readable for a terminal: the launcher's own output when it runs in one, and
// `npm run logs`. A JSON line becomes one line of time, level, source and message, then its other
// fields as key=value (strings bare when they have no spaces, anything else as compact JSON); an
// error field `err` is shown as its message, its stack on the lines after, indented. A line that is
// not a pino record (Kafka's and Redis's own lines, a stack trace) is shown as it is, after its source.
//
//   18:34:01.123 WARN  shard-2  Redis holds less than was applied (data lost) applied=120 held=0
//   18:34:01.200       kafka    [2026-12-03 18:34:01,200] WARN ... (kafka.server.KafkaServer)
export interface FormatOptions {
  /** Shown after the level; the record's own `service`, else its `name`, when absent. */
  source?: string;
  /** Width the source is padded to, so messages line up. */
  sourceWidth?: number;
  /** ANSI colours for the level. */
  color?: boolean;
}

/** pino's numeric levels. */
export const LEVELS: Readonly<Record<number, string>> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };

/** The number of a pino level name ("info": 30); silent (or anything else) is above every level. */
export function levelNumber(name: string): number {
  const found = Object.entries(LEVELS).find(([, n]) => n === name.toUpperCase());
  return found ? Number(found[0]) : Number.POSITIVE_INFINITY;
}

/** Fields every record has (or that the layout shows elsewhere), not repeated as key=value. */
const SHOWN = new Set(["level", "time", "msg", "pid", "hostname", "name", "service", "v", "timestamp"]); // timestamp: kafkajs's copy of time

const COLOR: Readonly<Record<string, string>> = { TRACE: "90", DEBUG: "90", INFO: "32", WARN: "33", ERROR: "31", FATAL: "35" };

/** One output line (without its newline) made readable; more than one line when it carries a stack. */
export function formatLine(line: string, o: FormatOptions = {}): string {
  const record = parseRecord(line);
  if (record === undefined) return `${" ".repeat(18)} ${pad(o.source ?? "", o.sourceWidth)}  ${line}`;
  const level = LEVELS[record.level as number] ?? String(record.level ?? "");
  const source = o.source ?? stringField(record.service) ?? stringField(record.name) ?? "";
  const levelText = level.padEnd(5);
  const head = `${clock(record.time)} ${o.color && COLOR[level] ? `\x1b[${COLOR[level]}m${levelText}\x1b[0m` : levelText} ${pad(source, o.sourceWidth)}`;
  const fields: string[] = [];
  let stack: string | undefined;
  for (const [key, value] of Object.entries(record)) {
    if (SHOWN.has(key)) continue;
    if (key === "err" && isError(value)) {
      fields.push(`err=${fieldValue(value.message)}`);
      stack = typeof value.stack === "string" ? value.stack : undefined;
      continue;
    }
    fields.push(`${key}=${fieldValue(value)}`);
  }
  const text = [head, " ", String(record.msg ?? ""), ...fields.map((f) => ` ${f}`)].join("");
  return stack === undefined ? text : `${text}\n${indent(stackBelowMessage(stack))}`;
}

/** The pino record in `line`, or undefined when the line is not one. */
export function parseRecord(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** HH:MM:SS.mmm of a pino time (Unix ms), in local time; blanks when there is none. */
function clock(time: unknown): string {
  if (typeof time !== "number") return " ".repeat(12);
  const d = new Date(time);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, "0")}`;
}

function fieldValue(value: unknown): string {
  if (typeof value === "string") return value !== "" && !/[\s="]/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

function isError(value: unknown): value is { message?: unknown; stack?: unknown } {
  return value !== null && typeof value === "object" && ("message" in value || "stack" in value);
}

/** A stack's frames: its first line repeats the message shown already. */
function stackBelowMessage(stack: string): string {
  const lines = stack.split("\n");
  const firstFrame = lines.findIndex((l) => /^\s+at /.test(l));
  return (firstFrame > 0 ? lines.slice(firstFrame) : lines).map((l) => l.trim()).join("\n");
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
}

function pad(text: string, width: number | undefined): string {
  return width === undefined ? text : text.padEnd(width);
}

function stringField(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
