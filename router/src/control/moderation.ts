/**
 * AdminService's moderation rpcs: hide a player on a board or on every board, and lift it.
 *
 * An action is one record of the score log (model/src/moderation.ts), keyed and partitioned by
 * the player like its scores, carrying who (the admin token's grant), when and why: the player's
 * shard applies it in log order with its scores (store/src/lua/includes/apply-moderation.lua),
 * a rebuild replays it, and the shard keeps its audit line. Nothing here writes a shard.
 */
import { create } from "@bufbuild/protobuf";
import type { RecordProducer } from "@ladder/log/record-producer";
import type { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { ModerationAction, ModerationSchema, type Moderation } from "@ladder/proto/leaderboard/v1/moderation_pb";
import type { BoardResolver } from "@ladder/model/board-spec";
import { encodeToken } from "@ladder/model/consistency-token";
import { encodeModeration, reasonProblem } from "@ladder/model/moderation";
import { slotOf } from "@ladder/model/placement";
import { invalidArgument, notFound } from "@ladder/model/errors";
import { boardProblem, playerIdProblem } from "@ladder/model/validate";
import type { CallContext, ImplOf } from "@ladder/platform/grpc-adapter";
import type { Logger } from "@ladder/platform/logger";
import type { Metadata } from "@grpc/grpc-js";

type ModerationRpcs = Pick<ImplOf<typeof AdminService>, "hidePlayer" | "unhidePlayer">;

export interface ModerationDeps {
  /** The score log and its partitions (the cluster's slots). */
  scoreTopic: string;
  numSlots: number;
  /** A producer (connected on first use). */
  producer: () => Promise<RecordProducer>;
  /** The boards known (a board must be defined when boards need a definition). */
  boards: BoardResolver;
  /** The name of the caller's grant. */
  callerOf(metadata: Metadata): string;
  log: Logger;
}

interface ActionRequest {
  playerId: string;
  board: string;
  reason: string;
}

export function moderationService(d: ModerationDeps): ModerationRpcs {
  const write = async (action: ModerationAction, req: ActionRequest, ctx: CallContext) => {
    const badPlayer = playerIdProblem(req.playerId);
    if (badPlayer) throw invalidArgument(badPlayer);
    if (req.board !== "") {
      const badBoard = boardProblem(req.board);
      if (badBoard) throw invalidArgument(badBoard);
      if (!d.boards.forBoard(req.board)) throw notFound(`board "${req.board}" is not defined`);
    }
    const badReason = reasonProblem(req.reason);
    if (badReason) throw invalidArgument(badReason);
    const m: Moderation = create(ModerationSchema, {
      action,
      playerId: req.playerId,
      board: req.board,
      by: d.callerOf(ctx.metadata),
      reason: req.reason,
      atMs: BigInt(Date.now()),
    });
    const partition = slotOf(req.playerId, d.numSlots);
    const [sent] = await (await d.producer()).send(d.scoreTopic, [{ key: req.playerId, value: encodeModeration(m), partition }]);
    const offset = BigInt(sent!.baseOffset);
    d.log.info(
      { action: ModerationAction[action], player: req.playerId, board: req.board, by: m.by, partition, offset: String(offset) },
      "moderation written",
    );
    return { action: m, offset: { partition, offset }, consistencyToken: encodeToken(new Map([[partition, offset]])) };
  };
  return {
    hidePlayer: (req, ctx) => write(ModerationAction.HIDE, req, ctx),
    unhidePlayer: (req, ctx) => write(ModerationAction.UNHIDE, req, ctx),
  };
}
