/**
 * Consistency tokens, client side: how a session combines the tokens of several writes.
 *
 * A token (the `consistency_token` of SubmitScores, DeletePlayer and DeleteBoard answers) is the
 * base64url encoding, without padding, of a `leaderboard.v1.ConsistencyToken` message: for each
 * partition written, the offset of the last record (common.proto). A read passing it waits until
 * the shards have applied those offsets. So a session that wrote twice must not send only its
 * newest token: that one names only the partitions of the newest write, and a read could miss the
 * earlier write to another partition. The session keeps, per partition, the largest offset of
 * every token it saw, and sends that as one token. Merging is commutative, associative and
 * idempotent, so writes answered in any order (concurrent ones) give the same token, and a token
 * never waits for less than any token merged into it. The router reads a token the same way
 * (the largest offset per partition), and a merged token names offsets the log acknowledged, so
 * it is never refused as naming records past the log's end.
 *
 * A token that is not such a message (a server of another version) cannot be merged: the session
 * then sends the newest token as it came, until a token it can read arrives.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ConsistencyTokenSchema } from "@ladder/proto/leaderboard/v1/common_pb";

/** Offsets to wait for, by partition. */
export type TokenOffsets = ReadonlyMap<number, bigint>;

/** The offsets a token names (largest per partition); throws for a token that is not one. */
export function decodeConsistencyToken(token: string): Map<number, bigint> {
  const bytes = Buffer.from(token, "base64url");
  if (!/^[A-Za-z0-9_-]+$/.test(token) || bytes.toString("base64url") !== token)
    throw new Error("consistency token is not canonical base64url");
  const offsets = new Map<number, bigint>();
  for (const { partition, offset } of fromBinary(ConsistencyTokenSchema, bytes).offsets) {
    if (offset > (offsets.get(partition) ?? -1n)) offsets.set(partition, offset);
  }
  if (offsets.size === 0) throw new Error("consistency token names no offsets");
  return offsets;
}

/** The token of `offsets`, partitions in ascending order; "" for none. */
export function encodeConsistencyToken(offsets: TokenOffsets): string {
  if (offsets.size === 0) return "";
  const list = [...offsets].sort(([a], [b]) => a - b).map(([partition, offset]) => ({ partition, offset }));
  return Buffer.from(toBinary(ConsistencyTokenSchema, create(ConsistencyTokenSchema, { offsets: list }))).toString("base64url");
}

/** Combines the tokens seen; `token` is what a read should send to see every write they came from. */
export class TokenMerger {
  private readonly offsets = new Map<number, bigint>();
  /** The newest token that could not be read, while no readable one came after it. */
  private opaque: string | undefined;
  /** The encoded token, until the next observe. */
  private encoded: string | undefined;

  /** Takes a token in ("" is none). */
  observe(token: string): this {
    if (token === "") return this;
    this.encoded = undefined;
    let offsets: Map<number, bigint>;
    try {
      offsets = decodeConsistencyToken(token);
    } catch {
      this.opaque = token;
      return this;
    }
    for (const [partition, offset] of offsets) if (offset > (this.offsets.get(partition) ?? -1n)) this.offsets.set(partition, offset);
    this.opaque = undefined;
    return this;
  }

  /** The combined token; "" when none was seen. */
  get token(): string {
    return this.opaque ?? (this.encoded ??= encodeConsistencyToken(this.offsets));
  }
}

/** One token that waits for everything each of `tokens` waits for. */
export function mergeConsistencyTokens(...tokens: string[]): string {
  const merger = new TokenMerger();
  for (const t of tokens) merger.observe(t);
  return merger.token;
}
