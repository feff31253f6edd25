/**
 * A period's close event (PeriodClose, events.proto): its record key in the closes topic, the
 * checksum of the final standings, and its encoding. No I/O.
 *
 * KEY. "<board>#<generation>@<period>": the period's stored name (board-spec.ts, storedBoardName),
 * one per period of a generation, so the compacted topic keeps one event per period and a closer
 * finds whether a period's event exists by its key.
 *
 * CHECKSUM. SHA-256 (hex) of the whole final standings, one line per entry in rank order,
 * "<rank>\t<player id>\t<score>\t<reached_at_ms>\n" (numbers in decimal): a reward service, or an
 * audit, recomputes it from any full read of the frozen period (GetTop pages) and compares.
 */
import { createHash, type Hash } from "node:crypto";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { PeriodCloseSchema, type PeriodClose } from "@ladder/proto/leaderboard/v1/events_pb";

export type { PeriodClose };

/** Entries of the final standings a close event carries when the rule says 0 (CloseRule.top_k). */
export const DEFAULT_CLOSE_TOP_K = 10;
/** The most entries a close event carries. */
export const MAX_CLOSE_TOP_K = 1000;

/** The record key of a period's close event. */
export const closeKey = (board: string, generation: bigint | number, period: string): string => `${board}#${generation}@${period}`;

export interface StandingLine {
  rank: number;
  playerId: string;
  score: number;
  reachedAtMs: number;
}

/** The checksum of standings fed in rank order, entry by entry or page by page. */
export class StandingsChecksum {
  private readonly hash: Hash = createHash("sha256");
  private next = 1;

  /** Adds entries; throws when they do not continue the ranks fed so far (1, 2, 3, ...). */
  add(entries: Iterable<StandingLine>): void {
    for (const e of entries) {
      if (e.rank !== this.next) throw new Error(`standings checksum: rank ${e.rank} where ${this.next} comes next`);
      this.hash.update(`${e.rank}\t${e.playerId}\t${e.score}\t${e.reachedAtMs}\n`);
      this.next++;
    }
  }

  /** Entries added. */
  get size(): number {
    return this.next - 1;
  }

  /** The hex digest (once). */
  digest(): string {
    return this.hash.digest("hex");
  }
}

export const encodePeriodClose = (c: PeriodClose): Buffer => Buffer.from(toBinary(PeriodCloseSchema, c));
export const decodePeriodClose = (b: Uint8Array): PeriodClose => fromBinary(PeriodCloseSchema, b);
export const newPeriodClose = (init: Omit<Parameters<typeof create<typeof PeriodCloseSchema>>[1] & object, "$typeName">): PeriodClose =>
  create(PeriodCloseSchema, init);
