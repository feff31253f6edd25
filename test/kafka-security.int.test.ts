// The log secured: a broker of its own with SASL/SCRAM-SHA-512 over TLS and the roles' ACLs
// (log/src/kafka-acls.ts), as the local cluster runs it, and the services on it, each with its own
// login. A well-formed score record written straight to the score topic is refused without a login, with
// a wrong password, and with the router's or a shard node's login, and the board stays as it was; the
// same record under the broker's own (super) user is applied, so the refusals are the broker's ACLs and
// not a malformed record; writes through ingest's gRPC are applied throughout.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogClient } from "@ladder/log/log-client";
import { closesTopicOf, PeriodCloses, writeCloseOnce } from "@ladder/log/period-closes";
import { encodePeriodClose, newPeriodClose } from "@ladder/model/close-record";
import { describeKafka } from "@ladder/log/kafka-ready";
import { slotOf } from "@ladder/model/placement";
import { encodeScoreEvent } from "@ladder/model/score-event";
import type { KafkaSecurity } from "@ladder/platform/kafka-security";
import { silentLogger } from "@ladder/platform/logger";
import { brokerSecurityOf, kafkaRoleSettings, localKafkaLogins, type LocalKafkaLogins } from "@ladder/deploy/kafka-credentials";
import { type KafkaBroker, startKafkaBroker } from "@ladder/deploy/kafka-broker";
import { grantRoleAcls } from "@ladder/deploy/local-cluster";
import { kafkaLibs, tempDir } from "@ladder/deploy/test-support";
import { Operation, type PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { createClient } from "@ladder/client/grpc-stub";
import { AdminService, type RebuildShardsResponse } from "@ladder/proto/leaderboard/v1/admin_pb";
import { startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";

const log = silentLogger();
const BOARD = "guarded";
const SLOTS = 12; // the harness's LADDER_SLOTS

let dir: string;
let logins: LocalKafkaLogins;
let broker: KafkaBroker;
let c: TestCluster;

beforeAll(async () => {
  dir = await tempDir("kafka-security");
  logins = localKafkaLogins(dir);
  broker = await startKafkaBroker({ libsDir: await kafkaLibs(), dataDir: join(dir, "kafka"), log, security: brokerSecurityOf(logins) });
  c = await startTestCluster("kafka-sec", {
    ownRedis: true, // it rebuilds the shards
    kafkaBrokers: broker.brokers,
    kafkaLogins: kafkaRoleSettings(logins, dir),
    prepare: (ns) => grantRoleAcls(broker, ns.topic, log),
  });
}, 300_000);

afterAll(async () => {
  await c?.stop();
  await broker?.stop();
  await rm(dir, { recursive: true, force: true });
});

const login = (user: keyof LocalKafkaLogins["users"], password = logins.users[user]): KafkaSecurity => ({
  sasl: { mechanism: "scram-sha-512", username: user, password },
  tls: { caFile: logins.caFile },
});

/** A record as ingest would write it: player `player` SET to `value` on BOARD (implicit, all-time). */
function forged(player: string, value: bigint) {
  const now = Date.now();
  const update = { board: BOARD, playerId: player, op: Operation.SET, value, timestampMs: BigInt(now), eventId: "" };
  return { key: player, value: encodeScoreEvent(update, now), partition: slotOf(player, SLOTS) };
}

/** Writes `record` to the score topic under `security`; the error's type/message when the broker refuses it. */
async function produceAs(
  security: KafkaSecurity | undefined,
  record: ReturnType<typeof forged>,
  topic = c.ns.topic,
): Promise<{ ok: PartitionOffset } | { refused: string }> {
  const client = LogClient.unconnected(broker.brokers, "test-forger", log, security);
  try {
    const producer = await client.producer();
    try {
      const [w] = await producer.send(topic, [record]);
      return { ok: { partition: w!.partition, offset: BigInt(w!.baseOffset) } as PartitionOffset };
    } finally {
      await producer.disconnect().catch(() => {});
    }
  } catch (err) {
    const e = err as { type?: string; name?: string; message: string };
    return { refused: `${e.type ?? e.name}: ${e.message}` };
  }
}

async function top(): Promise<Array<[string, bigint]>> {
  const page = await c.router.getTop({ board: BOARD, limit: 100 });
  return page.entries.map((e) => [e.playerId, e.score]);
}

describe("kafka security > secured broker", () => {
  it("refuses a client without a login: no metadata without SASL, over TLS or not", async () => {
    await expect(describeKafka(broker.brokers)).rejects.toThrow();
    await expect(describeKafka(broker.brokers, undefined, { sasl: undefined, tls: { caFile: logins.caFile } })).rejects.toThrow();
    const wrong = login("ingest", "not-the-password");
    await expect(describeKafka(broker.brokers, undefined, wrong)).rejects.toThrow(/SASL|authentication/i);
    // the CA is checked: a client that trusts only the system's CAs does not talk to this broker
    await expect(describeKafka(broker.brokers, undefined, { sasl: login("ingest").sasl, tls: { caFile: undefined } })).rejects.toThrow();
    expect((await describeKafka(broker.brokers, undefined, login("ingest"))).brokers).toEqual(broker.brokers);
  }, 120_000);

  it("refuses score records from no login, the router's and a shard node's; applies ingest's writes and the super user's", async () => {
    const res = await c.ingest.submitScores({ updates: [{ board: BOARD, playerId: "honest", op: Operation.SET, value: 10n }] });
    await c.waitApplied(res.offsets);
    const before = await top();
    expect(before).toEqual([["honest", 10n]]);

    const attempts = {
      none: await produceAs(undefined, forged("mallory", 1_000_000n)),
      tlsOnly: await produceAs({ sasl: undefined, tls: { caFile: logins.caFile } }, forged("mallory", 1_000_000n)),
      router: await produceAs(login("router"), forged("mallory", 1_000_000n)),
      shard: await produceAs(login("shard"), forged("mallory", 1_000_000n)),
    };
    for (const a of Object.values(attempts)) expect(a).toHaveProperty("refused");
    expect((attempts.router as { refused: string }).refused).toMatch(/TOPIC_AUTHORIZATION_FAILED|not authorized/i);
    expect((attempts.shard as { refused: string }).refused).toMatch(/TOPIC_AUTHORIZATION_FAILED|not authorized/i);

    // ingest keeps writing meanwhile, and the board holds only what came through it
    const more = await c.ingest.submitScores({ updates: [{ board: BOARD, playerId: "honest-2", op: Operation.SET, value: 20n }] });
    await c.waitApplied(more.offsets);
    expect(await top()).toEqual([
      ["honest-2", 20n],
      ["honest", 10n],
    ]);

    // the same record under the broker's own user is applied: it was well-formed, the ACLs refused it
    const control = await produceAs(broker.superUser, forged("super", 5n));
    expect(control).toHaveProperty("ok");
    await c.waitApplied([(control as { ok: PartitionOffset }).ok]);
    expect(await top()).toEqual([
      ["honest-2", 20n],
      ["honest", 10n],
      ["super", 5n],
    ]);
  }, 180_000);

  it("writes the router's control plane under its own login (a board defined, deleted with its markers); rebuilds read as the router", async () => {
    const admin = createClient(AdminService, c.services.routerAddress, undefined, {}, TEST_TOKENS.admin);
    try {
      const created = await admin.createBoard({ board: { name: "defined", defaultOp: Operation.INCREMENT } });
      expect(created.board?.name).toBe("defined");
      expect((await admin.getBoard({ name: "defined" })).board?.name).toBe("defined");
      const deleted = await admin.deleteBoard({ name: "defined" });
      expect(deleted.markers).toHaveLength(SLOTS); // one per score partition, written as router-control
      await c.waitApplied(deleted.markers);
      // a rebuild reads the log (and the snapshots) under the router's reader login: the board comes back whole
      const before = await top();
      for await (const _ of admin.rebuildShards({}) as AsyncIterable<RebuildShardsResponse>);
      await c.waitApplied([]); // every shard serving again, once its node has applied the newest records
      expect(await top()).toEqual(before);
      // the router's reader, which follows those definitions, could not have written them
      const definitions = await produceAs(login("router"), { key: "x", value: Buffer.from("x"), partition: 0 }, `${c.ns.topic}.boards`);
      expect(definitions).toHaveProperty("refused");
    } finally {
      admin.close();
    }
  }, 120_000);

  it("writes a close event once under router-control's transactional id, read as the router; the router's login cannot write one", async () => {
    const reader = LogClient.unconnected(broker.brokers, "test-closes-reader", log, login("router"));
    const control = LogClient.unconnected(broker.brokers, "test-closes-control", log, login("router-control"));
    const closes = await PeriodCloses.start({ client: reader, topic: closesTopicOf(c.ns.topic), log });
    try {
      const write = (kafka: typeof control.kafka) =>
        writeCloseOnce({
          kafka,
          scoreTopic: c.ns.topic,
          closes,
          key: "probe#1@S1",
          build: async () => encodePeriodClose(newPeriodClose({ board: "probe", generation: 1n, period: "S1" })),
        });
      await expect(write(reader.kafka)).rejects.toThrow(); // no WRITE on the topic nor the transactional id
      expect(await write(control.kafka)).toBe("written");
      expect(await write(control.kafka)).toBe("exists");
      expect(closes.timesWritten("probe#1@S1")).toBe(1);
    } finally {
      await closes.stop();
      await reader.close();
      await control.close();
    }
  }, 120_000);
});
