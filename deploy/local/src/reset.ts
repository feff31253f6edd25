// `npm run cluster -- reset`: what of a data dir is the local cluster's state, removed so that the
// next start is a first one: Kafka's log (the scores, the snapshots and placements topics, the
// broker's id), each Redis's and Sentinel's files, the tokens, Kafka logins and Redis passwords
// (credentials.json, secrets/), the routers' stream secret (stream-secret), the logs, and the
// launcher's state and pid files. Anything else in the directory is left alone. Refused while a
// launcher runs on it (control.ts): stop it first.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const FIXED = new Map<string, string>([
  ["kafka", "Kafka's log: scores, snapshots, placements"],
  ["credentials.json", "the local tokens, Kafka logins and Redis users' passwords"],
  ["stream-secret", "the routers' resume-token secret"],
  ["secrets", "the services' Redis and Kafka password files"],
  ["logs", "the processes' logs"],
  ["launcher-state.json", "the launcher's state"],
  ["launcher.pid", "the launcher's pid file"],
]);
const SERVER_DIR = /^(redis|sentinel)-\d+(-replica-\d+)?$/;

/** Of a data dir's entries, those reset removes, each with what it is, in the order given. */
export function resetTargets(entries: readonly string[]): Array<{ name: string; what: string }> {
  return entries.flatMap((name) => {
    const what = FIXED.get(name) ?? (SERVER_DIR.test(name) ? `${name.startsWith("redis") ? "Redis" : "Sentinel"} files` : undefined);
    return what === undefined ? [] : [{ name, what }];
  });
}

/** Removes the cluster state under `dataDir`; returns what it removed. */
export function resetDataDir(dataDir: string): Array<{ name: string; what: string }> {
  let entries: string[];
  try {
    entries = readdirSync(dataDir).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const targets = resetTargets(entries);
  for (const t of targets) rmSync(join(dataDir, t.name), { recursive: true, force: true });
  return targets;
}
