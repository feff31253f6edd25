/**
 * LeaderboardService.WatchTop and WatchPlayer: the streams over the watch hub (watch-hub.ts).
 *
 * PACE. A watch sends a first message as soon as it has one, then at most one per interval_ms:
 * what changed in between is coalesced into the next message (a player's events accumulate), and
 * a change always leads to a message once the interval has passed, so the last message shows the
 * state once changes stop. A message is sent only when its content differs from the previous one
 * (a top: its entries; a player: its rank, score, or events).
 *
 * RESUME. Every message carries a resume token (resume-token.ts: the sequence number and what the
 * message showed, signed for this stream under the cluster's secret). A stream opened with it
 * continues the sequence, and its first message comes only when the state differs from what the
 * token showed; a token not given for this stream is refused (INVALID_ARGUMENT). Events between
 * the two streams are not replayed.
 *
 * BOUNDS. A caller holds at most `perCaller` streams at once (caller-slots.ts). A message is made
 * only while the stream's earlier messages the caller has not taken (HTTP/2 flow control holds them
 * in the router) are at most `bufferBytes`: past that the stream waits for them to drain, its
 * changes folding into the next message as between two intervals, so one stream holds at most
 * `bufferBytes` and one message. One that does not drain within `stallMs` is ended with
 * RESOURCE_EXHAUSTED ("stream stalled: N bytes unread for T ms"; the adapter resets its HTTP/2
 * stream, as its status cannot pass the unsent messages): its memory and its slot come back.
 *
 * The streams end when the caller cancels, and with UNAVAILABLE when the router shuts down
 * (reconnect elsewhere with the resume token).
 */
