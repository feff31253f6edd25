/**
 * The bench's watchers: WatchPlayer streams of many players and a few WatchTop streams, spread
 * round-robin over `connections` HTTP/2 connections to the router (one grpc-js channel each: a
 * local subchannel pool keeps them apart), read with the plain generated client
 * (@ladder/platform/grpc-adapter createClient: a grpc-js readable stream per call, no resume: a
 * stream that ends is counted, never reopened behind the figures' back).
 *
 * For each watched player it keeps the last message (score, rank, total) and counts messages,
 * events by kind and resynced messages; every player message also goes to `onPlayerMessage`
 * (the probe book). Times are this process's performance.now().
 */
import * as grpc from "@grpc/grpc-js";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import {
  LeaderboardService,
  PlayerEvent_Kind,
  type WatchPlayerResponse,
  type WatchTopResponse,
} from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import type { SeenMessage } from "./probe-book.js";

type Router = ClientOf<typeof LeaderboardService>;

export interface PlayerView {
  player: string;
  /** Undefined until the first message, and while the player has no entry. */
  score: number | undefined;
  rank: number;
  total: number;
  messages: number;
  firstAt: number | undefined;
  lastAt: number;
}

export interface TopView {
  /** The last message's entries: "player score rank", best first. */
  entries: string[];
  total: number;
  messages: number;
  firstAt: number | undefined;
}

export interface WatchCounters {
  playerMessages: number;
  topMessages: number;
  /** Events by kind (overtaken, passed, entered/left top, score changed). */
  events: Record<string, number>;
  resynced: number;
  /** Streams that ended (with any status) while the pool was open, by status. */
  ended: Record<string, number>;
}

export interface WatcherPoolOptions {
  address: string;
  connections: number;
  board: string;
  intervalMs: number;
  onPlayerMessage(player: string, m: SeenMessage, at: number): void;
}

const KIND_NAMES: Record<number, string> = {
  [PlayerEvent_Kind.OVERTAKEN]: "overtaken",
  [PlayerEvent_Kind.PASSED]: "passed",
  [PlayerEvent_Kind.ENTERED_TOP]: "entered_top",
  [PlayerEvent_Kind.LEFT_TOP]: "left_top",
  [PlayerEvent_Kind.SCORE_CHANGED]: "score_changed",
};

export class WatcherPool {
  readonly players = new Map<string, PlayerView>();
  readonly tops: TopView[] = [];
  readonly counters: WatchCounters = { playerMessages: 0, topMessages: 0, events: {}, resynced: 0, ended: {} };
  private readonly clients: Router[];
  private readonly calls: Array<grpc.ClientReadableStream<unknown>> = [];
  private next = 0;
  private closing = false;
  private waitingFirst = 0;
  private onAllFirst: ((err?: Error) => void) | undefined;

  constructor(private readonly o: WatcherPoolOptions) {
    this.clients = Array.from({ length: o.connections }, () =>
      createClient(LeaderboardService, o.address, grpc.credentials.createInsecure(), {
        "grpc.use_local_subchannel_pool": 1,
        "grpc.max_receive_message_length": 16 * 2 ** 20,
      }),
    );
  }

  private client(): Router {
    return this.clients[this.next++ % this.clients.length]!;
  }

  /** Opens a WatchPlayer stream for each player. */
  watchPlayers(players: readonly string[]): void {
    for (const player of players) {
      const view: PlayerView = { player, score: undefined, rank: 0, total: 0, messages: 0, firstAt: undefined, lastAt: NaN };
      this.players.set(player, view);
      this.waitingFirst++;
      const call = this.client().watchPlayer({ board: this.o.board, playerId: player, intervalMs: this.o.intervalMs });
      call.on("data", (m: WatchPlayerResponse) => this.onPlayer(view, m));
      this.follow(call, () => view.firstAt !== undefined);
    }
  }

  /** Opens `n` WatchTop streams of the top `limit`. */
  watchTops(n: number, limit: number): void {
    for (let i = 0; i < n; i++) {
      const view: TopView = { entries: [], total: 0, messages: 0, firstAt: undefined };
      this.tops.push(view);
      this.waitingFirst++;
      const call = this.client().watchTop({ board: this.o.board, limit, intervalMs: this.o.intervalMs });
      call.on("data", (m: WatchTopResponse) => {
        const now = performance.now();
        if (view.firstAt === undefined) (view.firstAt = now), this.firstArrived();
        view.messages++;
        this.counters.topMessages++;
        view.entries = m.entries.map((e) => `${e.playerId} ${e.score} ${e.rank}`);
        view.total = Number(m.total);
      });
      this.follow(call, () => view.firstAt !== undefined);
    }
  }

  /** Resolves once every stream opened so far has had its first message; rejects after `timeoutMs` or when a stream ended. */
  firstMessages(timeoutMs: number): Promise<void> {
    if (this.waitingFirst === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`${this.waitingFirst} of ${this.players.size + this.tops.length} streams had no first message after ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
      this.onAllFirst = (err) => {
        clearTimeout(timer);
        this.onAllFirst = undefined;
        if (err) reject(err);
        else resolve();
      };
    });
  }

  /** Streams that ended while the pool was open. */
  get endedCount(): number {
    return Object.values(this.counters.ended).reduce((a, b) => a + b, 0);
  }

  /** Cancels every stream and closes the connections. */
  close(): void {
    if (this.closing) return;
    this.closing = true;
    for (const c of this.calls) c.cancel();
    for (const c of this.clients) c.close();
  }

  private follow(call: grpc.ClientReadableStream<unknown>, hadFirst: () => boolean): void {
    this.calls.push(call);
    const ended = (code: string) => {
      if (this.closing) return;
      this.counters.ended[code] = (this.counters.ended[code] ?? 0) + 1;
      if (!hadFirst()) this.onAllFirst?.(new Error(`a stream ended with ${code} before its first message`));
    };
    call.on("error", (err: grpc.ServiceError) => ended(grpc.status[err.code] ?? String(err.code)));
    call.on("end", () => ended("OK"));
  }

  private firstArrived(): void {
    if (--this.waitingFirst === 0) this.onAllFirst?.();
  }

  private onPlayer(view: PlayerView, m: WatchPlayerResponse): void {
    const now = performance.now();
    if (view.firstAt === undefined) (view.firstAt = now), this.firstArrived();
    view.messages++;
    view.lastAt = now;
    view.score = m.entry ? Number(m.entry.score) : undefined;
    view.rank = m.entry ? Number(m.entry.rank) : 0;
    view.total = Number(m.total);
    const c = this.counters;
    c.playerMessages++;
    if (m.resynced) c.resynced++;
    const overtakenBy: string[] = [];
    for (const e of m.events) {
      const kind = KIND_NAMES[e.kind] ?? String(e.kind);
      c.events[kind] = (c.events[kind] ?? 0) + 1;
      if (e.kind === PlayerEvent_Kind.OVERTAKEN) overtakenBy.push(e.otherPlayerId);
    }
    this.o.onPlayerMessage(view.player, { score: view.score, overtakenBy }, now);
  }
}
