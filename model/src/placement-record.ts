/**
 * The placement as versioned data: which shards there are, where their Redis is, and which
 * shard owns each slot, with an epoch that grows by one at every change.
 *
 * WHERE IT LIVES. In a compacted Kafka topic, `<score topic>.placement` (one partition), as a
 * PlacementRecord keyed "placement": the newest record is the placement. Routers, shard nodes
 * and ingest read it whole before they work and follow it (compacted-follower.ts). Kafka is
 * already the cluster's durable truth, replicated as the score topic is, and every process
 * already talks to it: no other store to run. (This file is the record and its encoding, no
 * I/O; the topic is followed by @ladder/log/placement-follower.) The first record (epoch 1) is written from
 * LADDER_SHARDS by the first process that finds the topic empty; from then on LADDER_SHARDS is
 * only that seed, and AdminService.Reshard writes each next epoch (router/src/reshard.ts).
 *
 * HOW A CHANGE IS SAFE. The table is plain data, replaced whole. What keeps reads exact while
 * it changes is not the record but the shards' stamps (store/src/identity.ts): a shard's stamp
 * names the slots it holds, every read checks it against the reader's placement in the same
 * atomic script as the data, and a shard rebuilt for a new slot set carries the new stamp. So
 * a read by epoch e answers only while every shard it asks holds exactly its epoch-e slots,
 * whatever the processes have heard of the topic so far; a reader, node or router still on an
 * older epoch is refused, never answered from a mix.
 *
 * Costs: one record of about 100 bytes plus 2 per slot; followers fetch only when it changes.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { PlacementRecordSchema } from "@ladder/proto/leaderboard/v1/events_pb";
import { buildPlacement, placementFromTable, type Placement } from "./placement.js";

/** A shard as the placement names it. */
export interface ShardAddress {
  readonly id: string;
  /** redis://host:port, or the full sentinel://host:port,.../master-name form (@ladder/platform/redis-address). */
  readonly redisUrl: string;
}

export interface ClusterPlacement {
  readonly epoch: number;
  readonly shards: readonly ShardAddress[];
  readonly placement: Placement;
  readonly writtenAtMs: number;
}

/** The placement of `shards` at `epoch`: the balanced ring table of placement.ts. */
export function placementOf(epoch: number, shards: readonly ShardAddress[], numSlots: number, writtenAtMs = Date.now()): ClusterPlacement {
  return Object.freeze({
    epoch,
    shards: Object.freeze([...shards]),
    placement: buildPlacement(
      shards.map((s) => s.id),
      numSlots,
    ),
    writtenAtMs,
  });
}

export function encodePlacement(p: ClusterPlacement): Buffer {
  const index = new Map(p.shards.map((s, i) => [s.id, i]));
  return Buffer.from(
    toBinary(
      PlacementRecordSchema,
      create(PlacementRecordSchema, {
        epoch: BigInt(p.epoch),
        writtenAtMs: BigInt(p.writtenAtMs),
        shards: p.shards.map((s) => ({ id: s.id, redisUrl: s.redisUrl })),
        slotToShard: p.placement.slotToShard.map((id) => index.get(id)!),
      }),
    ),
  );
}

/** A record's placement; throws on a record that is not one, or is of another number of slots. */
export function decodePlacement(value: Uint8Array, numSlots: number): ClusterPlacement {
  const r = fromBinary(PlacementRecordSchema, value);
  if (r.slotToShard.length !== numSlots) throw new Error(`a placement of ${r.slotToShard.length} slots, not ${numSlots} (LADDER_SLOTS)`);
  const shards = r.shards.map((s) => Object.freeze({ id: s.id, redisUrl: s.redisUrl }));
  return Object.freeze({
    epoch: Number(r.epoch),
    shards: Object.freeze(shards),
    placement: placementFromTable(
      shards.map((s) => s.id),
      r.slotToShard,
    ),
    writtenAtMs: Number(r.writtenAtMs),
  });
}

/** The slots whose owner differs between two placements (from "" for a slot with none). */
export function movedSlots(from: Placement, to: Placement): Array<{ slot: number; from: string; to: string }> {
  return to.slotToShard.flatMap((owner, slot) =>
    from.slotToShard[slot] === owner ? [] : [{ slot, from: from.slotToShard[slot] ?? "", to: owner }],
  );
}
