import { describe, expect, it } from "vitest";
import { loadConfig } from "@ladder/platform/config";
import { encodeScoreEvent } from "@ladder/model/score-event";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { prepareEvent } from "./prepare-event.js";

const boards = loadConfig({}).boards;
const spec = boards.forBoard("g");
const at = Date.UTC(2026, 10, 30, 12, 0, 30);

describe("replay > prepare event", () => {
  it("quantizes the time and carries the board's encoding", () => {
    const value = encodeScoreEvent({ board: "g", playerId: "a", op: Operation.BEST, value: 7n, timestampMs: BigInt(at), eventId: "" }, at);
    const {
      events: [event],
      problem,
    } = prepareEvent(value, 41n, boards);
    expect(problem).toBeUndefined();
    expect(event).toMatchObject({
      offset: 41n,
      board: "g",
      playerId: "a",
      op: Operation.BEST,
      value: 7,
      maxPoints: spec.maxPoints,
      timeUnits: spec.timeUnits,
    });
    expect(event.timeIdx).toBe(Math.floor((at - spec.epochMs) / 60_000));
  });

  it("turns unusable records into no-ops that still advance the offset", () => {
    expect(prepareEvent(null, 1n, boards)).toMatchObject({ events: [{ op: 0, offset: 1n }], problem: /no value/ });
    expect(prepareEvent(Buffer.from([0xff, 0xff, 0xff]), 2n, boards)).toMatchObject({ events: [{ op: 0 }], problem: /not a ScoreEvent/ });
    const bad = encodeScoreEvent({ board: "g", playerId: "", op: Operation.SET, value: 1n, timestampMs: BigInt(at), eventId: "" }, at);
    expect(prepareEvent(bad, 3n, boards)).toMatchObject({ events: [{ op: 0 }], problem: /player_id is empty/ });
  });

  it("accepts old timestamps on replay, however late", () => {
    const old = encodeScoreEvent(
      { board: "g", playerId: "a", op: Operation.SET, value: 1n, timestampMs: BigInt(spec.epochMs), eventId: "" },
      at,
    );
    expect(prepareEvent(old, 4n, boards).problem).toBeUndefined();
  });
});
