/**
 * The Kafka path: ScoreEvent records (model/src/score-event.ts: key = player id, value =
 * the binary event, partition = the player's slot) produced straight into the score topic
 * in large batches, `parallel` produce requests in flight. The shard nodes then apply them
 * like any other record: the log stays the truth, and a shard rebuilt from it has these
 * players. Only ingest's gRPC front is bypassed, so every record is checked here with
 * ingest's own rules (validate.ts) before it is produced.
 *
 * Records are SETs of the player's seeded score at its seeded time, with no event id
 * (seeding never retries an update: no dedup bookkeeping on the shards), unless
 * `eventIdPrefix` is given: then record n carries the event id `<prefix>:<n>`, as the load
 * tool's writes do, and the shards remember each one for the dedup window (the rebuild
 * benchmark measures that path). A board defined with AdminService.CreateBoard is written as
 * ingest writes it (seed-board.ts): every record carries the definition's rules.
 *
 * Pacing (`pace`): the log takes records faster than the shard nodes apply them, and a shard more
 * than LADDER_MAX_LAG records behind for LADDER_MAX_LAG_MS stops serving reads. So, when paced, a
 * produce request waits while the records sent and not yet applied, its own counted, would pass
 * `maxBehind`: the seed then runs at the shards' pace, a bounded backlog ahead of them, and reads of
 * the cluster go on during it. Either way the load ends when the shards have applied everything;
 * paced, they stay within LADDER_MAX_LAG, where shard nodes take their snapshots, so those run during
 * the load instead of after it (docs/performance.md, "Loading through the log").
 */
import type { OutgoingRecord, RecordProducer } from "@ladder/log/record-producer";
import { encodeScoreEvent } from "@ladder/model/score-event";
import { updateProblem } from "@ladder/model/validate";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { InFlightLimit } from "./in-flight-limit.js";
import type { SeededPlayer } from "./population.js";
import type { SeedBoard } from "./seed-board.js";

export interface KafkaSeedDeps {
  producer: RecordProducer;
  topic: string;
  board: string;
  /** How the board is resolved (seed-board.ts): its spec checks each record, a defined board's rules go into it. */
  target: SeedBoard;
  batch: number;
  parallel: number;
  players: Iterable<SeededPlayer[]>;
  onProgress(produced: number): void;
  /** Give each record an event id `<prefix>:<n>` (none when absent). */
  eventIdPrefix?: string;
  /** Keep at most `maxBehind` records sent and not yet applied (see above); unpaced when absent. */
  pace?: Pace;
}

export interface Pace {
  /** Records sent and not applied at most (at least twice the batch, so a request never waits on itself). */
  maxBehind: number;
  /** The records the shards applied since the seed began (all of them: another writer's count too, so it never over-counts the seed's backlog by more than theirs). */
  applied(): Promise<number>;
  pollMs: number;
  sleep(ms: number): Promise<void>;
}

/** Records produced, produce requests, and bytes of keys and values. */
export async function seedKafka(d: KafkaSeedDeps) {
  const limit = new InFlightLimit(d.parallel);
  const ingestedAtMs = Date.now();
  let messages: OutgoingRecord[] = [];
  let produced = 0;
  let sent = 0; // records handed to the producer, in flight included
  let requests = 0;
  let bytes = 0;
  let pausedMs = 0;
  let pauses = 0;
  const pace = d.pace;
  // waits until the shards are within `maxBehind` of what was sent, this batch's records counted
  const paced = async (records: number) => {
    if (!pace) return;
    const t0 = performance.now();
    let waited = false;
    while (sent + records - (await pace.applied()) > pace.maxBehind) {
      waited = true;
      await pace.sleep(pace.pollMs);
    }
    if (waited) {
      pauses++;
      pausedMs += performance.now() - t0;
    }
  };
  let n = 0;
  const eventId = d.eventIdPrefix === undefined ? () => "" : () => `${d.eventIdPrefix}:${n++}`;
  const flush = async () => {
    const batch = messages;
    messages = [];
    requests++;
    await paced(batch.length);
    sent += batch.length;
    await limit.run(async () => {
      await d.producer.send(d.topic, batch); // acks=all
      produced += batch.length;
      d.onProgress(produced);
    });
  };
  for (const chunk of d.players) {
    for (const p of chunk) {
      const fields = {
        board: d.board,
        playerId: p.playerId,
        op: Operation.SET,
        value: BigInt(p.points),
        timestampMs: BigInt(p.reachedAtMs),
        eventId: eventId(),
      };
      const problem = updateProblem(fields, d.target.spec, ingestedAtMs, 0);
      if (problem) throw new Error(`seed record for ${p.playerId} is invalid: ${problem}`);
      const value = encodeScoreEvent(fields, ingestedAtMs, d.target.rules ? { rules: d.target.rules } : undefined);
      bytes += value.length + p.playerId.length;
      messages.push({ key: p.playerId, value, partition: p.slot });
      if (messages.length >= d.batch) await flush();
    }
  }
  if (messages.length) await flush();
  await limit.drain();
  return { produced, requests, bytes, pauses, pausedMs: Math.round(pausedMs) };
}
