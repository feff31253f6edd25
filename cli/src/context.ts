/**
 * What a command gets besides its flags: the client's calls, and what the CLI's main knows of
 * the cluster it talks to.
 */
import type { ErrorContext } from "./errors.js";

export interface RunContext {
  /** Where calls go and which token they carry, for error messages (errors.ts). */
  readonly errors: ErrorContext;
  /** The local cluster launcher's state file, which `status` shows when it is there. */
  readonly launcherStateFile: string;
}
