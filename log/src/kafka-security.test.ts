import { describe, expect, it } from "vitest";
import { connectFailure } from "./kafka-security.js";

/** kafkajs's error after its retries, as a broker requiring TLS gives it to a client without. */
function retriesExceeded(causeName: string): Error {
  const cause = Object.assign(new Error("Closed connection"), { name: causeName });
  return Object.assign(new Error("Closed connection", { cause }), { name: "KafkaJSNumberOfRetriesExceeded" });
}

describe("connectFailure", () => {
  it("says what to set when the broker closed the connections of a client without TLS or SASL", () => {
    const err = retriesExceeded("KafkaJSConnectionClosedError");
    const explained = connectFailure(err, ["127.0.0.1:9092"], undefined) as Error;
    expect(explained.message).toMatch(/^Kafka at 127\.0\.0\.1:9092 closed every connection \(Closed connection\)/);
    expect(explained.message).toContain("LADDER_KAFKA_TLS_CA, LADDER_KAFKA_SASL_MECHANISM");
    expect(explained.cause).toBe(err);
  });

  it("leaves any other failure, and any failure of a client with security, as it is", () => {
    const refused = retriesExceeded("KafkaJSConnectionError");
    expect(connectFailure(refused, ["b:9092"], undefined)).toBe(refused);
    const closed = retriesExceeded("KafkaJSConnectionClosedError");
    expect(connectFailure(closed, ["b:9092"], { sasl: undefined, tls: { caFile: "ca.pem" } })).toBe(closed);
  });
});
