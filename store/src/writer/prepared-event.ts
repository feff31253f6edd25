/** What the apply script is given of one score event (pack-event.ts packs it; shard-writer.ts sends it). */
/** A score event ready for the apply script: validated, time already quantized. */
export interface PreparedEvent {
  offset: bigint;
  /** A further board of the previous event's record (same offset): applied in the same call as it, or not at all. */
  part: boolean;
  board: string;
  playerId: string;
  /** One of APPLY_OP (script-codes.ts): SET, INCREMENT (a DECREMENT comes negated), BEST, REMOVE (a board left), ERASE (a tombstone), DELETE_BOARD (value: the shard's partitions), HIDE and UNHIDE (value 1: every board); NONE = an unusable record that only advances the offset. */
  op: number;
  value: number;
  timeIdx: number;
  maxPoints: number;
  minPoints: number;
  timeUnits: number;
  ttlSeconds: number;
  /** Lower points rank first (BEST keeps the lower; the sort key counts points up from minPoints). */
  lowerIsBetter: boolean;
  /** On a board with periods: when the period's key expires (Unix ms; Redis PEXPIREAT); 0 = never. */
  expireAtMs: number;
  /** The caller's idempotency key ("" = none). */
  eventId: string;
  /** When ingest accepted the event (Unix ms): the clock of the dedup window. */
  ingestedAtMs: number;
  /** Kept with the player's entry (ScoreUpdate.metadata); "" or absent keeps what it holds. */
  metadata?: string;
  /** On a board with a histogram: the sort key each of its buckets starts at, ascending (model/src/histogram.ts firstKeys). */
  histogram?: readonly number[];
  /** SubmitScoresRequest.report_ranks: the id under which the apply keeps the player's position before and after (apply-events.lua). */
  reportId?: string;
  /** On a board with windows: what recomputing them takes (prepare-event.ts, model/src/windows.ts). */
  windows?: PreparedWindows;
  /** A moderation action's audit line (JSON: moderationAuditLine), kept by the apply script (apply-moderation.lua). */
  audit?: string;
  /** HIDE_ABOVE: the board's sort keys below this hold more points than its ceiling; JOIN: the tournament's end (Unix ms); TRIM: the floor's sort key; EXPIRE: the cut-off (Unix ms). */
  limit?: number;
  /** A write to a tournament: whether a member is required, and its max attempts (0: none); the apply counts the attempt first (apply-tournaments.lua). */
  tournament?: { join: boolean; max: number };
  /** TRIM: the floor's player (apply-retention.lua). */
  floor?: string;
  /** A score event of a board with retention: bit 1 keep_top (the partition's floor applies), bit 2 expire_inactive_ms (its time is kept). */
  retain?: number;
  /** With `retain`: the event's time (timestamp_ms, Unix ms). */
  atMs?: number;
  /** PLACE: the league's period before the event's (""); SETTLED: the period settled (apply-leagues.lua). */
  prev?: string;
  /** TEAM_MEMBER: the team joined ("" none); CONTRIBUTION: the team (apply-teams.lua). */
  team?: string;
  /** CONTRIBUTION: the member left the team (its contribution goes). */
  left?: boolean;
  /** CONTRIBUTION: the members a team's points count (BEST), 0 for all (SUM). */
  best?: number;
  /**
   * A score event of a board with columns (model/src/columns.ts): SET and BEST, the column part of
   * the values; INCREMENT, per column its order, sign and magnitude (encodeDeltas). REMOVE: "-".
   */
  cols?: string;
  /** With `cols` (SET, BEST, INCREMENT): the member's time part ("" on a player-id-only board). */
  ctime?: string;
}

/** The windows a write into period P0 recomputes (see apply-events.lua). */
export interface PreparedWindows {
  /** Stored names of the periods P(-(N-1)) .. P(N-1), N being the longest window. */
  periodBoards: string[];
  /** How the board folds time into its keys: one of TIE_MODE (script-codes.ts). */
  tie: number;
  windows: Array<{
    /** One of WINDOW_COMBINE (script-codes.ts). */
    combine: number;
    periods: number;
    /** The window's encoding (SUM; BEST uses the board's). */
    maxPoints: number;
    minPoints: number;
    timeUnits: number;
    /** Stored names of the window's keys ending in P0 .. P(periods-1). */
    boards: string[];
    /** SUM: each key's first time unit (from the board's epoch). */
    baseUnits: number[];
    /** Each key's expiry (Unix ms). */
    expireAtMs: number[];
    /** The window's histogram bounds as sort keys of its encoding, when the board has a histogram. */
    histogram?: readonly number[];
  }>;
}
