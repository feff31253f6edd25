// The services' password files: <data dir>/secrets/<name>.password, 0600 in a 0700 directory, each named
// by a service's *_PASSWORD_FILE variable (LADDER_REDIS_PASSWORD_FILE, LADDER_KAFKA_SASL_PASSWORD_FILE…),
// so that no password shows in `ps` or in a process's environment. Written at every start, from the
// credentials file's passwords; `npm run cluster -- reset` removes the directory.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Writes `secret` to <dataDir>/secrets/<name>.password (0600; the directory 0700); its path. */
export function writeSecretFile(dataDir: string, name: string, secret: string): string {
  const dir = join(dataDir, "secrets");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const path = join(dir, `${name}.password`);
  writeFileSync(path, secret, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}
