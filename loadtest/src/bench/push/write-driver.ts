/**
 * The push bench's writes: SubmitScores through ingest, an open loop of batches of `batch`
 * updates at a fixed rate (run/open-loop.ts). Each update is a background write of an unwatched
 * player, an `own` probe (a watched player gains points: its new score known in advance), or an
 * `overtake` (the player just behind a watched one, from GetAround read beforehand, SET past it);
 * push.md, "The writes", gives the shares. A player whose write failed or was never seen is left
 * alone from then on (`tainted`), as is one whose probe is open (`busy`).
 */
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import type { LadderClient } from "@ladder/client";
import { runOpenLoop } from "../../run/open-loop.js";
import { timetable } from "../../run/rate-schedule.js";
import { playerId } from "../../workload/player-ids.js";
import type { Rng } from "../../workload/rng.js";
import type { ScoreSource } from "../../workload/score-distribution.js";
import { maxOffsets } from "../../seed/apply-watch.js";
import type { Probe, ProbeBook } from "./probe-book.js";

type Ingest = LadderClient["ingest"];
type Router = LadderClient["leaderboard"];

export interface WriteMix {
  batch: number;
  incrementMax: number;
  setShare: number;
  ownShare: number;
  overtakeShare: number;
}

export interface WriteDeps {
  ingest(): Ingest;
  router(): Router;
  board: string;
  players: number;
  watched: readonly string[];
  /** The current score of a watched player, as its stream last showed it; undefined without watchers. */
  scoreOf?(player: string): number | undefined;
  probes?: ProbeBook;
  rng: Rng;
  scores: ScoreSource;
  mix: WriteMix;
  clock(): number;
}

export interface WriteStepResult {
  /** Batches due, sent, and never sent (the loop could not keep the rate). */
  sent: number;
  unsent: number;
  acked: { updates: number; inWindow: number };
  /** Updates in the batches sent in the window (acknowledged or not). */
  sentInWindow: number;
  failed: { batches: number; byCode: Record<string, number> };
  /** ms from each batch's intended send to its acknowledgement, of the batches sent in the window. */
  ackMs: number[];
  probes: { own: number; overtake: number; overtakeSkipped: number };
  /** The largest offset acknowledged per partition. */
  offsets: Map<number, bigint>;
}

const PREPARED_OVERTAKES = 16;

export class WriteDriver {
  private readonly watchedSet: ReadonlySet<string>;
  private readonly tainted = new Set<string>();
  private readonly reserved = new Set<string>();
  private readonly ready: Array<{ watched: string; other: string; points: number }> = [];
  private ownCount = 0;

  constructor(private readonly d: WriteDeps) {
    this.watchedSet = new Set(d.watched);
  }

  /** Players left alone because a write of theirs failed or was never seen. */
  get taintedCount(): number {
    return this.tainted.size;
  }

  /** Sends `rate` updates/s for warmupMs + windowMs; figures of the batches sent in the window (from warmupMs on). */
  async run(
    rate: number,
    warmupMs: number,
    windowMs: number,
    onWindow: (edge: "start" | "end") => Promise<void>,
  ): Promise<WriteStepResult> {
    const { d } = this;
    const r: WriteStepResult = {
      sent: 0,
      unsent: 0,
      sentInWindow: 0,
      acked: { updates: 0, inWindow: 0 },
      failed: { batches: 0, byCode: {} },
      ackMs: [],
      probes: { own: 0, overtake: 0, overtakeSkipped: 0 },
      offsets: new Map(),
    };
    const start = d.clock();
    const windowStart = start + warmupMs;
    let done = false;
    const preparing = d.probes ? this.prepareOvertakes(() => done) : Promise.resolve();
    const edges = (async () => {
      await sleep(warmupMs);
      await onWindow("start");
      await sleep(start + warmupMs + windowMs - d.clock());
      await onWindow("end");
    })();
    const loop = await runOpenLoop({
      timetable: timetable(rate / d.mix.batch, warmupMs + windowMs),
      durationMs: warmupMs + windowMs,
      maxInFlight: 256,
      startMs: start,
      clock: d.clock,
      stopped: () => false,
      send: async (intended) => {
        const { updates, probes } = this.batch(intended, r);
        if (intended >= windowStart) r.sentInWindow += updates.length;
        try {
          const res = await d.ingest().submitScores({ updates });
          const at = d.clock();
          for (const p of probes) d.probes!.acked(p, at);
          r.acked.updates += res.accepted;
          maxOffsets(r.offsets, res.offsets);
          if (intended >= windowStart) (r.acked.inWindow += res.accepted), r.ackMs.push(at - intended);
        } catch (err) {
          for (const p of probes) d.probes!.writeFailed(p), this.tainted.add(p.watched);
          r.failed.batches++;
          const code = String((err as { code?: unknown }).code ?? "ERROR");
          r.failed.byCode[code] = (r.failed.byCode[code] ?? 0) + 1;
        }
      },
    });
    done = true;
    await Promise.all([edges, preparing]);
    r.sent = loop.sent;
    r.unsent = loop.unsent;
    return r;
  }

