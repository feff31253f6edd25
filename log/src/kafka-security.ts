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

/** Whether `err`, or an error it was caused by, is the broker closing the connection. */
function closedByBroker(err: unknown): boolean {
  for (let e = err as { name?: string; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++)
    if (e.name === "KafkaJSConnectionClosedError") return true;
  return false;
}

/**
 * The error of a first connection to the brokers that failed. A broker that requires TLS or SASL
 * closes the connections of a client that offers neither, and kafkajs then says only "Closed
 * connection" after its retries: when no security is configured, the error says what to set. Any
 * other failure is returned as it is.
 */
export function connectFailure(err: unknown, brokers: readonly string[], security: KafkaSecurity | undefined): unknown {
  if (security || !closedByBroker(err)) return err;
  return new Error(
    `Kafka at ${brokers.join(",")} closed every connection (${(err as Error).message}): a broker that requires TLS or SASL does that ` +
      "to a client without them, and none is configured here (LADDER_KAFKA_TLS_CA, LADDER_KAFKA_SASL_MECHANISM, " +
      "LADDER_KAFKA_SASL_USERNAME, LADDER_KAFKA_SASL_PASSWORD_FILE: docs/configuration.md)",
    { cause: err },
  );
}