import { fnv1a32 } from "@ladder/model/fnv1a";
import { decodeSortKey, encodeSortKey } from "@ladder/model/score-encoding";
import { Code, LadderError, invalidArgument, unavailable } from "@ladder/model/errors";
import type { ImplOf, StreamContext } from "@ladder/platform/grpc-adapter";
import { boardProblem, playerIdProblem } from "@ladder/model/validate";
import { PlayerEvent_Kind as Kind, type LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import type { Queries, RankedEntry } from "../read/queries.js";
import { Watcher, type EventKind } from "./standings.js";
import type { PlayerWatch, TopWatch, WatchHub } from "./watch-hub.js";
import type { CallerSlots } from "./caller-slots.js";
import type { ResumeScope, ResumeTokens } from "./resume-token.js";

const DEFAULT_INTERVAL_MS = 250;
const MIN_INTERVAL_MS = 50;
const MAX_INTERVAL_MS = 60_000;
const DEFAULT_TOP = 10;
export const MAX_WATCH_TOP = 100;
/** top_k at most: the player's rank among the best 10,000. */
export const MAX_TOP_K = 10_000;
const RETRY_MAX_MS = 2_000;

const KINDS: Record<EventKind, Kind> = {
  overtaken: Kind.OVERTAKEN,
  passed: Kind.PASSED,
  entered_top: Kind.ENTERED_TOP,
  left_top: Kind.LEFT_TOP,
  score_changed: Kind.SCORE_CHANGED,
};

type Impl = Pick<ImplOf<typeof LeaderboardService>, "watchTop" | "watchPlayer">;

/** A stream's pace: turn() resolves true once `ready` holds and the interval since the last message passed (false: the stream ended). */
interface Pace {
  turn(ready: () => boolean): Promise<boolean>;
  /** A message went out now: waits while the caller leaves more than the buffer bound untaken (throws once it stalled). */
  sent(): Promise<void>;
  wait(ms?: number): Promise<void>;
  wake(): void;
}

/** How much a caller may leave untaken, for how long, and how many streams it may hold (see BOUNDS). */
export interface StreamBounds {
  bufferBytes: number;
  stallMs: number;
  slots: CallerSlots;
  /** The caller's name for its slots (caller-slots.ts callerOf). */
  callerOf(ctx: StreamContext): string;
}

export function watchStreams(hub: WatchHub, queries: Queries, bounds: StreamBounds, tokens: ResumeTokens): Impl & { stop(): void } {
  const open = new Set<AbortController>();
  const run = async (ctx: StreamContext, interval: number, body: (signal: AbortSignal, pace: Pace) => Promise<void>) => {
    const release = bounds.slots.take(bounds.callerOf(ctx));
    const ended = new AbortController();
    open.add(ended);
    const signal = AbortSignal.any([ctx.signal, ended.signal]);
    // one abort listener for the stream's life, not one per wait (the push bench's profile: 9% of the router's time)
    let wakeUp: (() => void) | undefined;
    const wake = () => wakeUp?.();
    signal.addEventListener("abort", wake, { once: true });
    const wait = (ms?: number) =>
      new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        const timer = ms === undefined ? undefined : setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wakeUp = undefined;
          resolve();
        }
        wakeUp = done;
      });
    let lastAt = -Infinity;
    const pace: Pace = {
      wake,
      wait,
      async turn(ready) {
        for (;;) {
          if (signal.aborted) return false;
          if (!ready()) await wait();
          else if (lastAt + interval > performance.now()) await wait(lastAt + interval - performance.now());
          else return true;
        }
      },
      async sent() {
        lastAt = performance.now();
        if (ctx.unsentBytes <= bounds.bufferBytes) return;
        let onAbort = () => {};
        const aborted = new Promise<boolean>((resolve) => (onAbort = () => resolve(false)));
        signal.addEventListener("abort", onAbort, { once: true });
        try {
          if ((await Promise.race([ctx.drained(bounds.bufferBytes, bounds.stallMs), aborted])) || signal.aborted) return;
        } finally {
          signal.removeEventListener("abort", onAbort);
        }
        throw stalled(ctx.unsentBytes, bounds.stallMs);
      },
    };
    try {
      await body(signal, pace);
      if (ended.signal.aborted) throw ended.signal.reason;
    } finally {
      open.delete(ended);
      release();
    }
  };
  return {
    async watchPlayer(req, send, ctx) {
      check("board", boardProblem(req.board));
      check("player_id", playerIdProblem(req.playerId));
      if (req.topK > MAX_TOP_K) throw invalidArgument(`top_k: must be 0..${MAX_TOP_K}, got ${req.topK}`);
      const interval = intervalOf(req.intervalMs);
      const { spec, stored } = queries.target(req.board, { period: req.period, window: req.window });
      notStreamed(req.board, spec);
      const scope: ResumeScope = { rpc: "WatchPlayer", board: req.board, period: req.period, window: req.window, playerId: req.playerId };
      const token = tokens.decode(scope, req.resumeToken);
      let seq = token?.s ?? 0;
      let shown = token ? { rank: Number(token.r ?? 0), key: token.k === undefined ? undefined : Number(token.k) } : undefined;
      const watcher = new Watcher(req.playerId, req.topK);
      await run(ctx, interval, async (signal, pace) => {
        const watch: PlayerWatch = {
          watcher,
          key: hub.keyOf(stored),
          stored,
          get ended() {
            return signal.aborted;
          },
          resynced: false,
          notify: pace.wake,
        };
        await hub.addPlayer(watch);
        try {
          while (await pace.turn(() => watcher.state === "aligned" && (watcher.dirty || watcher.events.length > 0 || watch.resynced))) {
            let now: { rank: number; key: number | undefined } = { rank: watcher.rank, key: watcher.key };
            let events = watcher.events;
            const resynced = watch.resynced;
            [watcher.dirty, watcher.events, watch.resynced] = [false, [], false];
            // the floor read after the standing it bounds (floor-read.ts): an entry below it is shown unranked, with no events
            const below = await hub.floorOf(stored, spec).catch((err: unknown) => retriable(err));
            if (!below) {
              [watcher.dirty, watcher.events, watch.resynced] = [true, [...events, ...watcher.events], watch.resynced || resynced];
              await pace.wait(RETRY_MAX_MS);
              continue;
            }
            if (now.key !== undefined && below(now.key, req.playerId)) [now, events] = [{ rank: 0, key: undefined }, []];
            if (shown && shown.rank === now.rank && shown.key === now.key && events.length === 0 && !resynced) continue;
            if (shown && shown.key !== now.key && now.key !== undefined) {
              // its own move: read again, so no event said where it passed the top K
              const before = events.at(-1)?.rank ?? shown.rank;
              events.push({ kind: "score_changed", rank: now.rank, key: now.key });
              const inTop = (rank: number) => rank > 0 && rank <= req.topK;
              if (req.topK > 0 && inTop(before) !== inTop(now.rank))
                events.push({ kind: inTop(now.rank) ? "entered_top" : "left_top", rank: now.rank, key: now.key });
            }
            seq++;
            send({
              ...(now.key === undefined ? {} : { entry: entryOf(spec, req.playerId, now.key, now.rank) }),
              total: BigInt(hub.totalOf(watch)),
              events: events.map((e) => ({
                kind: KINDS[e.kind],
                otherPlayerId: e.other ?? "",
                rank: BigInt(e.rank),
                score: BigInt(e.key === undefined ? 0 : decodeSortKey(spec, e.key).points),
              })),
              sequence: BigInt(seq),
              resumeToken: tokens.encode(scope, { s: seq, r: now.rank, k: now.key }),
              resynced,
            });
            shown = now;
            await pace.sent();
          }
        } finally {
          hub.removePlayer(watch);
        }
      });
    },
    async watchTop(req, send, ctx) {
      check("board", boardProblem(req.board));
      const limit = req.limit === 0 ? DEFAULT_TOP : req.limit;
      if (limit > MAX_WATCH_TOP) throw invalidArgument(`limit: must be 1..${MAX_WATCH_TOP} (0: ${DEFAULT_TOP}), got ${limit}`);
      const interval = intervalOf(req.intervalMs);
      const where = { period: req.period, window: req.window };
      const { spec, stored } = queries.target(req.board, where);
      notStreamed(req.board, spec);
      const scope: ResumeScope = { rpc: "WatchTop", board: req.board, period: req.period, window: req.window };
      const token = tokens.decode(scope, req.resumeToken);
      let seq = token?.s ?? 0;
      let shown = token?.h;
      await run(ctx, interval, async (_signal, pace) => {
        const watch: TopWatch = { key: hub.keyOf(stored), boundary: undefined, full: false, dirty: true, notify: pace.wake };
        await hub.addTop(watch);
        try {
          for (let pause = 100; await pace.turn(() => watch.dirty); ) {
            watch.dirty = false; // a change from here on calls for another read
            const readAtMs = Date.now();
            const page = await queries
              .top(req.board, 0, limit, Infinity, where)
              .catch((err: unknown) => ((watch.dirty = true), retriable(err)));
            if (!page) {
              await pace.wait((pause = Math.min(RETRY_MAX_MS, pause * 2)));
              continue;
            }
            pause = 100;
            const last = page.entries.at(-1);
            watch.boundary = last && { key: encodeSortKey(spec, last.points, last.reachedAtMs), playerId: last.playerId };
            watch.full = page.entries.length === limit;
            const hash = topHash(page.entries);
            if (hash === shown) continue;
            seq++;
            send({
              entries: page.entries.map(toEntry),
              total: BigInt(page.total),
              sequence: BigInt(seq),
              resumeToken: tokens.encode(scope, { s: seq, h: hash }),
              readAtMs: BigInt(readAtMs),
            });
            shown = hash;
            await pace.sent();
          }
        } finally {
          hub.removeTop(watch);
        }
      });
    },
    stop() {
      for (const c of open) c.abort(unavailable("the router is shutting down: reconnect with the last message's resume_token"));
    },
  };
}

