/**
 * IngestService handlers: validate the whole batch, then write it to the score log.
 * The first invalid update rejects the batch (INVALID_ARGUMENT naming its index and the
 * reason) before anything is queued, so a rejected batch writes nothing.
 */
import type { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import type { ScoreUpdate } from "@ladder/proto/leaderboard/v1/ingest_pb";
import type { BoardCatalog } from "@ladder/common/board-definitions";
import type { Config } from "@ladder/common/config";
import type { ImplOf } from "@ladder/common/grpc-adapter";
import { encodeToken } from "@ladder/common/consistency-token";
import { Code, invalidArgument, LadderError, notFound } from "@ladder/common/errors";
import { slotOf } from "@ladder/common/placement";
import { periodAt, type Period } from "@ladder/common/periods";
import { encodeScoreEvent } from "@ladder/common/score-event";
import { boardProblem, resolveOp, updateProblem } from "@ladder/common/validate";
import type { GroupCommitProducer, OutRecord } from "./group-commit-producer.js";

/** How long a batch may wait for the log when the caller set no deadline. */
const DEFAULT_WRITE_TIMEOUT_MS = 10_000; // 10 s

/** The boards ingest knows: the latest catalog of the definitions it follows. */
export interface Boards {
  readonly catalog: BoardCatalog;
}

export function ingestService(config: Config, producer: GroupCommitProducer, boards: Boards, clock: () => number = Date.now): ImplOf<typeof IngestService> {
  return {
    async submitScores(req, ctx) {
      const n = req.updates.length;
      if (n === 0) throw invalidArgument("updates is empty");
      if (n > config.maxBatch) throw invalidArgument(`updates has ${n} entries, more than the limit of ${config.maxBatch}`);
      const now = clock();
      const catalog = boards.catalog; // one catalog for the whole batch
      const records = req.updates.map((u, i) => toRecord(u, i, now, config, catalog));
      const timeoutMs = Math.max(1, Math.min(DEFAULT_WRITE_TIMEOUT_MS, ctx.deadlineMs - Date.now()));
      const written = await producer.submit(records, timeoutMs);
      return {
        offsets: [...written].sort(([a], [b]) => a - b).map(([partition, offset]) => ({ partition, offset })),
        accepted: n,
        consistencyToken: encodeToken(written),
      };
    },
  };
}

function toRecord(u: ScoreUpdate, index: number, now: number, config: Config, catalog: BoardCatalog): OutRecord {
  const badName = boardProblem(u.board);
  if (badName) throw invalidArgument(`updates[${index}]: ${badName}`);
  const spec = catalog.forBoard(u.board);
  if (!spec) throw notFound(`updates[${index}]: board "${u.board}" is not defined (AdminService.CreateBoard), and this cluster takes no boards without a definition (LADDER_IMPLICIT_BOARDS)`);
  const resolved = resolveOp(u.op, spec);
  if ("problem" in resolved) throw new LadderError(Code.FAILED_PRECONDITION, `updates[${index}]: ${resolved.problem}`);
  const fields = { board: u.board, playerId: u.playerId, op: resolved.op, value: u.value, timestampMs: u.timestampMs === 0n ? BigInt(now) : u.timestampMs, eventId: u.eventId };
  const problem = updateProblem(fields, spec, now, config.maxClockSkewMs);
  if (problem) throw invalidArgument(`updates[${index}]: ${problem}`);
  const rules = catalog.definition(u.board)?.rules;
  let period: Period | undefined;
  if (spec.period.kind !== "none") {
    // the event's own time decides its period, never the clock; a period no longer kept takes no more scores
    period = periodAt(spec.period, Number(fields.timestampMs));
    if (now >= period.expireAtMs)
      throw new LadderError(Code.FAILED_PRECONDITION, `updates[${index}]: timestamp_ms ${fields.timestampMs} falls in period ${period.id} of board "${u.board}", no longer kept (it keeps the current period and ${spec.period.keep} before it)`);
  }
  return { partition: slotOf(u.playerId, config.numSlots), key: u.playerId, value: encodeScoreEvent(fields, now, rules && { rules, ...(period ? { period } : {}) }) };
}
