/**
 * Rank reports (SubmitScoresRequest.report_ranks): what each update of a batch did to its player's
 * rank on each board it applied to, exactly.
 *
 * HOW. Ingest gives every reported record a random id. The shard that applies it keeps, in the same
 * apply script and around the record's own change, the player's key and the members ahead of it
 * before, the same after, and the board's size on the shard, in a list "<prefix>rank-change:<id>"
 * (store/src/lua/apply-events.lua; 60 s). Once Kafka acknowledged the batch, ingest waits until each
 * record's partition is applied on its shard (polling the shard's applied offsets, like a
 * consistency token), reads the list, and asks every other shard, in one script each, how many
 * members are ahead of both positions (read_ranks: the reads of one shard go together for the whole
 * batch). previous rank = 1 + ahead before (own) + the others' ahead of the old position; new rank
 * likewise. Both positions are counted on each other shard at one instant, and the own shard's two
 * counts differ only by the record's change: the two ranks are exact against one board, and a
 * better score never reports a worse rank.
 *
 * Reads go to the shards' primaries (the records were just applied there) and are refused as any
 * read is when a shard does not serve (UNAVAILABLE): the batch stays written. They go by the
 * placement in force when the report starts (placement-log.ts); during a reshard's cut-over the
 * shards refuse a placement they no longer hold, and the report is refused the same way.
 *
 * WHY HERE AND NOT IN THE ROUTER. Considered (issue "A house others can carry on") and left here,
 * for three reasons. The router's rpcs cannot answer it: GetRanks gives a rank now, but the
 * previous rank is only in the list the apply kept, so ingest would need a new internal rpc, a
 * credential and an address for the router, and writes that report ranks would fail whenever the
 * router does, where today they depend only on the shards the report must read anyway. The work
 * is the same Redis round trips in either process (applied offsets, the list, one count per other
 * shard), so the router saves none of it and the call gains a gRPC hop. Measured on 2026-12-03
 * (the test cluster, 3 shards, 3,000 players, sequential calls, the machine under load): a
 * SubmitScores of 1 update on 2 boards took 8.1 ms at the median without report_ranks and 14.1 ms
 * with it (ingest CPU 3.0 and 5.8 ms per call); of 10 updates, 12.6 and 23.2 ms (4.2 and 8.0 ms).
 * A GetRanks through the router, the nearest existing call, took 3.7 ms and 3.1 ms of the router's
 * CPU; a bare unary round trip between two Node processes 0.6-1.2 ms and 1.0-1.5 ms of CPU on the
 * two sides together. The hop would add that to every report and take no Redis work away. The
 * router reads the shards' Redis directly for the same reason (router/src/read/shard-pool.ts).
 * And nothing of the router's read path applies: reports read primaries (the records were just
 * applied there), never replicas or caches.
 */
import { randomBytes } from "node:crypto";
import { storedBoardName, type BoardSpec } from "@ladder/model/board-spec";
import { deadlineExceeded, unavailable } from "@ladder/model/errors";
import { decodeSortKey } from "@ladder/model/score-encoding";
import type { ShardReader } from "@ladder/store";
import type { ShardReaders } from "./shard-readers.js";

/** Updates one batch may ask rank reports for. */
export const MAX_REPORTED = 100;

/** One reported update, as ingest wrote it. */
export interface ReportedUpdate {
  index: number;
  playerId: string;
  partition: number;
  reportId: string;
  /** Its boards (not the one it leaves), with their specs and periods. */
  boards: Array<{ board: string; period: string; spec: BoardSpec }>;
}

export interface RankChangeOut {
  updateIndex: number;
  board: string;
  period: string;
  previousRank: bigint;
  newRank: bigint;
  previousScore: bigint;
  newScore: bigint;
  total: bigint;
}

export const newReportId = () => randomBytes(12).toString("base64url");

/** How often a shard's applied offsets are looked at while waiting. */
const POLL_MS = 5;

export class RankReporter {
  constructor(private readonly shards: ShardReaders) {}

  /** The rank changes of `updates`, once their partitions have applied `written` (or DEADLINE_EXCEEDED at `deadlineMs`). */
  async report(updates: readonly ReportedUpdate[], written: ReadonlyMap<number, bigint>, deadlineMs: number): Promise<RankChangeOut[]> {
    const table = this.shards.current();
    const ownerOf = (partition: number) => table.readers.get(table.placement.slotToShard[partition]!)!;
    await Promise.all(
      [...new Set(updates.map((u) => u.partition))].map((p) => untilApplied(ownerOf(p), p, written.get(p)!, deadlineMs, "report ranks")),
    );
    const lists = await Promise.all(updates.map((u) => ownerOf(u.partition).rankReport(u.reportId)));
    const all = [...table.readers.values()];
    const changes = updates.flatMap((u, i) => {
      const owner = ownerOf(u.partition);
      const list = lists[i]!;
      return u.boards.map(async (b): Promise<RankChangeOut | undefined> => {
        const stored = storedBoardName(b.board, b.spec, b.period);
        let at = 0;
        while (at + 6 <= list.length && list[at] !== stored) at += 6;
        if (at + 6 > list.length) return undefined; // no report kept (expired, or the record was not applied as a score)
        const [, before, aheadBefore, after, aheadAfter, card] = list.slice(at, at + 6) as [string, string, string, string, string, string];
        const positions = [
          ...(before ? [{ playerId: u.playerId, key: Number(before) }] : []),
          { playerId: u.playerId, key: Number(after) },
        ];
        const others = await Promise.all(all.filter((s) => s !== owner).map((s) => s.ranks(stored, [], positions)));
        const sumAhead = (k: number) => others.reduce((n, r) => n + r.aheadOf[k]!, 0);
        const score = (key: string) => BigInt(decodeSortKey(b.spec, Number(key)).points);
        return {
          updateIndex: u.index,
          board: b.board,
          period: b.period,
          previousRank: before ? BigInt(1 + Number(aheadBefore) + sumAhead(0)) : 0n,
          newRank: BigInt(1 + Number(aheadAfter) + sumAhead(before ? 1 : 0)),
          previousScore: before ? score(before) : 0n,
          newScore: score(after),
          total: BigInt(Number(card) + others.reduce((n, r) => n + r.card, 0)),
        };
      });
    });
    return (await Promise.all(changes)).filter((c): c is RankChangeOut => c !== undefined);
  }
}

/** Resolves once `partition`'s shard (`reader`) has applied `offset`; `what` the answer waited for it to do. */
export async function untilApplied(
  reader: ShardReader,
  partition: number,
  offset: bigint,
  deadlineMs: number,
  what: string,
): Promise<void> {
  for (;;) {
    const [done] = await reader.appliedOffsetsOf([partition]).catch((err: Error) => {
      throw unavailable(`the batch was written, but ${reader.shardId} could not be read to ${what}: ${err.message}`, err);
    });
    if (done! >= offset) return;
    if (Date.now() + POLL_MS >= deadlineMs)
      throw deadlineExceeded(`the batch was written, but ${reader.shardId} had not applied it when the deadline came: cannot ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
