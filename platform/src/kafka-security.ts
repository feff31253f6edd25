/**
 * How a service connects to Kafka: SASL (who it is) and TLS (that the broker is the one it
 * trusts), one typed option built once from configuration. Unset, the connection is
 * PLAINTEXT without login (the shared test broker). The password is read here, from
 * LADDER_KAFKA_SASL_PASSWORD or the file LADDER_KAFKA_SASL_PASSWORD_FILE names, and never
 * logged: the logger masks any field named `password` (logger.ts).
 *
 * The router holds a second identity, `control`, for what its control plane writes (board
 * definitions, deletion markers, placements): its read path cannot write the score topic.
 */
import { readFileSync } from "node:fs";
import { envVar, oneOf, optional, flag, type EnvVar, type Report } from "./env-schema.js";

export const SASL_MECHANISMS = ["scram-sha-512", "scram-sha-256", "plain"] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

export interface KafkaSasl {
  readonly mechanism: SaslMechanism;
  readonly username: string;
  readonly password: string;
}

export interface KafkaSecurity {
  /** Undefined: no login (PLAINTEXT or SSL listener). */
  readonly sasl: KafkaSasl | undefined;
  /** Undefined: no TLS; caFile undefined: the system's CAs. */
  readonly tls: { readonly caFile: string | undefined } | undefined;
}

/** Longest SASL user name or password accepted, characters. */
const MAX_CREDENTIAL = 256;

function credential(o: { description: string; unsetMeans: string }): EnvVar<string | undefined> {
  return envVar({ description: o.description, default: o.unsetMeans }, (raw, report) => {
    if (raw === undefined || raw === "") return undefined;
    if (raw.length > MAX_CREDENTIAL) report(`is ${raw.length} characters, at most ${MAX_CREDENTIAL} allowed`);
    return raw;
  });
}

