import { logLevel } from "kafkajs";
import { describe, expect, it } from "vitest";
import { kafkajsLevel, kafkajsLogCreator } from "./kafkajs-logging.js";
import type { Logger } from "@ladder/platform/logger";

const line = (level: logLevel, message: string, extra: Record<string, unknown> = {}) => ({
  level,
  log: { timestamp: "2026-12-04T00:00:00.000Z", message, ...extra },
});

describe("log > kafkajs logging", () => {
  it("logs kafkajs's routine lines at debug: connection retries, rebalances, rejoins, leaders moving, restarts", () => {
    const routine = [
      line(logLevel.ERROR, "Connection error: connect ECONNREFUSED 127.0.0.1:9092", { broker: "127.0.0.1:9092" }),
      line(logLevel.ERROR, "Connection timeout", { broker: "127.0.0.1:9092" }),
      line(logLevel.ERROR, "Failed to connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED"),
      line(logLevel.ERROR, "Failed to connect to broker, reconnecting", { retryCount: 0 }),
      line(logLevel.ERROR, "Response Heartbeat(key: 12, version: 3)", { error: "The group is rebalancing, so a rejoin is needed" }),
      line(logLevel.WARN, "The group is rebalancing, re-joining", { error: "The group is rebalancing, so a rejoin is needed" }),
      line(logLevel.ERROR, "The coordinator is not aware of this member, re-joining the group"),
      line(logLevel.ERROR, "Response OffsetCommit(key: 8, version: 5)", {
        error: "The generation id provided is not the current generation",
      }),
      line(logLevel.ERROR, "Response Metadata(key: 3, version: 6)", {
        error: "There is no leader for this topic-partition as we are in the middle of a leadership election",
      }),
      line(logLevel.ERROR, "Response Produce(key: 0, version: 7)", { error: "This server is not the leader for that topic-partition" }),
      line(logLevel.ERROR, "Response FindCoordinator(key: 10, version: 2)", { error: "The coordinator is not available" }),
      line(logLevel.ERROR, "Restarting the consumer in 300ms", { retryCount: 1 }),
      line(logLevel.ERROR, "Response CreateTopics(key: 19, version: 3)", { error: "Topic creation errors" }),
    ];
    expect(routine.map(kafkajsLevel)).toEqual(routine.map(() => "debug"));
  });

  it("keeps real errors at error and other warnings at warn", () => {
    expect(kafkajsLevel(line(logLevel.ERROR, "Crash: KafkaJSNumberOfRetriesExceeded: Connection error: connect ECONNREFUSED"))).toBe(
      "error",
    );
    expect(kafkajsLevel(line(logLevel.ERROR, "SASL SCRAM SHA512 authentication failed: Authentication failed", { broker: "b:1" }))).toBe(
      "error",
    );
    expect(kafkajsLevel(line(logLevel.ERROR, "Error when calling eachBatch", { error: "boom" }))).toBe("error");
    expect(kafkajsLevel(line(logLevel.WARN, "Request timed out", { broker: "127.0.0.1:9092" }))).toBe("warn");
  });

  it("writes each line to the logger at its level, with kafkajs's namespace and fields but not its timestamp", () => {
    const got: Array<[string, object, string]> = [];
    const log = Object.fromEntries(
      ["debug", "warn", "error"].map((level) => [level, (obj: object, msg: string) => got.push([level, obj, msg])]),
    ) as unknown as Logger;
    const write = kafkajsLogCreator(log)(logLevel.WARN);
    write({ namespace: "Connection", label: "ERROR", ...line(logLevel.ERROR, "Connection timeout", { broker: "b:1" }) });
    write({ namespace: "Consumer", label: "ERROR", ...line(logLevel.ERROR, "Crash: KafkaJSError: boom", { groupId: "g" }) });
    expect(got).toEqual([
      ["debug", { kafka: "Connection", broker: "b:1" }, "Connection timeout"],
      ["error", { kafka: "Consumer", groupId: "g" }, "Crash: KafkaJSError: boom"],
    ]);
  });
});
