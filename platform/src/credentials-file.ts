/**
 * A credentials file: the local cluster writes one (<data dir>/credentials.json, mode 0600);
 * a client (the CLI, the load tool) can read its token from any such file instead of taking
 * it on the command line, where it would show in the shell's history and in `ps`. Two forms:
 *
 *   [{name, token, roles}, ...]                      token grants only (the format of LADDER_TOKENS)
 *   {"tokens": [...], "kafka": {"caFile", "users": {name: password}},
 *    "redis": {user: password}, ...}                 grants, the local broker's SASL users and the
 *                                                    local Redis ACL users (deploy/local/src/redis-credentials.ts)
 *
 * Readers take either; a writer writes the object form and keeps the sections it does not know.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Role, TokenGrant } from "./auth.js";

/** Where the local cluster keeps its credentials, under its data dir. */
export const localCredentialsPath = (dataDir: string) => join(dataDir, "credentials.json");

/** The local broker's logins: the CA its clients trust and each SCRAM user's password. */
export interface KafkaLogins {
  readonly caFile?: string;
  readonly users: Readonly<Record<string, string>>;
}

export interface CredentialsDocument {
  readonly tokens: readonly TokenGrant[];
  readonly kafka?: KafkaLogins;
  readonly [section: string]: unknown;
}

const isGrants = (v: unknown): v is TokenGrant[] =>
  Array.isArray(v) && v.every((g: Partial<TokenGrant>) => typeof g?.token === "string" && Array.isArray(g.roles));

const isKafkaLogins = (v: unknown): v is KafkaLogins =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as KafkaLogins).users === "object" &&
  Object.values((v as KafkaLogins).users ?? {}).every((p) => typeof p === "string");

/** Every section of a credentials file (an array is {tokens}); throws with the path when it is not one. */
export function readCredentialsDocument(path: string): CredentialsDocument {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`credentials file ${path}: ${(err as Error).message}`);
  }
  if (isGrants(parsed)) return { tokens: parsed };
  const doc = parsed as Partial<CredentialsDocument> | null;
  if (typeof doc !== "object" || doc === null || Array.isArray(doc) || !isGrants(doc.tokens)) {
    throw new Error(`credentials file ${path}: not a JSON array of {name, token, roles} nor an object with "tokens" of them`);
  }
  if (doc.kafka !== undefined && !isKafkaLogins(doc.kafka))
    throw new Error(`credentials file ${path}: "kafka" is not {"caFile", "users": {name: password}}`);
  return { ...doc, tokens: doc.tokens };
}

/** Writes `doc` in the object form, mode 0600 (also when the file existed with another mode). */
export function writeCredentialsDocument(path: string, doc: CredentialsDocument): void {
  writeFileSync(path, JSON.stringify(doc, null, 2), { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** The grants of a credentials file; throws with the path when it is not one. */
export function readCredentialsFile(path: string): TokenGrant[] {
  return [...readCredentialsDocument(path).tokens];
}

/** The token of the first grant in `path` with `role`, or undefined when the file does not exist. */
export function tokenFromFile(path: string, role: Role): string | undefined {
  if (!existsSync(path)) return undefined;
  return readCredentialsFile(path).find((g) => g.roles.includes(role))?.token;
}

/** Kafka user `user`'s login and the CA to trust, from `path`; undefined when the file or the user is not there. */
export function kafkaLoginFromFile(path: string, user: string): { username: string; password: string; caFile?: string } | undefined {
  if (!existsSync(path)) return undefined;
  const kafka = readCredentialsDocument(path).kafka;
  const password = kafka?.users[user];
  if (password === undefined) return undefined;
  return { username: user, password, ...(kafka?.caFile ? { caFile: kafka.caFile } : {}) };
}

/** The password of Redis user `user` in the "redis" section of the credentials file at `path`; undefined when there is none. */
export function redisPasswordFromFile(path: string, user: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const redis = readCredentialsDocument(path).redis as Record<string, unknown> | undefined;
  const password = redis?.[user];
  return typeof password === "string" ? password : undefined;
}
