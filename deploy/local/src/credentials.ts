// The local cluster's tokens: made at random on the first `npm start`, kept in <data dir>/credentials.json
// (mode 0600, the format of platform/src/credentials-file.ts) and reused after. The launcher hands them to the
// services as LADDER_TOKENS; the CLI reads the admin token from the same file by default.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { TokenGrant } from "@ladder/platform/auth";
import { localCredentialsPath, readCredentialsFile } from "@ladder/platform/credentials-file";

/** The tokens stored under `dataDir`, created on first use. */
export function localCredentials(dataDir: string): TokenGrant[] {
  const file = localCredentialsPath(dataDir);
  if (existsSync(file)) return readCredentialsFile(file);
  const make = () => randomBytes(24).toString("base64url");
  const grants: TokenGrant[] = [
    { name: "local-game-server", token: make(), roles: ["write"] },
    { name: "local-admin", token: make(), roles: ["admin", "write", "read"] },
  ];
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(grants, null, 2), { mode: 0o600 });
  return grants;
}
