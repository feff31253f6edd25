// Which of a service's kafkajs lines are routine, so that the launcher shows them at debug (in the
// service's log file, not on the terminal). kafkajs logs every error response of the broker at
// error level from its Connection, also those it (or our code) retries: right after a topic is
// created, a single broker answers Metadata with "This server does not host this topic-partition"
// and ListOffsets with "not the leader" until it has loaded the partitions; three shard nodes
// starting at once race to create the topics, and the losers' CreateTopics get "Topic creation
// errors" (TOPIC_ALREADY_EXISTS, which common's createTopic takes as success). A fresh cluster's
// first start printed 28 such error lines while everything worked.
//
// Routine are: responses with one of the metadata-propagation errors below (kafkajs refreshes its
// metadata and retries them; when retries run out the caller fails and logs its own error, which
// stays an error), CreateTopics' aggregate error (createTopic rethrows anything but "already
// exists"), and the notice kafkajs prints whenever an idempotent producer is built with the
// client's bounded retries. Any other kafkajs line keeps its level.
import { createRequire } from "node:module";

/** kafkajs's protocol errors that mean "metadata is moving, ask again". */
const PROPAGATING = new Set([
  "UNKNOWN_TOPIC_OR_PARTITION",
  "LEADER_NOT_AVAILABLE",
  "NOT_LEADER_FOR_PARTITION",
  "GROUP_LOAD_IN_PROGRESS",
  "GROUP_COORDINATOR_NOT_AVAILABLE",
  "NOT_COORDINATOR_FOR_GROUP",
]);

interface ProtocolError {
  type: string;
  message: string;
}
const { errorCodes } = createRequire(import.meta.url)("kafkajs/src/protocol/error.js") as { errorCodes: ProtocolError[] };
/** Their messages, as kafkajs writes them in the `error` field of its Connection lines. */
const PROPAGATING_MESSAGES = new Set(errorCodes.filter((e) => PROPAGATING.has(e.type)).map((e) => e.message));

const EOS_NOTICE = "Limiting retries for the idempotent producer may invalidate EoS guarantees";

/** True for a kafkajs record (a service's pino line, parsed) that is routine as described above. */
export function routineKafkaLine(record: Readonly<Record<string, unknown>>): boolean {
  if (record.logger !== "kafkajs") return false;
  const { kafka, msg, error } = record;
  if (kafka === "Producer") return msg === EOS_NOTICE;
  if (kafka !== "Connection" || typeof msg !== "string" || !msg.startsWith("Response ")) return false;
  if (msg.startsWith("Response CreateTopics(") && error === "Topic creation errors") return true;
  return typeof error === "string" && PROPAGATING_MESSAGES.has(error);
}
