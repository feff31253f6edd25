// The local cluster's tokens: made at random on the first `npm start`, kept in <data dir>/credentials.json
// (mode 0600, the format of platform/src/credentials-file.ts) and reused after. The launcher hands each
// service those it verifies (service-tokens.ts) and the gateway the monitor token alone; the CLI reads
// the admin token from the same file by default.
//
//   local-game-server  write                 ingest's writers (the load tool, the demo)
//   local-admin        admin, write, read    the CLI
//   local-gateway      monitor               the gateway's board list and shards' status
//
// A file written before the monitor role existed gains its local-gateway grant on the next start.
// Beside it, <data dir>/stream-secret (mode 0600) holds the routers' LADDER_STREAM_SECRET, the key
// resume tokens are signed with, made the same way on the first start and kept.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TokenGrant } from "@ladder/platform/auth";
import {
  type CredentialsDocument,
  localCredentialsPath,
  readCredentialsDocument,
  writeCredentialsDocument,
} from "@ladder/platform/credentials-file";

const make = () => randomBytes(24).toString("base64url");

/** The tokens stored under `dataDir`, created on first use (the file's other sections kept). */
export function localCredentials(dataDir: string): TokenGrant[] {
  const file = localCredentialsPath(dataDir);
  const existing = existsSync(file) ? readCredentialsDocument(file) : undefined;
  if (existing?.tokens.length) {
    if (existing.tokens.some((g) => g.roles.includes("monitor"))) return [...existing.tokens];
    return save(file, existing, [...existing.tokens, monitorGrant()]);
  }
  return save(file, existing, [
    { name: "local-game-server", token: make(), roles: ["write"] },
    { name: "local-admin", token: make(), roles: ["admin", "write", "read"] },
    monitorGrant(),
  ]);
}

/** The token of the first grant with the monitor role: the one the gateway is given. */
export function monitorToken(grants: readonly TokenGrant[]): string | undefined {
  return grants.find((g) => g.roles.includes("monitor"))?.token;
}

/** Where the local routers' stream secret is kept. */
export const streamSecretPath = (dataDir: string) => join(dataDir, "stream-secret");

/** The routers' stream secret stored under `dataDir`, created on first use (32 random bytes). */
export function localStreamSecret(dataDir: string): string {
  const file = streamSecretPath(dataDir);
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const secret = randomBytes(32).toString("base64url");
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

const monitorGrant = (): TokenGrant => ({ name: "local-gateway", token: make(), roles: ["monitor"] });

function save(file: string, existing: CredentialsDocument | undefined, grants: TokenGrant[]): TokenGrant[] {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeCredentialsDocument(file, { ...existing, tokens: grants });
  return grants;
}
