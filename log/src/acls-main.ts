/**
 * `ladder kafka-acls` (the services image): creates the roles' ACLs (kafka-acls.ts) for
 * LADDER_SCORE_TOPIC on a secured cluster, logged in as a super user (LADDER_KAFKA_SASL_*,
 * LADDER_KAFKA_TLS_CA), then exits 0; an ACL that exists is left as it is, so it may run at every
 * deployment. Retries while the brokers come up (2 min at most). Compose and Kubernetes run it once
 * the brokers are up (deploy/compose, deploy/k8s/base/kafka-acls.yaml). Wiring only.
 */
import { LAUNCH_BACKOFF, retryUntil } from "@ladder/platform/backoff";
import { loadConfig } from "@ladder/platform/config";
import { rootLogger } from "@ladder/platform/logger";
import { createRoleAcls } from "./kafka-acls.js";
import { LogClient } from "./log-client.js";

const config = loadConfig(process.env);
const log = rootLogger({ level: config.logLevel, name: "kafka-acls" });
if (!config.kafkaSecurity?.sasl) {
  log.fatal("LADDER_KAFKA_SASL_USERNAME is not set: the ACLs are created by a super user of a secured cluster");
  process.exit(78); // EX_CONFIG
}
try {
  const acls = await retryUntil(
    async () => {
      const client = await LogClient.open(
        config.kafkaBrokers,
        "ladder-kafka-acls",
        log.child({ component: "kafka" }),
        config.kafkaSecurity,
      );
      try {
        return await createRoleAcls(client, config.scoreTopic);
      } finally {
        await client.close();
      }
    },
    { ...LAUNCH_BACKOFF, what: `the ACLs on ${config.kafkaBrokers.join(",")}`, timeoutMs: 120_000 },
  );
  log.info({ acls, scoreTopic: config.scoreTopic }, "kafka ACLs in place");
  process.exit(0);
} catch (err) {
  log.fatal({ err }, "could not create the kafka ACLs");
  process.exit(1);
}