/** The password in a file (its first line), or undefined with a problem reported. */
function passwordFile(o: { description: string }): EnvVar<string | undefined> {
  return envVar({ description: o.description, default: "—" }, (raw: string | undefined, report: Report) => {
    if (raw === undefined || raw === "") return undefined;
    let text: string;
    try {
      text = readFileSync(raw, "utf8");
    } catch (err) {
      report(`cannot read ${raw}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      return undefined;
    }
    const password = text.split(/\r?\n/, 1)[0] ?? "";
    if (password === "") report(`${raw} is empty (the password is its first line)`);
    else if (password.length > MAX_CREDENTIAL) report(`${raw} holds ${password.length} characters, at most ${MAX_CREDENTIAL} allowed`);
    return password || undefined;
  });
}

/** The LADDER_KAFKA_* security variables, spread into the services' schema (config.ts). */
export const kafkaSecurityEnv = {
  LADDER_KAFKA_SASL_MECHANISM: oneOf({
    values: SASL_MECHANISMS,
    default: "scram-sha-512",
    description: "the SASL mechanism of `LADDER_KAFKA_SASL_USERNAME`",
  }),
  LADDER_KAFKA_SASL_USERNAME: credential({
    unsetMeans: "— (no SASL login)",
    description: "the Kafka (SASL) user this service logs in as; needs a password",
  }),
  LADDER_KAFKA_SASL_PASSWORD: credential({
    unsetMeans: "—",
    description: "its password (or `LADDER_KAFKA_SASL_PASSWORD_FILE`; not both)",
  }),
  LADDER_KAFKA_SASL_PASSWORD_FILE: passwordFile({ description: "a file whose first line is the password" }),
  LADDER_KAFKA_CONTROL_SASL_USERNAME: credential({
    unsetMeans: "`LADDER_KAFKA_SASL_USERNAME`",
    description:
      "the router only: the Kafka user its control plane writes as (board definitions, deletion markers, placements); its reads use `LADDER_KAFKA_SASL_USERNAME`",
  }),
  LADDER_KAFKA_CONTROL_SASL_PASSWORD: credential({
    unsetMeans: "—",
    description: "its password (or `LADDER_KAFKA_CONTROL_SASL_PASSWORD_FILE`; not both)",
  }),
  LADDER_KAFKA_CONTROL_SASL_PASSWORD_FILE: passwordFile({ description: "a file whose first line is that password" }),
  LADDER_KAFKA_TLS: flag({
    default: false,
    description: "TLS to the brokers (1), trusting the system's CAs unless `LADDER_KAFKA_TLS_CA` is set; implied by it",
  }),
  LADDER_KAFKA_TLS_CA: optional({
    unsetMeans: "— (system CAs)",
    description: "a PEM file of the CA that signed the brokers' certificates; sets `LADDER_KAFKA_TLS`",
  }),
};

type SecurityValues = {
  [K in keyof typeof kafkaSecurityEnv]: (typeof kafkaSecurityEnv)[K] extends EnvVar<infer T> ? T : never;
};

/** Problems between the variables (a user without a password, both a password and a file, ...). */
export function checkKafkaSecurity(v: SecurityValues, problem: (name: keyof SecurityValues, message: string) => void): void {
  for (const prefix of ["LADDER_KAFKA_", "LADDER_KAFKA_CONTROL_"] as const) {
    const user = v[`${prefix}SASL_USERNAME`];
    const password = v[`${prefix}SASL_PASSWORD`];
    const file = v[`${prefix}SASL_PASSWORD_FILE`];
    if (password !== undefined && file !== undefined)
      problem(`${prefix}SASL_PASSWORD_FILE`, `set together with ${prefix}SASL_PASSWORD: give one of the two`);
    if (user !== undefined && password === undefined && file === undefined)
      problem(`${prefix}SASL_PASSWORD`, `needed with ${prefix}SASL_USERNAME (or ${prefix}SASL_PASSWORD_FILE)`);
    if (user === undefined && (password !== undefined || file !== undefined))
      problem(`${prefix}SASL_USERNAME`, `needed with ${prefix}SASL_PASSWORD${file !== undefined ? "_FILE" : ""}`);
  }
  if (v.LADDER_KAFKA_CONTROL_SASL_USERNAME !== undefined && v.LADDER_KAFKA_SASL_USERNAME === undefined)
    problem(
      "LADDER_KAFKA_SASL_USERNAME",
      "needed with LADDER_KAFKA_CONTROL_SASL_USERNAME (the control user is a second login, not the only one)",
    );
}

/** The service's own security, and the router's control plane's (the same when no control user is set). */
export function kafkaSecurityOf(v: SecurityValues): { main: KafkaSecurity | undefined; control: KafkaSecurity | undefined } {
  const tls = v.LADDER_KAFKA_TLS || v.LADDER_KAFKA_TLS_CA !== undefined ? Object.freeze({ caFile: v.LADDER_KAFKA_TLS_CA }) : undefined;
  const sasl = (username: string | undefined, password: string | undefined): KafkaSasl | undefined =>
    username !== undefined && password !== undefined
      ? Object.freeze({ mechanism: v.LADDER_KAFKA_SASL_MECHANISM, username, password })
      : undefined;
  const of = (s: KafkaSasl | undefined): KafkaSecurity | undefined => (s || tls ? Object.freeze({ sasl: s, tls }) : undefined);
  const main = sasl(v.LADDER_KAFKA_SASL_USERNAME, v.LADDER_KAFKA_SASL_PASSWORD ?? v.LADDER_KAFKA_SASL_PASSWORD_FILE);
  const control = sasl(
    v.LADDER_KAFKA_CONTROL_SASL_USERNAME,
    v.LADDER_KAFKA_CONTROL_SASL_PASSWORD ?? v.LADDER_KAFKA_CONTROL_SASL_PASSWORD_FILE,
  );
  return { main: of(main), control: of(control ?? main) };
}
