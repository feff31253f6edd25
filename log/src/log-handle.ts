/**
 * What log's own functions take of a LogClient (log-client.ts): its kafkajs client and its
 * admin. Callers outside log/ pass their LogClient as it is and never read these fields, so
 * no kafkajs type reaches them; a file of log/ that LogClient itself imports takes this
 * interface instead of the class (no import circle).
 */
import type { Admin, Kafka } from "kafkajs";

export interface LogHandle {
  /** For @ladder/log's own functions only. */
  readonly kafka: Kafka;
  /** For @ladder/log's own functions only; connected by LogClient.open() or connect(), else on first use. */
  readonly admin: Admin;
}