function stalled(unsent: number, stallMs: number): LadderError {
  return new LadderError(
    Code.RESOURCE_EXHAUSTED,
    `stream stalled: ${unsent} bytes unread for ${stallMs} ms (LADDER_WATCH_STALL_MS); open it again with the last message's resume_token`,
    { retriable: true },
  );
}

/** INVALID_ARGUMENT naming `field`; a problem that starts with the field's name ("board is empty") is not prefixed twice. */
function check(field: string, problem: string | undefined): void {
  if (problem) throw invalidArgument(problem.startsWith(`${field} `) ? problem : `${field}: ${problem}`);
}

function intervalOf(ms: number): number {
  if (ms === 0) return DEFAULT_INTERVAL_MS;
  if (ms < MIN_INTERVAL_MS || ms > MAX_INTERVAL_MS)
    throw invalidArgument(`interval_ms: must be ${MIN_INTERVAL_MS}..${MAX_INTERVAL_MS} (0: ${DEFAULT_INTERVAL_MS}), got ${ms}`);
  return ms;
}

/** A failed top read: undefined when it may succeed later (tried again), else thrown. */
function retriable(err: unknown): undefined {
  const e = LadderError.from(err);
  if (e.code === Code.UNAVAILABLE || e.code === Code.DEADLINE_EXCEEDED) return undefined;
  throw e;
}

function entryOf(spec: Parameters<typeof decodeSortKey>[0], playerId: string, key: number, rank: number) {
  const { points, reachedAtMs } = decodeSortKey(spec, key);
  return { playerId, score: BigInt(points), rank: BigInt(rank), reachedAtMs: BigInt(reachedAtMs) };
}

function toEntry(e: RankedEntry) {
  return { playerId: e.playerId, score: BigInt(e.points), rank: BigInt(e.rank), reachedAtMs: BigInt(e.reachedAtMs), metadata: e.metadata };
}

/** What a top shows, hashed (FNV-1a): compared with the last message's, and kept in the resume token. */
function topHash(entries: readonly RankedEntry[]): string {
  return fnv1a32(entries.map((e) => `${e.playerId}\n${e.points}\n${e.reachedAtMs}\n${e.rank}`).join("\n\n")).toString(16);
}

/** A board with columns is in no shard's change stream (store/src/lua/includes/apply-columns.lua): FAILED_PRECONDITION. */
function notStreamed(board: string, spec: { columns?: readonly { name: string }[] }): void {
  if (spec.columns)
    throw new LadderError(
      Code.FAILED_PRECONDITION,
      `board "${board}" has columns, whose changes are not streamed: read it with GetTop, GetRank or GetAround`,
    );
}
