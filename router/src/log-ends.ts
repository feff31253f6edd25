/**
 * The score log's end offsets as the router last saw them, to refuse consistency tokens that
 * name records which do not exist. Ingest hands out tokens only for records Kafka
 * acknowledged, so an honest token never names an offset at or past the log's end; a token
 * that does (forged, corrupted, or from another cluster or an older topic of the same name)
 * would otherwise make the read poll the shards for the whole consistency wait.
 *
 * The ends are cached. A token beyond the cached ends triggers one refresh (concurrent
 * requests share it: a fresh token is often a little ahead of the cache), and only a token
 * still beyond the refreshed ends is refused with INVALID_ARGUMENT. If Kafka can't be asked,
 * the token is not refused: the read waits for it as before, bounded by the consistency wait.
 */
import type { Admin } from "kafkajs";
import type { RequiredOffsets } from "@ladder/common/consistency-token";
import { invalidArgument } from "@ladder/common/errors";
import type { Logger } from "@ladder/common/logger";

export class LogEnds {
  private ends = new Map<number, bigint>();
  private refreshing: Promise<void> | undefined;

  constructor(private readonly admin: Admin, private readonly topic: string, private readonly log: Logger) {}

  /** Throws INVALID_ARGUMENT when `required` names an offset past the log's end. */
  async check(required: RequiredOffsets): Promise<void> {
    if (this.beyond(required) === undefined) return;
    try {
      await this.refresh();
    } catch (err) {
      this.log.warn({ err }, "could not read the log's end offsets; consistency token not checked");
      return;
    }
    const bad = this.beyond(required);
    if (bad) throw invalidArgument(`consistency_token names offset ${bad.offset} of partition ${bad.partition}, but the log ends before it (at ${bad.end}): not a token of this cluster's log`);
  }

  private beyond(required: RequiredOffsets): { partition: number; offset: bigint; end: bigint } | undefined {
    for (const [partition, offset] of required) {
      const end = this.ends.get(partition) ?? 0n;
      if (offset >= end) return { partition, offset, end };
    }
    return undefined;
  }

  private refresh(): Promise<void> {
    this.refreshing ??= this.admin
      .connect() // a no-op once connected
      .then(() => this.admin.fetchTopicOffsets(this.topic))
      .then((offsets) => void (this.ends = new Map(offsets.map((o) => [o.partition, BigInt(o.high)]))))
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }
}
