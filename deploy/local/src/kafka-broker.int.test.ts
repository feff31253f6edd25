import { readFileSync, statSync, writeFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAsGroup } from "@ladder/log/group-reader";
import { LogClient } from "@ladder/log/log-client";
import { describeKafka } from "@ladder/log/kafka-ready";
import { silentLogger } from "@ladder/platform/logger";
import { type KafkaBroker, startKafkaBroker } from "./kafka-broker.js";
import { kafkaLibs, tempDir } from "./test-support.js";

const log = silentLogger();
const TOPIC = "scores";

describe("deploy > kafka broker", () => {
  let libsDir: string;
  let dir: string;
  const running: KafkaBroker[] = [];

  beforeAll(async () => {
    libsDir = await kafkaLibs();
    dir = await tempDir("kafka-broker");
  }, 300_000);

  afterAll(async () => {
    await Promise.allSettled(running.map((b) => b.stop()));
    await rm(dir, { recursive: true, force: true });
  });

  async function start(dataDir: string, port?: number): Promise<KafkaBroker> {
    const broker = await startKafkaBroker({ libsDir, dataDir, port, log });
    running.push(broker);
    return broker;
  }

  async function produce(brokers: string[], count: number, from = 0): Promise<void> {
    const producer = await LogClient.unconnected(brokers, "ladder-int-test", log).producer({ idempotent: true });
    const messages = Array.from({ length: count }, (_, i) => ({ key: `player-${from + i}`, value: `${from + i}` }));
    await producer.send(TOPIC, messages);
    await producer.disconnect();
  }

  it("keeps messages and committed offsets across a clean restart on the same data dir", async () => {
    const dataDir = join(dir, "restart");
    const broker = await start(dataDir);
    const client = await LogClient.open(broker.brokers, "ladder-int-test", log);
    await client.createTopic(TOPIC, 3);
    await client.close();
    await produce(broker.brokers, 30);

    const first = await readAsGroup(client, { groupId: "g1", topic: TOPIC, count: 30 });
    expect(first.map((r) => Number(r.value?.toString())).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(new Set(first.map((r) => r.partition))).toEqual(new Set([0, 1, 2]));

    await broker.stop();
    const again = await start(dataDir);
    expect(again.brokers).toEqual(broker.brokers);

    const client2 = await LogClient.open(again.brokers, "ladder-int-test", log);
    const committed = await client2.committedOffsets("g1", TOPIC);
    expect([...committed.values()].reduce((sum, p) => sum + Number(p), 0)).toBe(30);
    const ends = await client2.endOffsetsOnce(TOPIC);
    expect([...ends.values()].reduce((sum, p) => sum + Number(p), 0)).toBe(30);
    expect(await readAsGroup(client2, { groupId: "g2", topic: TOPIC, count: 30 })).toHaveLength(30);
    await client2.close();
    await again.stop();
  }, 180_000);

  it("comes back after SIGKILL with every acknowledged message, on the port it asked for", async () => {
    const dataDir = join(dir, "crash");
    const { freePort } = await import("./free-port.js");
    const port = await freePort();
    const broker = await start(dataDir, port);
    expect(broker.brokers).toEqual([`127.0.0.1:${port}`]);
    const client = await LogClient.open(broker.brokers, "ladder-int-test", log);
    await client.createTopic(TOPIC, 3);
    await client.close();
    await produce(broker.brokers, 100);
    await broker.kill();
    await broker.kill(); // a second kill (and a stop) of a dead broker are no-ops
    await broker.stop();

    const again = await start(dataDir, port);
    const client2 = await LogClient.open(again.brokers, "ladder-int-test", log);
    const ends = await client2.endOffsetsOnce(TOPIC);
    expect([...ends.values()].reduce((sum, p) => sum + Number(p), 0)).toBe(100);
    await client2.close();
    await produce(again.brokers, 10, 100);
    await again.stop();
  }, 180_000);

  it("fails with the broker's output when it cannot start", async () => {
    const emptyLibs = join(dir, "no-jars");
    await mkdir(emptyLibs, { recursive: true });
    await expect(startKafkaBroker({ libsDir: emptyLibs, dataDir: join(dir, "broken"), log })).rejects.toThrow(
      /StorageTool format failed[\s\S]*kafka\.tools\.StorageTool/,
    );
  }, 60_000);

  const security = { brokerUser: "broker", brokerPassword: "broker-pw", users: { ingest: "ingest-pw" } };
  const loginOf = (broker: KafkaBroker, user: string, password: string) => ({
    sasl: { mechanism: "scram-sha-512" as const, username: user, password },
    tls: { caFile: broker.caFile },
  });

  it("secured: logins only over TLS, kept across a restart with its certificate; server.properties 0600", async () => {
    const dataDir = join(dir, "secured");
    const broker = await startKafkaBroker({ libsDir, dataDir, log, security });
    running.push(broker);
    expect(broker.caFile).toBe(join(dataDir, "tls", "ca.pem"));
    await expect(describeKafka(broker.brokers)).rejects.toThrow();
    expect((await describeKafka(broker.brokers, undefined, loginOf(broker, "ingest", "ingest-pw"))).brokers).toEqual(broker.brokers);
    expect(statSync(join(dataDir, "server.properties")).mode & 0o777).toBe(0o600);
    const ca = readFileSync(broker.caFile!, "utf8");
    await broker.stop();

    const again = await startKafkaBroker({ libsDir, dataDir, log, security });
    running.push(again);
    expect(readFileSync(again.caFile!, "utf8")).toBe(ca);
    expect((await describeKafka(again.brokers, undefined, loginOf(again, "ingest", "ingest-pw"))).brokers).toEqual(again.brokers);
    await expect(describeKafka(again.brokers, undefined, loginOf(again, "ingest", "wrong"))).rejects.toThrow();
    await again.stop();
  }, 180_000);

  it("secured: refuses a log dir formatted without its SASL users, saying what to do, before starting anything", async () => {
    const dataDir = join(dir, "formatted-plain");
    await mkdir(join(dataDir, "logs"), { recursive: true });
    writeFileSync(join(dataDir, "logs", "meta.properties"), "cluster.id=AAAAAAAAAAAAAAAAAAAAAA\nnode.id=1\n");
    await expect(startKafkaBroker({ libsDir, dataDir, log, security })).rejects.toThrow(
      /formatted without the SASL users ingest, broker: remove .* so that it is formatted again with them/,
    );
  }, 60_000);
});
