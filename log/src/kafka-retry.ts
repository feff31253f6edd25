/**
 * kafkajs's own request retry, configured from a backoff policy of @ladder/platform/backoff
 * (the one retry vocabulary of the code base).
 */
import type { RetryOptions } from "kafkajs";
import type { BackoffPolicy } from "@ladder/platform/backoff";

/** Kafka requests of every client: 100 ms doubling to 2 s. */
export const KAFKA_BACKOFF: BackoffPolicy = Object.freeze({ initialMs: 100, maxMs: 2_000 });

/** kafkajs's retry settings for `policy` (kafkajs adds its own ±20% randomization). */
export function kafkaRetry(policy: BackoffPolicy, retries: number): RetryOptions {
  return { initialRetryTime: policy.initialMs, maxRetryTime: policy.maxMs, retries, multiplier: 2, factor: 0.2 };
}
