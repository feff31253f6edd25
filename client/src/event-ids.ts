/**
 * Event ids: the idempotency keys of score updates (docs/guarantees.md). A shard applies an
 * (event id, board, player) once within the dedup window, so a batch whose every update carries
 * an id can be sent again after an answer that never came. The client gives each update without
 * an id a fresh random UUID before the first attempt; every retry then resends the very same ids.
 */
import { randomUUID } from "node:crypto";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { ScoreUpdateSchema, SubmitScoresRequestSchema, type SubmitScoresRequest } from "@ladder/proto/leaderboard/v1/ingest_pb";

/**
 * The request as a message whose every update has an event id: the caller's ids are kept, each
 * missing one is a new UUID. The caller's objects are left as they were.
 */
export function assignEventIds(
  request: MessageInitShape<typeof SubmitScoresRequestSchema>,
  newId: () => string = randomUUID,
): SubmitScoresRequest {
  const updates = (request.updates ?? []).map((u) => create(ScoreUpdateSchema, { ...u, eventId: u.eventId || newId() }));
  // a new object with every other field of the request, even when `request` is a message (create keeps those as given)
  return create(SubmitScoresRequestSchema, { ...request, updates } as MessageInitShape<typeof SubmitScoresRequestSchema>);
}

/** Whether every update of a SubmitScores request carries an event id (then it may be retried). */
export function everyUpdateHasEventId(request: { updates: readonly { eventId: string }[] }): boolean {
  return request.updates.every((u) => u.eventId !== "");
}
