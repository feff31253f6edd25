// One KafkaSecurity (platform/src/kafka-security.ts) as kafkajs takes it: its `ssl` and `sasl`. The CA
// file is read when a client is built; undefined security means PLAINTEXT without login.
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
