/**
 * The score log's end offsets as the router last saw them, to refuse consistency tokens that
 * name records which do not exist. Ingest hands out tokens only for records Kafka
 * acknowledged, so an honest token never names an offset at or past the log's end; a token
 * that does (forged, corrupted, or from another cluster or an older topic of the same name)
 * would otherwise make the read poll the shards for the whole consistency wait.
 *
 * The ends are cached. A token beyond the cached ends waits for a refresh that started after
 * the token arrived (a refresh already under way may predate the write the token names), and
 * only a token still beyond those ends is refused with INVALID_ARGUMENT. Concurrent tokens
 * share refreshes: at most one runs at a time, and each waiter joins the first that began
 * after it arrived. If Kafka can't be asked,
 * the token is not refused: the read waits for it as before, bounded by the consistency wait.
 */
import type { RequiredOffsets } from "@ladder/model/consistency-token";
import { invalidArgument } from "@ladder/model/errors";
import type { Logger } from "@ladder/platform/logger";
import type { LogHandle } from "./log-handle.js";

export class LogEnds {
  private ends = new Map<number, bigint>();
  /** Arrivals and refreshes are numbered in one sequence: a refresh serves the arrivals before it. */
  private seq = 0;
  private refreshing: { seq: number; done: Promise<void> } | undefined;

  constructor(
    private readonly client: LogHandle,
    private readonly topic: string,
    private readonly log: Logger,
  ) {}

  /** Throws INVALID_ARGUMENT when `required` names an offset past the log's end. */
  async check(required: RequiredOffsets): Promise<void> {
    if (this.beyond(required) === undefined) return;
    const arrived = ++this.seq;
    try {
      await this.refreshAfter(arrived);
    } catch (err) {
      this.log.warn({ err }, "could not read the log's end offsets; consistency token not checked");
      return;
    }
    const bad = this.beyond(required);
    if (bad)
      throw invalidArgument(
        `consistency_token names offset ${bad.offset} of partition ${bad.partition}, but the log ends before it (at ${bad.end}): not a token of this cluster's log`,
      );
  }

  private beyond(required: RequiredOffsets): { partition: number; offset: bigint; end: bigint } | undefined {
    for (const [partition, offset] of required) {
      const end = this.ends.get(partition) ?? 0n;
      if (offset >= end) return { partition, offset, end };
    }
    return undefined;
  }

  /** Resolves once a refresh that began after arrival `arrived` has finished. */
  private async refreshAfter(arrived: number): Promise<void> {
    for (;;) {
      const running = this.refreshing;
      if (running && running.seq > arrived) return running.done;
      if (running) {
        await running.done.catch(() => {}); // began before we arrived: wait for it, then one of our own
        continue;
      }
      const seq = ++this.seq;
      const { admin } = this.client;
      const done = admin
        .connect() // a no-op once connected
        .then(() => admin.fetchTopicOffsets(this.topic))
        .then((offsets) => void (this.ends = new Map(offsets.map((o) => [o.partition, BigInt(o.high)]))))
        .finally(() => {
          if (this.refreshing?.seq === seq) this.refreshing = undefined;
        });
      this.refreshing = { seq, done };
      return done;
    }
  }
}
