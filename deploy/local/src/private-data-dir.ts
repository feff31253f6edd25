// The data directory holds the cluster's credentials, its logs, Kafka's log and Redis's files: it is
// its owner's alone. The launcher makes it private once, at start, before anything is written:
//
//   - the process's umask becomes 077 (PRIVATE_UMASK), so every directory made after is 0700 and
//     every file 0600, by the launcher and by the processes it starts (Kafka, Redis, the services
//     inherit the umask), whichever code path creates them;
//   - what an earlier run left is tightened: the data directory and every directory under it to
//     0700, every file to 0600 (links are left alone). The walk costs one stat per entry; it runs
//     before Kafka and Redis start, so nothing is written while it walks.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** The umask of the launcher and everything it starts: no access for group and others. */
export const PRIVATE_UMASK = 0o077;
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** Creates `dataDir` if needed and makes it and everything in it its owner's alone (above); sets the umask. */
export function makeDataDirPrivate(dataDir: string): void {
  process.umask(PRIVATE_UMASK);
  mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
  tighten(dataDir);
}

/** `path` and, for a directory, everything under it: directories 0700, files 0600. */
export function tighten(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    if ((stat.mode & 0o777) !== DIR_MODE) chmodSync(path, DIR_MODE);
    for (const name of readdirSync(path)) tighten(join(path, name));
  } else if ((stat.mode & 0o777) !== FILE_MODE) chmodSync(path, FILE_MODE);
}
