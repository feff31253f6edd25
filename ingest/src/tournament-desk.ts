/**
 * Ingest's side of tournaments (the rules: model/src/tournaments.ts): joins, and the answer of a
 * tournament write once its shard decided it.
 *
 * A JOIN is decided by the shard that applies the tournament's partition, never here: ingest
 * writes the join record there, waits until it is applied (polling the shard's applied offset, as
 * rank reports do), reads the members, and answers from what the shard holds. Before writing it
 * looks once: a player already a member writes no join (only its membership again, in case an
 * earlier ingest died before writing it), and a tournament whose members already number max_size
 * is refused without writing (members never leave: a later join could only be refused too). An
 * admitted player's membership is then written to its own partition; the answer comes once the log
 * holds it, so the player's writes after the answer follow it in that partition.
 *
 * A WRITE to a tournament carries a report id; once applied, its shard has kept what it decided
 * under that id ('ok', 'not-member', 'attempts': apply-tournaments.lua), and the answer is that.
 */
import type { JoinTournamentRequest } from "@ladder/proto/leaderboard/v1/tournament_pb";
import type { BoardCatalog } from "@ladder/model/board-definitions";
import { storedBoardName } from "@ladder/model/board-spec";
import { encodeToken } from "@ladder/model/consistency-token";
import { Code, invalidArgument, LadderError, notFound } from "@ladder/model/errors";
import { slotOf } from "@ladder/model/placement";
import { encodeTournamentJoin } from "@ladder/model/score-event";
import {
  attemptsMessage,
  fullMessage,
  joinClosedProblem,
  joinPartitionOf,
  notMemberMessage,
  TOURNAMENT_PERIOD,
} from "@ladder/model/tournaments";
import { boardProblem, playerIdProblem } from "@ladder/model/validate";
import type { GroupCommitProducer } from "./group-commit-producer.js";
import { untilApplied } from "./rank-reports.js";
import type { ShardReaders } from "./shard-readers.js";

export interface TournamentDeskDeps {
  numSlots: number;
  producer: GroupCommitProducer;
  shards: ShardReaders;
  catalog: () => BoardCatalog;
  clock?: () => number;
}

/** A tournament write as ingest wrote it, to answer once applied. */
export interface TournamentWrite {
  board: string;
  playerId: string;
  partition: number;
  reportId: string;
  maxAttempts: number;
}

export class TournamentDesk {
  private readonly clock: () => number;

  constructor(private readonly d: TournamentDeskDeps) {
    this.clock = d.clock ?? Date.now;
  }

  private ownerOf(partition: number) {
    const table = this.d.shards.current();
    return table.readers.get(table.placement.slotToShard[partition]!)!;
  }

  async join(
    req: JoinTournamentRequest,
    deadlineMs: number,
  ): Promise<{ memberCount: bigint; alreadyMember: boolean; consistencyToken: string }> {
    const badBoard = boardProblem(req.board);
    if (badBoard) throw invalidArgument(badBoard);
    const badPlayer = playerIdProblem(req.playerId);
    if (badPlayer) throw invalidArgument(badPlayer);
    const definition = this.d.catalog().definition(req.board);
    if (!definition) throw notFound(`board "${req.board}" is not defined`);
    const rules = definition.rules!;
    const t = rules.tournament;
    if (!t) throw new LadderError(Code.FAILED_PRECONDITION, `board "${req.board}" is no tournament (BoardRules.tournament)`);
    if (!t.joinRequired)
      throw new LadderError(
        Code.FAILED_PRECONDITION,
        `tournament "${req.board}" takes no joins (join_required is false): anyone may write`,
      );
    const endMs = Number(t.endMs);
    const closed = joinClosedProblem(req.board, { endMs }, this.clock());
    if (closed) throw new LadderError(Code.FAILED_PRECONDITION, closed);
    const stored = storedBoardName(req.board, { generation: Number(rules.generation) }, TOURNAMENT_PERIOD);
    const joinPartition = joinPartitionOf(req.board, this.d.numSlots);
    const timeoutMs = () => Math.max(1, deadlineMs - Date.now());
    const written = new Map<number, bigint>();

    let seen = await this.ownerOf(joinPartition).tournament(stored, req.playerId);
    const already = seen.joined;
    if (!already) {
      if (t.maxSize > 0 && seen.members >= t.maxSize) throw full(req.board, req.playerId, t.maxSize);
      const at = this.clock();
      const value = encodeTournamentJoin(req.board, req.playerId, rules, at, false);
      const joined = await this.d.producer.submit([{ partition: joinPartition, key: req.playerId, value }], timeoutMs());
      for (const [p, o] of joined) written.set(p, o);
      const owner = this.ownerOf(joinPartition);
      await untilApplied(owner, joinPartition, joined.get(joinPartition)!, deadlineMs, "answer the join");
      seen = await owner.tournament(stored, req.playerId);
      if (!seen.joined) {
        const late = joinClosedProblem(req.board, { endMs }, at);
        if (late) throw new LadderError(Code.FAILED_PRECONDITION, late);
        throw full(req.board, req.playerId, t.maxSize);
      }
    }
    // the membership where the player's writes are checked (again for a member: it may be missing)
    const partition = slotOf(req.playerId, this.d.numSlots);
    const member = encodeTournamentJoin(req.board, req.playerId, rules, this.clock(), true);
    const membership = await this.d.producer.submit([{ partition, key: req.playerId, value: member }], timeoutMs());
    for (const [p, o] of membership) written.set(p, o > (written.get(p) ?? -1n) ? o : written.get(p)!);
    return { memberCount: BigInt(seen.members), alreadyMember: already, consistencyToken: encodeToken(written) };
  }

  /** Answers a tournament write once its shard applied it: resolves when it counted, throws the refusal otherwise. */
  async decided(w: TournamentWrite, offset: bigint, deadlineMs: number): Promise<void> {
    const owner = this.ownerOf(w.partition);
    await untilApplied(owner, w.partition, offset, deadlineMs, "answer the tournament write");
    const outcome = await owner.outcome(w.reportId);
    if (outcome === "ok") return;
    if (outcome === "not-member") throw new LadderError(Code.FAILED_PRECONDITION, notMemberMessage(w.board, w.playerId));
    if (outcome === "attempts") throw new LadderError(Code.FAILED_PRECONDITION, attemptsMessage(w.board, w.playerId, w.maxAttempts));
    throw new LadderError(
      Code.FAILED_PRECONDITION,
      `the write of player "${w.playerId}" to tournament "${w.board}" was not applied: the tournament closed, or the board was deleted, before it reached the shard`,
    );
  }
}

const full = (board: string, player: string, maxSize: number) =>
  new LadderError(Code.RESOURCE_EXHAUSTED, fullMessage(board, player, maxSize), { retriable: false });
