// Where the local cluster's logs go: one file per process under <data dir>/logs/, named after the
// process as the launcher knows it (launcher.log for the launcher itself, kafka.log, redis-7001.log,
// sentinel-7401.log, shard-0.log, router.log, ingest.log, gateway.log). A file holds the process's own
// output lines as it printed them (a service's pino JSON lines, Kafka's and Redis's plain lines), each
// appended as it comes; restarts append to the same file.
//
// A child's output line reaches the launcher's logger as a record `{ line, msg: "output" }`
// (managed-process.ts) with the bindings its caller gave the child logger: `service` for the services
// (services.ts, gateway-service.ts), `proc` and `port` for Kafka, Redis and the Sentinels. sourceOf
// turns those bindings into the file's name.
import { join } from "node:path";

/** The logs directory under a data dir. */
export const logsDir = (dataDir: string): string => join(dataDir, "logs");

/** The file of process `source` (e.g. "shard-0", "redis-7001"). */
export const logFilePath = (dataDir: string, source: string): string => join(logsDir(dataDir), `${source}.log`);

/** The name the launcher's own lines are kept under. */
export const LAUNCHER_SOURCE = "launcher";

/**
 * The process a child-output record came from: its `service` ("shard-0", "router"...), else its
 * `proc` with its `port` when it has one ("redis-7001", "sentinel-7401") or alone ("kafka");
 * undefined for a record of the launcher itself. Only names safe as file names come back.
 */
export function sourceOf(record: Readonly<Record<string, unknown>>): string | undefined {
  const { service, proc, port } = record;
  const name =
    typeof service === "string" ? service : typeof proc === "string" ? (typeof port === "number" ? `${proc}-${port}` : proc) : undefined;
  return name !== undefined && SAFE_NAME.test(name) ? name : undefined;
}

const SAFE_NAME = /^[a-z0-9][a-z0-9._-]*$/i;
