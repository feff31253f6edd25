/**
 * The last minutes of the cluster as the dashboard plots them, kept in the gateway's memory so
 * that a page needs no Prometheus: GET /api/trends?board=&period=&window=
 *
 *   {stepMs, windowMs,
 *    cluster: [{atMs, logEnd, writesPerSecond, lag: {<shard>: records | null}}],
 *    board:   {name, period, window, samples: [{atMs, total}]}}
 *
 * A sample is taken when a dashboard asks and the last one is at least STEP_MS old — never by a
 * timer of its own, so an idle gateway does no work — and one answer serves every dashboard of
 * that step. The cluster's sample is the shards' status (GetClusterStatus with the gateway's
 * token, shared with /api/status): `logEnd` is the score log's end (the sum of its partitions'
 * end offsets, which is every record ever acknowledged), `writesPerSecond` the change of logEnd
 * over the time between this sample and the one before it (null for the first, or across a gap
 * longer than GAP_MS when nobody looked), `lag` each shard's records still to apply. A board's
 * sample is its size (GetCount's total, read with the caller's token, as any read), kept for the
 * BOARDS boards asked for most recently.
 *
 * Costs: at most one GetClusterStatus per STEP_MS for all dashboards together (the same call
 * /api/status makes), one GetCount per board per STEP_MS; memory is bounded by KEEP samples per
 * series: about WINDOW_MS / STEP_MS.
 */

/** A sample at most this often, ms. */
export const STEP_MS = 2000;
/** How far back the series reach, ms. */
export const WINDOW_MS = 10 * 60_000;
/** Samples kept per series. */
export const KEEP = Math.ceil(WINDOW_MS / STEP_MS);
/** Boards whose size is followed at once (the most recently asked for). */
export const BOARDS = 16;
/** Two samples further apart than this give no rate. */
export const GAP_MS = 3 * STEP_MS;

export interface ClusterSample {
  atMs: number;
  logEnd: number | null;
  writesPerSecond: number | null;
  lag: Record<string, number | null>;
}

export interface BoardSample {
  atMs: number;
  total: number;
}

/** What a cluster sample is made of: the status answer's log end and shard lags. */
export interface StatusReading {
  logEnd: number | null;
  lag: Record<string, number | null>;
}

/** A series of at most KEEP samples, oldest first, dropping those older than WINDOW_MS. */
class Series<T extends { atMs: number }> {
  readonly samples: T[] = [];
  /** The sample being taken now, shared by every caller of its step. */
  pending: Promise<void> | undefined;

  last(): T | undefined {
    return this.samples[this.samples.length - 1];
  }

  due(now: number): boolean {
    const last = this.last();
    return last === undefined || now - last.atMs >= STEP_MS;
  }

  push(sample: T): void {
    this.samples.push(sample);
    while (this.samples.length > KEEP || (this.samples[0] && sample.atMs - this.samples[0].atMs > WINDOW_MS)) this.samples.shift();
  }
}

export class Trends {
  private readonly cluster = new Series<ClusterSample>();
  /** Board series by "board\0period\0window", in the order last asked for (Map order). */
  private readonly boards = new Map<string, Series<BoardSample>>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * The series, after taking what is due: `status` reads the cluster's state, `size` the board's
   * total (absent: no board asked). A failing read adds no sample and fails the answer.
   */
  async read(status: () => Promise<StatusReading>, board?: { name: string; period: string; window: string; size: () => Promise<number> }) {
    const takes = [this.take(this.cluster, async (atMs) => this.clusterSample(atMs, await status()))];
    let series: Series<BoardSample> | undefined;
    if (board) {
      series = this.boardSeries(`${board.name}\0${board.period}\0${board.window}`);
      takes.push(this.take(series, async (atMs) => ({ atMs, total: await board.size() })));
    }
    await Promise.all(takes);
    return {
      stepMs: STEP_MS,
      windowMs: WINDOW_MS,
      cluster: [...this.cluster.samples],
      board: board ? { name: board.name, period: board.period, window: board.window, samples: [...series!.samples] } : null,
    };
  }

  private clusterSample(atMs: number, r: StatusReading): ClusterSample {
    const prev = this.cluster.last();
    const rate =
      prev && prev.logEnd !== null && r.logEnd !== null && atMs - prev.atMs <= GAP_MS && atMs > prev.atMs
        ? Math.max(0, ((r.logEnd - prev.logEnd) * 1000) / (atMs - prev.atMs))
        : null;
    return { atMs, logEnd: r.logEnd, writesPerSecond: rate, lag: r.lag };
  }

  private boardSeries(key: string): Series<BoardSample> {
    let s = this.boards.get(key);
    if (s) this.boards.delete(key);
    else s = new Series<BoardSample>();
    this.boards.set(key, s); // most recent last
    while (this.boards.size > BOARDS) this.boards.delete(this.boards.keys().next().value!);
    return s;
  }

  /** Takes `series`' next sample if one is due (one taker per step; the others wait for it). */
  private take<T extends { atMs: number }>(series: Series<T>, sample: (atMs: number) => Promise<T>): Promise<void> {
    if (series.pending) return series.pending;
    const atMs = this.now();
    if (!series.due(atMs)) return Promise.resolve();
    const p = sample(atMs).then((s) => series.push(s));
    series.pending = p.finally(() => (series.pending = undefined));
    return series.pending;
  }
}
