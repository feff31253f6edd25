import { describe, expect, it } from "vitest";
import { brokerProperties, clusterIdOf, randomClusterId, recordedPorts } from "./kafka-config.js";

describe("deploy > kafka config", () => {
  it("writes a single-node KRaft config on 127.0.0.1 with the given ports and log dir", () => {
    const text = brokerProperties({ port: 19092, controllerPort: 19093, logDir: "/data/logs" });
    const props = Object.fromEntries(
      text
        .split("\n")
        .filter((l) => l.includes("="))
        .map((l) => l.split(/=(.*)/s).slice(0, 2)),
    );
    expect(props).toMatchObject({
      "process.roles": "broker,controller",
      "node.id": "1",
      "controller.quorum.voters": "1@127.0.0.1:19093",
      listeners: "PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093",
      "advertised.listeners": "PLAINTEXT://127.0.0.1:19092",
      "log.dirs": "/data/logs",
      "auto.create.topics.enable": "false",
      "offsets.topic.replication.factor": "1",
      "transaction.state.log.replication.factor": "1",
      "min.insync.replicas": "1",
      "group.initial.rebalance.delay.ms": "0",
    });
    expect(props["log.retention.ms"]).toBeUndefined();
  });

  it("reads back the ports it wrote, and nothing from other text", () => {
    const text = brokerProperties({ port: 40001, controllerPort: 40002, logDir: "/x" });
    expect(recordedPorts(text)).toEqual({ port: 40001, controllerPort: 40002 });
    expect(recordedPorts("")).toBeUndefined();
  });

  it("reads the cluster id of a meta.properties", () => {
    expect(clusterIdOf("#\nnode.id=1\ncluster.id=abc_DEF-123\nversion=1\n")).toBe("abc_DEF-123");
    expect(clusterIdOf("version=1\n")).toBeUndefined();
  });

  it("makes cluster ids of 16 bytes in unpadded base64url, never starting with a dash", () => {
    for (let i = 0; i < 200; i++) {
      const id = randomClusterId();
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
      expect(Buffer.from(id, "base64url")).toHaveLength(16);
    }
  });

  it("secured: SASL_SSL for clients, SASL PLAIN for the controller, PEM TLS, the authorizer denying by default", () => {
    const security = { keystoreFile: "/d/tls/broker.pem", caFile: "/d/tls/ca.pem", user: "broker", password: "pw" };
    const text = brokerProperties({ port: 19092, controllerPort: 19093, logDir: "/data/logs", security });
    const props = Object.fromEntries(
      text
        .split("\n")
        .filter((l) => l.includes("="))
        .map((l) => l.split(/=(.*)/s).slice(0, 2)),
    );
    expect(props).toMatchObject({
      listeners: "SASL_SSL://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093",
      "advertised.listeners": "SASL_SSL://127.0.0.1:19092",
      "listener.security.protocol.map": "SASL_SSL:SASL_SSL,CONTROLLER:SASL_PLAINTEXT",
      "inter.broker.listener.name": "SASL_SSL",
      "sasl.enabled.mechanisms": "SCRAM-SHA-512",
      "sasl.mechanism.controller.protocol": "PLAIN",
      "ssl.keystore.type": "PEM",
      "ssl.keystore.location": "/d/tls/broker.pem",
      "ssl.truststore.location": "/d/tls/ca.pem",
      "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
      "allow.everyone.if.no.acl.found": "false",
      "super.users": "User:broker",
    });
    expect(Object.keys(props).some((k) => k.startsWith("listener.name.plaintext"))).toBe(false);
    expect(recordedPorts(text)).toEqual({ port: 19092, controllerPort: 19093 });
  });
});
