import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { SubmitScoresRequestSchema } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { assignEventIds, everyUpdateHasEventId } from "./event-ids.js";

const update = (playerId: string, eventId = "") => ({ board: "b", playerId, op: Operation.INCREMENT, value: 1n, eventId });

describe("client > event ids", () => {
  it("gives each update without an id a fresh one and keeps the caller's", () => {
    const req = { updates: [update("a"), update("b", "mine"), update("c")], reportRanks: true };
    const msg = assignEventIds(req);
    expect(msg.updates.map((u) => u.playerId)).toEqual(["a", "b", "c"]);
    expect(msg.updates[1]!.eventId).toBe("mine");
    const fresh = [msg.updates[0]!.eventId, msg.updates[2]!.eventId];
    for (const id of fresh) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(fresh).size).toBe(2);
    expect(msg.reportRanks).toBe(true);
    expect(everyUpdateHasEventId(msg)).toBe(true);
  });

  it("leaves the caller's request as it was, a plain object or a message", () => {
    const plain = { updates: [update("a")] };
    assignEventIds(plain);
    expect(plain.updates[0]!.eventId).toBe("");
    const message = create(SubmitScoresRequestSchema, { updates: [update("a")] });
    const sent = assignEventIds(message);
    expect(message.updates[0]!.eventId).toBe("");
    expect(sent).not.toBe(message);
    expect(sent.updates[0]!.eventId).not.toBe("");
  });

  it("assigns once: the message sent again (a retry) carries the same ids", () => {
    let n = 0;
    const msg = assignEventIds({ updates: [update("a"), update("b")] }, () => `id-${n++}`);
    expect(assignEventIds(msg, () => "never").updates.map((u) => u.eventId)).toEqual(["id-0", "id-1"]);
  });

  it("tells a batch with an update without an id", () => {
    expect(everyUpdateHasEventId({ updates: [update("a", "x"), update("b")] })).toBe(false);
    expect(everyUpdateHasEventId({ updates: [update("a", "x")] })).toBe(true);
  });
});
