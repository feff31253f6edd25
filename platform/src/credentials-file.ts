/**
 * A credentials file: a JSON array of token grants ({name, token, roles}), the format of
 * LADDER_TOKENS. The local cluster writes one (<data dir>/credentials.json, mode 0600); a
 * client (the CLI, the load tool) can read its token from any such file instead of taking
 * it on the command line, where it would show in the shell's history and in `ps`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Role, TokenGrant } from "./auth.js";

/** Where the local cluster keeps its credentials, under its data dir. */
export const localCredentialsPath = (dataDir: string) => join(dataDir, "credentials.json");

/** The grants of a credentials file; throws with the path when it is not one. */
export function readCredentialsFile(path: string): TokenGrant[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`credentials file ${path}: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed) || !parsed.every((g: Partial<TokenGrant>) => typeof g?.token === "string" && Array.isArray(g.roles))) {
    throw new Error(`credentials file ${path}: not a JSON array of {name, token, roles}`);
  }
  return parsed as TokenGrant[];
}

/** The token of the first grant in `path` with `role`, or undefined when the file does not exist. */
export function tokenFromFile(path: string, role: Role): string | undefined {
  if (!existsSync(path)) return undefined;
  return readCredentialsFile(path).find((g) => g.roles.includes(role))?.token;
}
