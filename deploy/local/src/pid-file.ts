// One launcher per data dir: <data dir>/launcher.pid holds the pid of the launcher that runs on it,
// from its first moment (before Kafka starts) until it has stopped everything. A second launcher
// finds it and refuses at once, naming the first (`npm start` twice used to fail 18 s later on
// Kafka's port). A file whose pid no longer runs (a launcher killed with SIGKILL) is stale and taken
// over. The file is made with O_EXCL, so of two launchers starting at the same moment one wins.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { processAlive } from "@ladder/platform/launcher-state";

/** The pid file under a data dir. */
export const pidFilePath = (dataDir: string): string => join(dataDir, "launcher.pid");

export type PidClaim = { readonly claimed: true; release(): void } | { readonly claimed: false; readonly pid: number };

/**
 * Makes `path` name `pid`, unless a live process other than `pid` holds it (then `claimed: false`
 * with that process's pid). release() removes the file if it still names `pid`.
 */
export function claimPidFile(path: string, pid: number = process.pid, alive: (pid: number) => boolean = processAlive): PidClaim {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, `${pid}\n`, { flag: "wx" });
      return { claimed: true, release: () => void (readPid(path) === pid && rmSync(path, { force: true })) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const holder = readPid(path);
    if (holder !== undefined && holder !== pid && alive(holder)) return { claimed: false, pid: holder };
    rmSync(path, { force: true }); // stale, unreadable, or ours from before
  }
  throw new Error(`could not claim ${path}: it keeps reappearing`);
}

/** The pid of the launcher running on the file's data dir, or undefined when none runs. */
export function runningLauncher(path: string, alive: (pid: number) => boolean = processAlive): number | undefined {
  const pid = readPid(path);
  return pid !== undefined && alive(pid) ? pid : undefined;
}

/** The pid in `path`, or undefined when there is no file or no pid in it. */
export function readPid(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** The one line a second launcher prints. */
export function alreadyRunning(pid: number, dataDir: string): string {
  return `ladder is already running (pid ${pid}, data dir ${dataDir}); stop it with: npm run stop`;
}
