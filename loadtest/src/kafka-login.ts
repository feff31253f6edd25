// The seeder's login to a secured broker, as the CLI finds its token: LADDER_KAFKA_SASL_* and
// LADDER_KAFKA_TLS_CA when set, else the ingest user of the credentials file (LADDER_CREDENTIALS_FILE,
// by default the local cluster's <data dir>/credentials.json): a Kafka seed writes what ingest writes.
import type { Config } from "@ladder/platform/config";
import { kafkaLoginFromFile } from "@ladder/platform/credentials-file";
import type { KafkaSecurity } from "@ladder/platform/kafka-security";

/** `config`'s own Kafka security, else the credentials file's ingest login; undefined: PLAINTEXT without login. */
export function seedKafkaSecurity(config: Pick<Config, "kafkaSecurity" | "clientCredentialsFile">): KafkaSecurity | undefined {
  if (config.kafkaSecurity) return config.kafkaSecurity;
  const login = kafkaLoginFromFile(config.clientCredentialsFile, "ingest");
  if (!login) return undefined;
  return {
    sasl: { mechanism: "scram-sha-512", username: login.username, password: login.password },
    tls: { caFile: login.caFile },
  };
}
