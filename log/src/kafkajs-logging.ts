/**
 * kafkajs's own log lines, as every service's pino logger takes them: the one place that decides
 * at which level a kafkajs line is logged.
 *
 * kafkajs logs at error level what it goes on to handle by itself, or hands to its caller: a
 * connection refused or timed out while the broker starts (it retries), a seed broker it moves on
 * from, a group rebalancing or a coordinator that forgot the member (it rejoins), a leader or
 * coordinator moving (it asks the metadata again), a consumer restarting after a retriable crash,
 * and every request's error response ("Response CreateTopics(...)": the error goes to whoever made
 * the request, which handles it, as a topic that already exists, or reports it). Those routine
 * lines go to debug, so that a healthy cluster's logs hold no error line; a problem they add up to
 * reaches the caller as the error kafkajs finally throws, which the caller logs. Anything else keeps
 * kafkajs's level (error, or warn for the rest): a consumer's crash, a failed login, an error in
 * the caller's own batch handler.
 */
import { logLevel, type LogEntry, type logCreator } from "kafkajs";
import type { Logger } from "@ladder/platform/logger";

/** What kafkajs handles by itself or hands to its caller, by the words of its message or of the error it carries. */
const ROUTINE: readonly RegExp[] = [
  // a request's error response (namespace Connection): the request's caller gets the error
  /^Response \w+\(key: \d+, version: \d+\)$/,
  // connections: refused, reset or timed out while a broker starts or restarts; kafkajs reconnects
  /^Connection error: /,
  /^Connection timeout/,
  /^Failed to connect to seed broker, trying another broker from the list/,
  /^Failed to connect to broker, reconnecting/,
  // groups: rebalances and rejoins
  /The group is rebalancing/,
  /The coordinator is not aware of this member/,
  /The generation id provided is not the current generation/i,
  /There is no current coordinator for this group|not the correct coordinator|coordinator is loading/i,
  /The coordinator is not available/i,
  // leadership moving between brokers, topics being created: kafkajs refreshes its metadata
  /There is no leader for this topic-partition|not the leader for that topic-partition/i,
  /This server does not host this topic-partition/i,
  // a consumer restarting after a retriable crash (the crash itself stays an error)
  /^Restarting the consumer in \d+ms/,
];

/** The pino level of a kafkajs line: "debug" for routine ones (see above), else kafkajs's own (error, or warn). */
export function kafkajsLevel(entry: Pick<LogEntry, "level" | "log">): "debug" | "warn" | "error" {
  const { message } = entry.log;
  const error = typeof entry.log.error === "string" ? entry.log.error : "";
  if (ROUTINE.some((words) => words.test(message) || (error !== "" && words.test(error)))) return "debug";
  return entry.level <= logLevel.ERROR ? "error" : "warn";
}

/** kafkajs's logCreator writing into `log`, each line at kafkajsLevel's level, with its namespace as `kafka`. */
export function kafkajsLogCreator(log: Logger): logCreator {
  return () => (entry: LogEntry) => {
    const { message, timestamp: _, ...extra } = entry.log;
    log[kafkajsLevel(entry)]({ kafka: entry.namespace, ...extra }, message);
  };
}

/** The least severe kafkajs level passed to kafkajsLogCreator: its info and debug lines are never made. */
export const KAFKAJS_LOG_LEVEL = logLevel.WARN;
