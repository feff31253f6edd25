// One KafkaSecurity (platform/src/kafka-security.ts) as each Kafka client here takes it: kafkajs's
// `ssl` and `sasl`, and @platformatic/kafka's `tls` and `sasl` (the topic-id client). The CA file is
// read when a client is built; undefined security means PLAINTEXT without login.
import { readFileSync } from "node:fs";
import type { KafkaConfig, SASLOptions } from "kafkajs";
import type { KafkaSecurity } from "@ladder/platform/kafka-security";

export type { KafkaSecurity };

const TLS_CA_CACHE = new Map<string, Buffer>();

function tlsOptions(security: KafkaSecurity): { ca?: Buffer[] } | undefined {
  if (!security.tls) return undefined;
  const { caFile } = security.tls;
  if (caFile === undefined) return {};
  let ca = TLS_CA_CACHE.get(caFile);
  if (!ca) {
    ca = readFileSync(caFile);
    TLS_CA_CACHE.set(caFile, ca);
  }
  return { ca: [ca] };
}

/** kafkajs's `ssl` and `sasl` for `security`; {} for undefined. */
export function kafkajsSecurity(security: KafkaSecurity | undefined): Pick<KafkaConfig, "ssl" | "sasl"> {
  if (!security) return {};
  const tls = tlsOptions(security);
  const { sasl } = security;
  return {
    ...(tls ? { ssl: tls } : {}),
    ...(sasl ? { sasl: { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } as SASLOptions } : {}),
  };
}

const PLATFORMATIC_MECHANISM = { "scram-sha-512": "SCRAM-SHA-512", "scram-sha-256": "SCRAM-SHA-256", plain: "PLAIN" } as const;

/** @platformatic/kafka's `tls` and `sasl` for `security`; {} for undefined. */
export function platformaticSecurity(security: KafkaSecurity | undefined): {
  tls?: { ca?: Buffer[] };
  sasl?: { mechanism: (typeof PLATFORMATIC_MECHANISM)[keyof typeof PLATFORMATIC_MECHANISM]; username: string; password: string };
} {
  if (!security) return {};
  const tls = tlsOptions(security);
  const { sasl } = security;
  return {
    ...(tls ? { tls } : {}),
    ...(sasl ? { sasl: { mechanism: PLATFORMATIC_MECHANISM[sasl.mechanism], username: sasl.username, password: sasl.password } } : {}),
  };
}
