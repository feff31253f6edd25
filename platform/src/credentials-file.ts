/**
 * A credentials file: a JSON array of token grants ({name, token, roles}), the format of
 * LADDER_TOKENS; or an object holding that array as "tokens" beside other sections, such as
 * "redis" (Redis ACL user → password, deploy/local/src/redis-credentials.ts). The local cluster
 * writes one (<data dir>/credentials.json, mode 0600); a client (the CLI, the load tool) can read
 * its token from any such file instead of taking it on the command line, where it would show in
 * the shell's history and in `ps`.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Role, TokenGrant } from "./auth.js";

/** Where the local cluster keeps its credentials, under its data dir. */
export const localCredentialsPath = (dataDir: string) => join(dataDir, "credentials.json");

/** A credentials file's content: its grants and its other sections by name. */
export interface CredentialsContent {
  tokens: TokenGrant[];
  [section: string]: unknown;
}

/** The content of a credentials file (either form); throws with the path when it is neither. */
export function readCredentialsContent(path: string): CredentialsContent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`credentials file ${path}: ${(err as Error).message}`);
  }
  const content = (Array.isArray(parsed) ? { tokens: parsed } : parsed) as Partial<CredentialsContent> | null;
  const tokens = content?.tokens;
  if (!Array.isArray(tokens) || !tokens.every((g: Partial<TokenGrant>) => typeof g?.token === "string" && Array.isArray(g.roles))) {
    throw new Error(`credentials file ${path}: not a JSON array of {name, token, roles}, nor an object with one as "tokens"`);
  }
  return content as CredentialsContent;
}

/** The grants of a credentials file; throws with the path when it is not one. */
export function readCredentialsFile(path: string): TokenGrant[] {
  return readCredentialsContent(path).tokens;
}

/** Writes `content` to `path`, readable by its owner only (0600, also when the file existed). */
export function writeCredentialsContent(path: string, content: CredentialsContent): void {
  writeFileSync(path, JSON.stringify(content, null, 2), { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** The token of the first grant in `path` with `role`, or undefined when the file does not exist. */
export function tokenFromFile(path: string, role: Role): string | undefined {
  if (!existsSync(path)) return undefined;
  return readCredentialsFile(path).find((g) => g.roles.includes(role))?.token;
}

/** The password of Redis user `user` in the "redis" section of the credentials file at `path`; undefined when there is none. */
export function redisPasswordFromFile(path: string, user: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const redis = readCredentialsContent(path).redis as Record<string, unknown> | undefined;
  const password = redis?.[user];
  return typeof password === "string" ? password : undefined;
}
