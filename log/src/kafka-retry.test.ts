import { describe, expect, it } from "vitest";
import { kafkaRetry } from "./kafka-retry.js";

describe("log > kafka retry", () => {
  it("maps a policy to kafkajs's retry settings", () => {
    expect(kafkaRetry({ initialMs: 100, maxMs: 2000 }, 8)).toEqual({
      initialRetryTime: 100,
      maxRetryTime: 2000,
      retries: 8,
      multiplier: 2,
      factor: 0.2,
    });
  });
});
