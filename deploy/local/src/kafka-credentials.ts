// The local broker's SASL users and their passwords: made at random on the first secured start, kept in
// the "kafka" section of <data dir>/credentials.json (0600, platform/src/credentials-file.ts) and reused
// after, so the log dir formatted with them keeps working. Each service is given its own login only
// (kafkaRoleSettings): the router its reader's and its control plane's, ingest and the shard nodes theirs.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  type KafkaLogins,
  localCredentialsPath,
  readCredentialsDocument,
  writeCredentialsDocument,
} from "@ladder/platform/credentials-file";
import { KAFKA_ROLE_USERS, type KafkaRoleUser } from "@ladder/log/kafka-acls";
import type { KafkaBrokerSecurity } from "./kafka-broker.js";
import { writeSecretFile } from "./secret-files.js";

/** The broker's own user: the one super user. */
export const BROKER_USER = "broker";

export interface LocalKafkaLogins {
  /** The CA the broker's certificate is signed by (kafka-tls.ts). */
  caFile: string;
  users: Readonly<Record<KafkaRoleUser | typeof BROKER_USER, string>>;
}

/** The broker's TLS directory under the local cluster's data dir (see infra.ts and kafka-broker.ts). */
export const kafkaTlsDir = (dataDir: string) => join(dataDir, "kafka", "tls");

/** The logins stored under `dataDir`, each user's password made on first use (the file's other sections kept). */
export function localKafkaLogins(dataDir: string): LocalKafkaLogins {
  const file = localCredentialsPath(dataDir);
  const doc = existsSync(file) ? readCredentialsDocument(file) : { tokens: [] };
  const had = doc.kafka?.users ?? {};
  const users = Object.fromEntries(
    [BROKER_USER, ...KAFKA_ROLE_USERS].map((u) => [u, had[u] ?? randomBytes(24).toString("base64url")]),
  ) as LocalKafkaLogins["users"];
  const kafka: KafkaLogins = { caFile: join(kafkaTlsDir(dataDir), "ca.pem"), users };
  if (JSON.stringify(doc.kafka) !== JSON.stringify(kafka)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeCredentialsDocument(file, { ...doc, kafka });
  }
  return { caFile: kafka.caFile!, users };
}

/** What startKafkaBroker needs to run secured with these logins. */
export function brokerSecurityOf(logins: LocalKafkaLogins): KafkaBrokerSecurity {
  const { [BROKER_USER]: brokerPassword, ...roles } = logins.users;
  return { brokerUser: BROKER_USER, brokerPassword, users: roles };
}

/**
 * Each service's LADDER_KAFKA_* settings: its own login (SCRAM-SHA-512) and the CA. The passwords go
 * in files, `<dataDir>/secrets/kafka-<user>.password` (secret-files.ts) beside the Redis users', named
 * by LADDER_KAFKA_SASL_PASSWORD_FILE: never in a process's environment, and a process started by hand
 * beside the local cluster (a shard node being added: docs/operations.md) names the same file.
 */
export function kafkaRoleSettings(logins: Pick<LocalKafkaLogins, "caFile" | "users">, dataDir: string): KafkaRoleSettings {
  const login = (prefix: string, user: KafkaRoleUser) => ({
    [`${prefix}SASL_USERNAME`]: user,
    [`${prefix}SASL_PASSWORD_FILE`]: writeSecretFile(dataDir, `kafka-${user}`, logins.users[user]),
  });
  const tls = { LADDER_KAFKA_SASL_MECHANISM: "scram-sha-512", LADDER_KAFKA_TLS_CA: logins.caFile };
  return {
    shard: { ...tls, ...login("LADDER_KAFKA_", "shard") },
    ingest: { ...tls, ...login("LADDER_KAFKA_", "ingest") },
    router: { ...tls, ...login("LADDER_KAFKA_", "router"), ...login("LADDER_KAFKA_CONTROL_", "router-control") },
  };
}

/** Per service, the LADDER_* variables of its Kafka login. */
export interface KafkaRoleSettings {
  shard: Readonly<Record<string, string>>;
  router: Readonly<Record<string, string>>;
  ingest: Readonly<Record<string, string>>;
}
