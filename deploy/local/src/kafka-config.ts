// The server.properties of the single-node KRaft broker (broker and controller in one JVM), and the
// small pure helpers around it: cluster ids and the ports a previous run recorded.
import { randomBytes } from "node:crypto";

export interface BrokerPorts {
  /** Client listener (PLAINTEXT) on 127.0.0.1. */
  port: number;
  /** KRaft controller listener on 127.0.0.1. */
  controllerPort: number;
}

export interface BrokerPropertiesOptions extends BrokerPorts {
  /** Where partitions and the metadata log live (log.dirs). */
  logDir: string;
  /** The secured listeners (SASL_SSL for clients, SASL PLAIN for the controller) and ACLs; absent: PLAINTEXT. */
  security?: BrokerSecurityFiles;
}

/** What a secured broker's properties name: its TLS files and its own login (a super user). */
export interface BrokerSecurityFiles {
  /** PEM: the broker's private key (PKCS#8) and its certificate (ssl.keystore.type=PEM). */
  keystoreFile: string;
  /** PEM: the CA that signed it (the broker's own client side trusts it). */
  caFile: string;
  /** The broker's own user: SCRAM-SHA-512 on the client listener, PLAIN on the controller's. */
  user: string;
  password: string;
}

/**
 * A static one-voter quorum (controller.quorum.voters), so the log dir is formatted without
 * --standalone and the controller port may change between runs on the same data. Internal topics have
 * replication factor 1; topics are never auto-created; broker-wide retention keeps Kafka's default
 * (7 days) and topics override it with their own configs (e.g. retention.ms=-1).
 */
export function brokerProperties({ port, controllerPort, logDir, security }: BrokerPropertiesOptions): string {
  const client = security ? "SASL_SSL" : "PLAINTEXT";
  const props: Record<string, string | number> = {
    "process.roles": "broker,controller",
    "node.id": 1,
    "controller.quorum.voters": `1@127.0.0.1:${controllerPort}`,
    listeners: `${client}://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    "advertised.listeners": `${client}://127.0.0.1:${port}`,
    "listener.security.protocol.map": `${client}:${client},CONTROLLER:${security ? "SASL_PLAINTEXT" : "PLAINTEXT"}`,
    "controller.listener.names": "CONTROLLER",
    "inter.broker.listener.name": client,
    ...(security ? securedProperties(security) : {}),
    "log.dirs": logDir,
    "num.partitions": 1,
    "default.replication.factor": 1,
    "min.insync.replicas": 1,
    "auto.create.topics.enable": "false",
    "offsets.topic.replication.factor": 1,
    "offsets.topic.num.partitions": 10, // default 50; fewer make the first group join faster
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
    "transaction.state.log.num.partitions": 4, // default 50, created on the first transaction
    "share.coordinator.state.topic.replication.factor": 1,
    "share.coordinator.state.topic.min.isr": 1,
    "group.initial.rebalance.delay.ms": 0,
    // After a crash the controller refuses the broker's new registration until the old session times
    // out: 9 s by default. Heartbeats stay inside one JVM here, so a shorter session is safe.
    "broker.session.timeout.ms": 4000,
    "broker.heartbeat.interval.ms": 1000,
    // The controller logs an ERROR for every event slower than this (default 2 s): on a shared laptop
    // under load, a first start's events take that long while nothing is wrong. 10 s still reports a stall.
    "controller.performance.always.log.threshold.ms": 10_000,
  };
  const lines = Object.entries(props).map(([k, v]) => `${k}=${escapeValue(String(v))}`);
  return `# Written by deploy/local/src/kafka-broker.ts; rewritten on every start.\n${lines.join("\n")}\n`;
}

/**
 * A secured broker: clients log in with SCRAM-SHA-512 over TLS (the users made when the log dir is
 * formatted, kafka-security-setup.ts); the controller listener, on loopback only, takes the broker's
 * own login by PLAIN (KRaft controllers cannot check SCRAM: its credentials live in the metadata
 * they serve). StandardAuthorizer with no ACL meaning no access; the broker is the one super user.
 */
function securedProperties(s: BrokerSecurityFiles): Record<string, string> {
  const scram = `org.apache.kafka.common.security.scram.ScramLoginModule required username="${s.user}" password="${s.password}";`;
  const plain = `org.apache.kafka.common.security.plain.PlainLoginModule required username="${s.user}" password="${s.password}" user_${s.user}="${s.password}";`;
  return {
    "sasl.enabled.mechanisms": "SCRAM-SHA-512",
    "sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-512",
    "listener.name.sasl_ssl.sasl.enabled.mechanisms": "SCRAM-SHA-512",
    "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config": scram,
    "listener.name.controller.sasl.enabled.mechanisms": "PLAIN",
    "listener.name.controller.plain.sasl.jaas.config": plain,
    "sasl.mechanism.controller.protocol": "PLAIN",
    "ssl.keystore.type": "PEM",
    "ssl.keystore.location": s.keystoreFile,
    "ssl.truststore.type": "PEM",
    "ssl.truststore.location": s.caFile,
    "ssl.client.auth": "none",
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "allow.everyone.if.no.acl.found": "false",
    "super.users": `User:${s.user}`,
  };
}

/** The ports in a server.properties written by `brokerProperties`, or undefined if it has none. */
export function recordedPorts(properties: string): BrokerPorts | undefined {
  const listeners = /^listeners=(.*)$/m.exec(properties)?.[1] ?? "";
  const port = /(?:PLAINTEXT|SASL_SSL):\/\/[^,]*:(\d+)/.exec(listeners)?.[1];
  const controllerPort = /CONTROLLER:\/\/[^,]*:(\d+)/.exec(listeners)?.[1];
  if (port === undefined || controllerPort === undefined) return undefined;
  return { port: Number(port), controllerPort: Number(controllerPort) };
}

/** The cluster.id line of a formatted log dir's meta.properties, or undefined. */
export function clusterIdOf(metaProperties: string): string | undefined {
  return /^cluster\.id=(.+)$/m.exec(metaProperties)?.[1]?.trim();
}

/**
 * A cluster id as Kafka's Uuid.randomUuid makes them: 16 random bytes in unpadded base64url (22
 * characters), never starting with "-" (it would read as a command-line flag).
 */
export function randomClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString("base64url");
    if (!id.startsWith("-")) return id;
  }
}

function escapeValue(value: string): string {
  return value.replace(/\\/g, "\\\\");
}
