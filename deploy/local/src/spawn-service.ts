// Starts one of the cluster's services (shard node, router, ingest) from this checkout's build (its
// dist/ JavaScript: built-entry.ts) as a child process and resolves once it logs its ready line (an
// info-level pino line with that `msg`; the services log at info or lower for this). A listening
// service's bound port, and its metrics server's port, are read from that line, so callers can ask for
// port 0. Used by the local cluster launcher, the tests and the benchmarks.
import type { Logger } from "@ladder/platform/logger";
import { nodeCommand, REPO } from "./built-entry.js";
import { routineKafkaLine } from "./kafkajs-lines.js";
import { spawnManaged, describeExit, type ManagedProcess, type LineLevel } from "./managed-process.js";

export interface Started {
  process: ManagedProcess;
  /** The port from the ready line, for services that listen. */
  port?: number;
  /** The metrics server's port (GET /metrics) from the ready line. */
  metricsPort?: number;
}

export interface SpawnOptions {
  name: string;
  /** Entry file relative to the repository, e.g. router/src/main.ts; its build (router/dist/main.js) runs. */
  entry: string;
  env: Record<string, string | undefined>;
  ready: string;
  timeoutMs: number;
  log: Logger;
}

export function spawnService({ name, entry, env, ready, timeoutMs, log }: SpawnOptions): Promise<Started> {
  return new Promise((resolve, reject) => {
    const { command, args } = nodeCommand(entry); // throws (rejects) when the build is missing
    let settled = false;
    const proc = spawnManaged({
      command,
      args,
      cwd: REPO,
      env,
      log,
      levelOf,
      onLine: (line) => {
        if (settled) return;
        const rec = parseJson(line);
        if (rec?.msg !== ready) return;
        settled = true;
        clearTimeout(timer);
        resolve({
          process: proc,
          port: typeof rec.port === "number" ? rec.port : undefined,
          metricsPort: typeof rec.metricsPort === "number" ? rec.metricsPort : undefined,
        });
      },
    });
    const timer = setTimeout(() => fail(`not ready after ${timeoutMs} ms`), timeoutMs);
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void proc.kill();
      reject(new Error(`${name} ${why}\n${proc.output()}`));
    };
    void proc.exited.then((s) => fail(describeExit(s)));
  });
}

/** pino levels: 40 warn, 50 error, 60 fatal. Plain lines (stack traces) are warnings; kafkajs's routine lines debug (kafkajs-lines.ts). */
function levelOf(line: string): LineLevel {
  const rec = parseJson(line);
  const level = rec?.level;
  if (typeof level !== "number") return "warn";
  if (routineKafkaLine(rec!)) return "debug";
  return level >= 50 ? "error" : level >= 40 ? "warn" : "debug";
}

function parseJson(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
