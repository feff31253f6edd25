import { describe, expect, it } from "vitest";
import { routineKafkaLine } from "./kafkajs-lines.js";

const conn = (msg: string, error: string) => ({ level: 50, logger: "kafkajs", kafka: "Connection", msg, error });

describe("deploy > kafkajs lines", () => {
  it("takes the broker's metadata-propagation answers right after a topic is created as routine", () => {
    expect(routineKafkaLine(conn("Response Metadata(key: 3, version: 6)", "This server does not host this topic-partition"))).toBe(true);
    expect(
      routineKafkaLine(conn("Response ListOffsets(key: 2, version: 3)", "This server is not the leader for that topic-partition")),
    ).toBe(true);
    expect(routineKafkaLine(conn("Response CreateTopics(key: 19, version: 3)", "Topic creation errors"))).toBe(true);
    expect(
      routineKafkaLine({
        level: 40,
        logger: "kafkajs",
        kafka: "Producer",
        msg: "Limiting retries for the idempotent producer may invalidate EoS guarantees",
      }),
    ).toBe(true);
  });

  it("keeps every other kafkajs error, and anything not from kafkajs", () => {
    expect(
      routineKafkaLine(conn("Response Produce(key: 0, version: 7)", "Not authorized to access topics: [Topic authorization failed]")),
    ).toBe(false);
    expect(
      routineKafkaLine(
        conn("Response Produce(key: 0, version: 7)", "Messages are rejected since there are fewer in-sync replicas than required"),
      ),
    ).toBe(false);
    expect(
      routineKafkaLine({
        level: 50,
        logger: "kafkajs",
        kafka: "Consumer",
        msg: "Crash: KafkaJSNumberOfRetriesExceeded",
        error: "This server does not host this topic-partition",
      }),
    ).toBe(false);
    expect(
      routineKafkaLine({
        level: 50,
        msg: "Response Metadata(key: 3, version: 6)",
        error: "This server does not host this topic-partition",
      }),
    ).toBe(false);
  });
});
