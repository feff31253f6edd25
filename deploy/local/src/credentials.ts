// The local cluster's tokens: made at random on the first `npm start`, kept in <data dir>/credentials.json
// (mode 0600, the format of platform/src/credentials-file.ts) and reused after. The launcher hands them to the
// services as LADDER_TOKENS; the CLI reads the admin token from the same file by default.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { TokenGrant } from "@ladder/platform/auth";
import { localCredentialsPath, readCredentialsDocument, writeCredentialsDocument } from "@ladder/platform/credentials-file";

/** The tokens stored under `dataDir`, created on first use (the file's other sections kept). */
export function localCredentials(dataDir: string): TokenGrant[] {
  const file = localCredentialsPath(dataDir);
  const existing = existsSync(file) ? readCredentialsDocument(file) : undefined;
  if (existing?.tokens.length) return [...existing.tokens];
  const make = () => randomBytes(24).toString("base64url");
  const grants: TokenGrant[] = [
    { name: "local-game-server", token: make(), roles: ["write"] },
    { name: "local-admin", token: make(), roles: ["admin", "write", "read"] },
  ];
  mkdirSync(dirname(file), { recursive: true });
  writeCredentialsDocument(file, { ...existing, tokens: grants });
  return grants;
}
