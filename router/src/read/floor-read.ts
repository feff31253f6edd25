/**
 * The floor that bounds every read of a trimmed board (keep_top): the highest trim floor over the
 * shards (apply-retention.lua), read AFTER the answer it bounds.
 *
 * A trim is applied per partition, so for a moment a partition that has not applied it yet still
 * holds entries below its floor while other partitions removed theirs: ranked among the entries
 * held, such an entry would miss the better entries already trimmed. Floors only rise, so an entry
 * at or above the floor read after the answer had every better entry on the board when the answer
 * was read (a trim removes only entries below its own floor, and every floor applied by then is at
 * or below this one). Every read that ranks an entry leaves out those below it: a page ends there,
 * a player below it is not ranked (NOT_FOUND, missing, not found), so no rank is answered that a
 * trim may have made inexact. Cost: one floor read per shard, on trimmed boards only.
 */
import type { BoardSpec } from "@ladder/model/board-spec";
import { belowFloor, type Floor } from "@ladder/model/retention";
import type { ShardReads, ShardStore } from "./shard-calls.js";

/** Whether the entry (sort key, player id) lies below the floor read (its rank is not answered). */
export type BelowFloor = (key: number, playerId: string) => boolean;

const NOTHING_BELOW: BelowFloor = () => false;

/** The floor of the board stored as `stored` on `stores`, read now; nothing is below it on a board without keep_top (no read). */
export async function readFloor(
  pool: Pick<ShardReads, "fanOut">,
  stores: readonly ShardStore[],
  spec: BoardSpec,
  stored: string,
  deadlineMs: number,
): Promise<BelowFloor> {
  if (spec.retention.keepTop === 0) return NOTHING_BELOW;
  const floors = (await pool.fanOut(stores, (s) => s.floors(stored), deadlineMs)).flat();
  const highest = floors.reduce<Floor | undefined>((best, f) => (!best || belowFloor(best.key, best.playerId, f) ? f : best), undefined);
  return highest ? (key, playerId) => belowFloor(key, playerId, highest) : NOTHING_BELOW;
}
