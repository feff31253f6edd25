/**
 * Every piece of the Kafka client library that the load tools and benchmarks use, in one
 * module: the seeder, the write and rebuild benchmarks and the bench fixtures import Kafka
 * from here and from nowhere else, so moving them to another client (or package) changes
 * this file only. What they need is small: a client, the score topic created or checked as
 * the services do, ingest's producer, a bulk producer, the topic-id lookup, and the types.
 */
import { Partitioners, type Admin, type Kafka, type Message, type Producer } from "kafkajs";

export { createKafka, createScoreProducer, ensureScoreTopic, TopicIds } from "@ladder/log/kafka";
export type { Admin, Kafka, Message, Producer };

/**
 * A producer for records the caller has already partitioned (each message names its
 * partition): not idempotent, `inFlight` produce requests at once, never creating a topic.
 */
export function bulkProducer(kafka: Kafka, inFlight: number): Producer {
  return kafka.producer({
    idempotent: false,
    maxInFlightRequests: inFlight,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
}
