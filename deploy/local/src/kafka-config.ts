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
}

/**
 * A static one-voter quorum (controller.quorum.voters), so the log dir is formatted without
 * --standalone and the controller port may change between runs on the same data. Internal topics have
 * replication factor 1; topics are never auto-created; broker-wide retention keeps Kafka's default
 * (7 days) and topics override it with their own configs (e.g. retention.ms=-1).
 */
export function brokerProperties({ port, controllerPort, logDir }: BrokerPropertiesOptions): string {
  const props: Record<string, string | number> = {
    "process.roles": "broker,controller",
    "node.id": 1,
    "controller.quorum.voters": `1@127.0.0.1:${controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    "advertised.listeners": `PLAINTEXT://127.0.0.1:${port}`,
    "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
    "controller.listener.names": "CONTROLLER",
    "inter.broker.listener.name": "PLAINTEXT",
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

/** The ports in a server.properties written by `brokerProperties`, or undefined if it has none. */
export function recordedPorts(properties: string): BrokerPorts | undefined {
  const listeners = /^listeners=(.*)$/m.exec(properties)?.[1] ?? "";
  const port = /PLAINTEXT:\/\/[^,]*:(\d+)/.exec(listeners)?.[1];
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