  /** Marks the watched players of probes that expired unseen: their score is no longer known. */
  taint(players: Iterable<string>): void {
    for (const p of players) this.tainted.add(p);
  }

  private batch(sentAt: number, r: WriteStepResult) {
    const { d } = this;
    const { mix, rng } = d;
    const updates: Array<{ board: string; playerId: string; op: Operation; value: bigint }> = [];
    const probes: Probe[] = [];
    const put = (player: string, op: Operation, value: number) =>
      updates.push({ board: d.board, playerId: player, op, value: BigInt(value) });
    for (let i = 0; i < mix.batch; i++) {
      const u = rng.nextDouble();
      if (u < mix.ownShare && d.watched.length > 0) {
        const w = this.pickWatched();
        if (w !== undefined) {
          // every other one a SET to the score an increment would make (a game server sending the total it computed)
          const current = d.scoreOf?.(w);
          const set = this.ownCount++ % 2 === 1 && current !== undefined;
          const gain = 1 + rng.nextInt(mix.incrementMax);
          put(w, set ? Operation.SET : Operation.INCREMENT, set ? current + gain : gain);
          if (d.probes && current !== undefined) {
            const p: Probe = { kind: "own", watched: w, score: current + gain, sentAt };
            d.probes.add(p);
            probes.push(p);
            r.probes.own++;
          }
          continue;
        }
      } else if (u < mix.ownShare + mix.overtakeShare && d.probes) {
        const o = this.ready.shift();
        if (o) {
          this.reserved.delete(o.watched);
          this.reserved.delete(o.other);
          put(o.other, Operation.SET, o.points + 1);
          const p: Probe = { kind: "overtake", watched: o.watched, other: o.other, sentAt };
          d.probes.add(p);
          probes.push(p);
          r.probes.overtake++;
          continue;
        }
        r.probes.overtakeSkipped++;
      }
      const player = this.pickBackground();
      if (rng.nextDouble() < mix.setShare) put(player, Operation.SET, d.scores.points(rng));
      else put(player, Operation.INCREMENT, 1 + rng.nextInt(mix.incrementMax));
    }
    return { updates, probes };
  }

  private free(player: string): boolean {
    return !this.tainted.has(player) && !this.reserved.has(player) && !(this.d.probes?.busy(player) ?? false);
  }

  /** A watched player that may be written now (a few tries: undefined when most are busy). */
  private pickWatched(): string | undefined {
    const { watched, rng, probes, scoreOf } = this.d;
    for (let t = 0; t < 8; t++) {
      const w = watched[rng.nextInt(watched.length)]!;
      if (this.free(w) && (!probes || scoreOf?.(w) !== undefined)) return w;
    }
    return undefined;
  }

  private pickBackground(): string {
    for (;;) {
      const p = playerId(this.d.rng.nextInt(this.d.players));
      if (!this.watchedSet.has(p) && this.free(p)) return p;
    }
  }

  /** Keeps PREPARED_OVERTAKES overtakes ready: a free watched player and the free unwatched player just behind it. */
  private async prepareOvertakes(stop: () => boolean): Promise<void> {
    while (!stop()) {
      if (this.ready.length >= PREPARED_OVERTAKES) {
        await sleep(5);
        continue;
      }
      const w = this.pickWatched();
      if (w === undefined) {
        await sleep(5);
        continue;
      }
      this.reserved.add(w);
      try {
        const around = await this.d.router().getAround({ board: this.d.board, playerId: w, radius: 3 }, { timeoutMs: 5_000 });
        const at = around.entries.findIndex((e) => e.playerId === w);
        const own = around.entries[at];
        const behind = around.entries.slice(at + 1).find((e) => !this.watchedSet.has(e.playerId) && this.free(e.playerId));
        if (own && behind && !stop()) {
          this.reserved.add(behind.playerId);
          this.ready.push({ watched: w, other: behind.playerId, points: Number(own.score) });
          continue;
        }
      } catch {
        await sleep(50);
      }
      this.reserved.delete(w);
    }
    for (const o of this.ready.splice(0)) this.reserved.delete(o.watched), this.reserved.delete(o.other);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
