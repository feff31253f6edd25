/**
 * One root pino logger per process; components take children of it:
 *   const log = rootLogger({ level }).child({ component: "apply" });
 *   log.warn({ err, shardId }, "shard timed out");
 */
import { pino, type Logger } from "pino";

export type { Logger };

export interface LoggerOptions {
  /** pino level: trace, debug, info, warn, error, fatal or silent. */
  level: string;
  /** Name of the service, stamped on every line. */
  name: string;
}

export function rootLogger({ level, name }: LoggerOptions): Logger {
  return pino({ level, name, base: { pid: process.pid } });
}

/** A logger that prints nothing, for tests and library callers that pass none. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
