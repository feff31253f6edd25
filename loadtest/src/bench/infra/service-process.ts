/**
 * Starts one of the cluster's services (router, ingest, shard node) from this checkout
 * as a child process, configured only by the LADDER_* variables given (any LADDER_* of
 * the bench's own environment is dropped, so a shell set up for another cluster cannot
 * leak into the bench's), and resolves once it logged its ready line.
 */
import type { Logger } from "@ladder/platform/logger";
import { spawnService, type Started } from "@ladder/deploy/spawn-service";

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

export type StartedService = Started;

/** This process's environment without LADDER_* variables. */
export function baseEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith("LADDER_")));
}

export function startService(spec: ServiceSpec): Promise<StartedService> {
  return spawnService({
    name: spec.name,
    entry: spec.entry,
    env: { ...baseEnv(), LADDER_LOG_LEVEL: "info", ...spec.settings },
    ready: spec.ready,
    timeoutMs: spec.timeoutMs ?? 60_000,
    log: spec.log,
  });
}
