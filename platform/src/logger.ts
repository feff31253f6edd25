/**
 * One root pino logger per process; components take children of it:
 *   const log = rootLogger({ level }).child({ component: "apply" });
 *   log.warn({ err, shardId }, "shard timed out");
 *
 * No secrets in logs: every line passes through `redactSecrets`, which masks the user
 * and password of any URL (redis://:password@host, rediss://user:pw@host, ...) in the
 * message and in string fields, including an error's message and stack.
 */
import { redactSecrets } from "./redact.js";
import { pino, type DestinationStream, type Logger, type LoggerOptions as LoggerOptionsOfPino } from "pino";

export type { Logger };

export interface LoggerOptions {
  /** pino level: trace, debug, info, warn, error, fatal or silent. */
  level: string;
  /** Name of the service, stamped on every line. */
  name: string;
  /** Where lines go (default: standard output). */
  destination?: DestinationStream;
}

export function rootLogger({ level, name, destination }: LoggerOptions): Logger {
  const options: LoggerOptionsOfPino = {
    level,
    name,
    base: { pid: process.pid },
    formatters: { log: (object) => redactFields(object) },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === "string" ? redactSecrets(a) : a)) as Parameters<typeof method>);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Standard error, for a tool whose standard output is its report (the seeder's, the load tool's). */
export function standardError(): DestinationStream {
  return pino.destination(2);
}

/** A URL for logs and errors: its credentials masked. */
export const redactUrl = redactSecrets;
export { redactSecrets };

/** Fields whose value is a secret whatever it looks like (a Kafka SASL password, kafka-security.ts). */
const SECRET_FIELD = /^(password|passwd|secret)$/i;

function redactFields(object: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(object)) out[k] = SECRET_FIELD.test(k) && v !== undefined ? "***" : redactValue(v, depth);
  return out;
}

function redactValue(v: unknown, depth: number): unknown {
  if (typeof v === "string") return redactSecrets(v);
  if (depth > 3 || v === null || typeof v !== "object") return v;
  if (v instanceof Error)
    return {
      type: v.name,
      message: redactSecrets(v.message),
      stack: v.stack ? redactSecrets(v.stack) : undefined,
      ...redactFields({ ...v } as Record<string, unknown>, depth + 1),
    };
  if (Array.isArray(v)) return v.map((x) => redactValue(x, depth + 1));
  return redactFields(v as Record<string, unknown>, depth + 1);
}

/** A logger that prints nothing, for tests and library callers that pass none. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
