// The launcher's state file (<data dir>/launcher-state.json, format in platform/src/launcher-state.ts):
// rewritten whole on every change of a supervised process (written aside, then renamed over, so a
// reader never sees half a file), removed when the launcher stops.
import { renameSync, rmSync, writeFileSync } from "node:fs";
import type { LauncherProcess, LauncherState } from "@ladder/platform/launcher-state";
import type { Logger } from "@ladder/platform/logger";

export class StateFile {
  constructor(
    private readonly path: string,
    private readonly fixed: Omit<LauncherState, "updatedAtMs" | "processes">,
    private readonly log: Logger,
  ) {}

  write(processes: readonly LauncherProcess[]): void {
    const state: LauncherState = { ...this.fixed, updatedAtMs: Date.now(), processes: [...processes] };
    const aside = `${this.path}.${process.pid}.tmp`;
    try {
      writeFileSync(aside, JSON.stringify(state, null, 2) + "\n");
      renameSync(aside, this.path);
    } catch (err) {
      this.log.warn({ err, path: this.path }, "could not write the launcher's state file");
    }
  }

  remove(): void {
    rmSync(this.path, { force: true });
  }
}
