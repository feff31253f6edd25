// What one reader has read of each player, for the monotonic-reads check of workload.ts: a later answer
// may show less of a player than an earlier one only where the cluster allows it, that is when it began
// within the player's replica bound of the earlier answer's end (a shard whose reads are spread over a
// primary and replicas that may miss the writes of the last LADDER_REPLICA_MAX_LAG_MS). With a bound of
// 0 a player's reads must never go back.
//
// Each player keeps its answers in the order they ended, with the highest score read up to each, so
// the score an answer must show at least is that of the last answer ended by its start less the bound.

/** An earlier answer a read must show at least: when it ended, and the highest score read by then. */
export interface EarlierRead {
  endMs: number;
  score: number;
}

export class ReadHistory {
  private readonly reads = new Map<string, EarlierRead[]>();

  /** `lagMs(player)`: how far behind an earlier answer a later one may be for that player (ms). */
  constructor(private readonly lagMs: (playerId: string) => number = () => 0) {}

  /** The earlier answer a read of `player` that began at `startMs` must show at least, if any. */
  mustShow(player: string, startMs: number): EarlierRead | undefined {
    const reads = this.reads.get(player) ?? [];
    const by = startMs - this.lagMs(player);
    for (let i = reads.length - 1; i >= 0; i--) if (reads[i]!.endMs <= by) return reads[i];
    return undefined;
  }

  /** Notes an answer that showed `player` at `score`, ended at `endMs` (after every earlier one). */
  note(player: string, score: number, endMs: number): void {
    const reads = this.reads.get(player) ?? [];
    reads.push({ endMs, score: Math.max(score, reads.at(-1)?.score ?? 0) });
    this.reads.set(player, reads);
  }
}
