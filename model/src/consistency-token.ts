/**
 * Consistency tokens: "read your writes". Ingest answers a batch with the last offset it
 * wrote per partition; encoded as base64url of a ConsistencyToken message, clients pass it
 * back opaquely on reads, and the router waits until the shards owning those partitions
 * have applied them. The router refuses a token that names offsets past the log's end
 * (@ladder/log/log-ends).
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ConsistencyTokenSchema } from "@ladder/proto/leaderboard/v1/common_pb";
import { invalidArgument } from "./errors.js";

/** Required offsets by partition. */
export type RequiredOffsets = Map<number, bigint>;

export function encodeToken(offsets: RequiredOffsets): string {
  const list = [...offsets].sort(([a], [b]) => a - b).map(([partition, offset]) => ({ partition, offset }));
  return Buffer.from(toBinary(ConsistencyTokenSchema, create(ConsistencyTokenSchema, { offsets: list }))).toString("base64url");
}

/** Decodes a token; "" means no requirement. INVALID_ARGUMENT for anything malformed. */
export function decodeToken(token: string, numSlots: number): RequiredOffsets {
  const required: RequiredOffsets = new Map();
  if (token === "") return required;
  let offsets;
  try {
    const bytes = Buffer.from(token, "base64url");
    if (!/^[A-Za-z0-9_-]+$/.test(token) || bytes.toString("base64url") !== token) throw new Error("not canonical base64url");
    offsets = fromBinary(ConsistencyTokenSchema, bytes).offsets;
    if (offsets.length === 0) throw new Error("names no offsets");
  } catch (err) {
    throw invalidArgument(`consistency_token: must be empty or a token a write answered, got a malformed one (${(err as Error).message})`);
  }
  for (const { partition, offset } of offsets) {
    if (partition >= numSlots || offset < 0n)
      throw invalidArgument(
        `consistency_token: must name partitions 0..${numSlots - 1} and offsets of 0 or more, got partition ${partition} offset ${offset}`,
      );
    if (offset > (required.get(partition) ?? -1n)) required.set(partition, offset);
  }
  return required;
}
