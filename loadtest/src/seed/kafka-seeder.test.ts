import { describe, expect, it } from "vitest";
import type { OutgoingRecord, RecordProducer } from "@ladder/log/record-producer";
import { loadConfig } from "@ladder/platform/config";
import { seedKafka } from "./kafka-seeder.js";
import type { SeededPlayer } from "./population.js";

const reachedAtMs = Date.now() - 60_000;
/** 1,000 players in chunks of 100. */
function* players(): Iterable<SeededPlayer[]> {
  for (let c = 0; c < 10; c++)
    yield Array.from({ length: 100 }, (_, i) => ({ playerId: `p${c * 100 + i}`, slot: i % 4, points: 10 + i, reachedAtMs }));
}

/**
 * A log whose shards apply `perLook` records each time the seeder looks at them (never more than were
 * sent): what the seeder sent and not yet applied, seen at every send, at most.
 */
function log(perLook: number) {
  let sent = 0;
  let applied = 0;
  let mostBehind = 0;
  const producer = {
    send: async (_topic: string, records: OutgoingRecord[]) => {
      sent += records.length;
      mostBehind = Math.max(mostBehind, sent - applied);
      return [];
    },
  } as unknown as RecordProducer;
  const applyMore = async () => (applied = Math.min(sent, applied + perLook));
  return { producer, applyMore, mostBehind: () => mostBehind, sent: () => sent };
}

const config = loadConfig({ LADDER_CREDENTIALS_FILE: "/nonexistent/credentials.json" });
const target = { spec: config.boards.forBoard("seeded"), stored: "seeded" };
const base = { topic: "scores", board: "seeded", target, batch: 50, parallel: 2, onProgress: () => {} };

describe("loadtest > seedKafka", () => {
  it("keeps at most maxBehind records sent and not applied when paced, and sends every record", async () => {
    const l = log(20);
    const result = await seedKafka({
      ...base,
      producer: l.producer,
      players: players(),
      pace: { maxBehind: 120, applied: l.applyMore, pollMs: 0, sleep: async () => {} },
    });
    expect(result.produced).toBe(1000);
    expect(l.sent()).toBe(1000);
    expect(l.mostBehind()).toBeLessThanOrEqual(120);
    expect(result.pauses).toBeGreaterThan(0);
  });

  it("sends as fast as the log takes them unpaced", async () => {
    const l = log(20);
    const result = await seedKafka({ ...base, producer: l.producer, players: players() });
    expect(result.produced).toBe(1000);
    expect(l.mostBehind()).toBe(1000); // nothing looked at the shards
    expect(result.pauses).toBe(0);
  });
});
