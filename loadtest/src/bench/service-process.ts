/**
 * Starts one of the cluster's services (router, ingest, shard node) from this checkout
 * as a child process, configured only by the LADDER_* variables given (any LADDER_* of
 * the bench's own environment is dropped, so a shell set up for another cluster cannot
 * leak into the bench's), and resolves once it logged its ready line. Like
 * deploy/local/src/services.ts, whose spawn helper is private to it.
 */
import { fileURLToPath } from "node:url";
import type { Logger } from "../../../common/src/logger.js";
import { describeExit, spawnManaged, type ManagedProcess } from "../../../deploy/local/src/managed-process.js";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));

export interface ServiceSpec {
  name: string;
  /** Entry file relative to the repository, e.g. router/src/main.ts. */
  entry: string;
  /** LADDER_* settings. */
  settings: Readonly<Record<string, string>>;
  /** The `msg` of the pino line that says the service is ready. */
  ready: string;
  log: Logger;
  timeoutMs?: number;
}

export interface StartedService {
  process: ManagedProcess;
  /** `port` of the ready line, for services that listen. */
  port: number | undefined;
}

/** This process's environment without LADDER_* variables. */
export function baseEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith("LADDER_")));
}

export function startService(spec: ServiceSpec): Promise<StartedService> {
  const timeoutMs = spec.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    let settled = false;
    const proc = spawnManaged({
      command: process.execPath,
      args: ["--import", "tsx", spec.entry],
      cwd: REPO,
      env: { ...baseEnv(), LADDER_LOG_LEVEL: "info", ...spec.settings },
      log: spec.log,
      onLine: (line) => {
        const rec = parseJson(line);
        if (settled || rec?.msg !== spec.ready) return;
        settled = true;
        clearTimeout(timer);
        resolve({ process: proc, port: typeof rec.port === "number" ? rec.port : undefined });
      },
    });
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void proc.kill();
      reject(new Error(`${spec.name} ${why}\n${proc.output()}`));
    };
    const timer = setTimeout(() => fail(`not ready after ${timeoutMs} ms`), timeoutMs);
    void proc.exited.then((s) => fail(describeExit(s)));
  });
}

function parseJson(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
