// An oracle of tournaments worked out from the score log itself, written from the rules of
// proto/leaderboard/v1 (TournamentRule, ScoreEvent.join_tournament and tournament_member), not from
// the code under test: it reads every record of the topic in each partition's order and decides,
// record by record, which joins are admitted (the first max_size players of the join partition whose
// join reached the log before the end), which players are members where their writes are (a
// membership record earlier in the player's partition), and which writes count (a member's, while
// it has used fewer than max_attempts). The counted writes, applied in order, make the board.
import { fromBinary } from "@bufbuild/protobuf";
import { ScoreEventSchema, type ScoreEvent } from "@ladder/proto/leaderboard/v1/events_pb";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import type { LogClient } from "@ladder/log/log-client";
import { RulesOracle, type Op, type Rules } from "./rules-oracle.js";

export interface TournamentLog {
  /** Admitted players, in the order their joins were admitted. */
  members: string[];
  /** Per player, the event ids of its writes that counted, in log order. */
  counted: Map<string, string[]>;
  /** Event ids of the writes refused (a non-member's, or past the attempts). */
  refused: Set<string>;
  /** The board the counted writes make. */
  board: RulesOracle;
}

const OPS: Record<number, Op> = {
  [Operation.SET]: "set",
  [Operation.INCREMENT]: "inc",
  [Operation.DECREMENT]: "dec",
  [Operation.BEST]: "best",
};

/** Every record of `topic`, decoded, per partition in offset order. */
export async function readTopic(client: LogClient, topic: string): Promise<Map<number, ScoreEvent[]>> {
  const ends = await client.endOffsets(topic);
  const out = new Map<number, ScoreEvent[]>();
  for (const [partition, end] of ends) {
    const events: ScoreEvent[] = [];
    out.set(partition, events);
    if (end === 0n) continue;
    await client.readRange({
      topic,
      partition,
      from: 0n,
      until: end - 1n,
      onRecord: (r) => void events.push(fromBinary(ScoreEventSchema, r.value!)),
    });
  }
  return out;
}

/** Tournament `board` as the log `records` decide it, under `rules`, with `maxSize`, `maxAttempts` and its end. */
export function tournamentOfLog(
  records: Map<number, ScoreEvent[]>,
  o: { board: string; rules: Rules; maxSize: number; maxAttempts: number; endMs: number; joinRequired: boolean },
): TournamentLog {
  const members: string[] = [];
  for (const events of records.values())
    for (const e of events) {
      if (!e.joinTournament || e.board !== o.board) continue;
      if (members.includes(e.playerId) || Number(e.ingestedAtMs) >= o.endMs) continue;
      if (o.maxSize > 0 && members.length >= o.maxSize) continue;
      members.push(e.playerId);
    }
  const counted = new Map<string, string[]>();
  const refused = new Set<string>();
  const board = new RulesOracle(o.rules);
  for (const events of records.values()) {
    const joined = new Set<string>();
    for (const e of events) {
      if (e.board !== o.board) continue;
      if (e.tournamentMember) joined.add(e.playerId);
      if (e.joinTournament || e.tournamentMember || e.closePeriod || e.deleteBoard || e.erase || e.moderation) continue;
      const used = counted.get(e.playerId) ?? [];
      if ((o.joinRequired && !joined.has(e.playerId)) || (o.maxAttempts > 0 && used.length >= o.maxAttempts)) {
        refused.add(e.eventId);
        continue;
      }
      counted.set(e.playerId, [...used, e.eventId]);
      board.apply(e.playerId, OPS[e.op]!, Number(e.value), Number(e.timestampMs));
    }
  }
  return { members, counted, refused, board };
}
