// The local cluster's tokens: made at random on the first `npm start`, kept in <data dir>/credentials.json
// (mode 0600) and reused after. The launcher hands them to the services as LADDER_TOKENS; the CLI reads
// the admin token from the same file when no --token or LADDER_TOKEN is given.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TokenGrant } from "../../../common/src/auth.js";

export const credentialsFile = (dataDir: string) => join(dataDir, "credentials.json");

/** The tokens stored under `dataDir`, created on first use. */
export function localCredentials(dataDir: string): TokenGrant[] {
  const file = credentialsFile(dataDir);
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as TokenGrant[];
  const make = () => randomBytes(24).toString("base64url");
  const grants: TokenGrant[] = [
    { name: "local-game-server", token: make(), roles: ["write"] },
    { name: "local-admin", token: make(), roles: ["admin", "write", "read"] },
  ];
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(grants, null, 2), { mode: 0o600 });
  return grants;
}

/** The admin token of a local cluster's data dir, if it has one. */
export function localAdminToken(dataDir: string): string | undefined {
  const file = credentialsFile(dataDir);
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, "utf8")) as TokenGrant[]).find((g) => g.roles.includes("admin"))?.token;
}
