// Reads checked against a per-player history while moderation actions and writes run (moderation.int.test.ts).
//
// The driver makes one step at a time (a batch of writes, or a moderation action it waits to be
// applied) and records, before sending it, the state each touched player will be in: its score on
// each view when visible there, undefined when hidden or absent. A read may lag the acknowledged
// writes (no consistency token) but never a moderation step waited for, nor anything the player
// wrote before it (one partition); so an answer's entry must be a state its player was in from its
// last such step up to the step in flight, visible with that score, and a NOT_FOUND must match a
// state where the player was not visible.
import { status } from "@grpc/grpc-js";
import { expect } from "vitest";
import type { Entry, PartitionOffset } from "@ladder/proto/leaderboard/v1/common_pb";
import { outcome, served, type TestCluster } from "./cluster-harness.js";
import { seeded } from "./moving-board.js";
import { rulesPageProblems, type Rules, type RulesEntry } from "./rules-oracle.js";

export interface CheckedView {
  where: { board: string; period?: string; window?: string };
  rules: Rules;
  /** Compare scores and ranks only (a window's reached-at comes from its own encoding). */
  scoresOnly?: boolean;
}

export const plain = (e: Entry): RulesEntry => ({
  playerId: e.playerId,
  score: Number(e.score),
  reachedAtMs: Number(e.reachedAtMs),
  rank: Number(e.rank),
});

type State<V extends string> = { version: number; at: Record<V, number | undefined> };

export class CheckedReads<V extends string> {
  private version = 0;
  private readonly floor = new Map<string, number>();
  private readonly history = new Map<string, State<V>[]>();
  private stopped = false;
  private readers: Promise<void>[] = [];
  readonly problems: string[] = [];
  answers = 0;
  notFound = 0;
  /** Reads refused with UNAVAILABLE and a reason: not answers, not problems. */
  refused = 0;
  readonly offsets: PartitionOffset[] = [];

  constructor(
    private readonly c: TestCluster,
    private readonly views: Record<V, CheckedView>,
    private readonly players: readonly string[],
    /** The player's score on the view by the oracle now, undefined when it is not visible there. */
    private readonly visibleScore: (p: string, view: V) => number | undefined,
  ) {
    for (const p of players) this.history.set(p, [{ version: 0, at: this.stateOf(p) }]);
  }

  private stateOf(p: string): Record<V, number | undefined> {
    const at = {} as Record<V, number | undefined>;
    for (const v of Object.keys(this.views) as V[]) at[v] = this.visibleScore(p, v);
    return at;
  }

  /** Sends one step; `touched`: the players whose state the oracle changed for it; `waited`: wait until applied. */
  async step(send: () => Promise<PartitionOffset[]>, touched: Iterable<string>, waited: boolean): Promise<PartitionOffset[]> {
    const players = [...touched];
    for (const p of players) this.history.get(p)!.push({ version: this.version + 1, at: this.stateOf(p) });
    const written = await send();
    this.offsets.push(...written);
    if (waited) {
      await this.c.waitApplied(written);
      for (const p of players) this.floor.set(p, this.version + 1);
    }
    this.version++;
    return written;
  }

  /** States of `p` in force at some version in [from, to]. */
  private statesOf(p: string, from: number, to: number): State<V>[] {
    const all = this.history.get(p) ?? [];
    return all.filter((s, i) => s.version <= to && (all[i + 1]?.version ?? Infinity) > from);
  }

  start(readers = 2): void {
    this.readers = Array.from({ length: readers }, (_, r) => this.read(r));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.readers);
  }

  private async read(r: number): Promise<void> {
    const rand = seeded(100 + r);
    const names = Object.keys(this.views) as V[];
    while (!this.stopped) {
      const view = names[rand.randInt(0, names.length - 1)]!;
      const player = this.players[rand.randInt(0, this.players.length - 1)]!;
      const kind = rand.randInt(0, 2);
      const floors = new Map(this.floor);
      const where = this.views[view].where;
      const got = await outcome<{ entries?: Entry[]; entry?: Entry; total: bigint }>(
        kind === 0
          ? this.c.router.getTop({ ...where, limit: 200 })
          : kind === 1
            ? this.c.router.getAround({ ...where, playerId: player, radius: 4 })
            : this.c.router.getRank({ ...where, playerId: player }),
      );
      const to = this.version + 1; // the step in flight may be applied already
      const seen = (p: string) => this.statesOf(p, floors.get(p) ?? 0, to);
      if ("code" in got) {
        // UNAVAILABLE with its reason (a heartbeat missed on a busy machine) is a refusal, never wrong
        if (got.code === status.UNAVAILABLE && got.details) this.refused++;
        else if (got.code !== status.NOT_FOUND) this.problems.push(`${view}: code ${got.code} ${got.details}`);
        else if (kind === 0 || !seen(player).some((s) => s.at[view] === undefined))
          this.problems.push(`${view}: NOT_FOUND for ${player}, visible in every state since ${floors.get(player) ?? 0}`);
        else this.notFound++;
        continue;
      }
      this.answers++;
      const entries = (got.ok.entries ?? [got.ok.entry!]).map(plain);
      this.problems.push(...rulesPageProblems(this.views[view].rules, entries, Number(got.ok.total)).map((x) => `${view}: ${x}`));
      for (const e of entries)
        if (!seen(e.playerId).some((s) => s.at[view] === e.score))
          this.problems.push(
            `${view}: ${e.playerId} at ${e.score}, a state it was not in visibly since version ${floors.get(e.playerId) ?? 0}`,
          );
    }
  }

  /** At rest: each view's top equals `want(view)`, and the rank and around of `players` agree with it. */
  async exact(label: string, want: (view: V) => RulesEntry[], players: readonly string[]): Promise<void> {
    for (const view of Object.keys(this.views) as V[]) {
      const { where, scoresOnly } = this.views[view];
      const cmp = (es: RulesEntry[]) => (scoresOnly ? es.map((e) => ({ ...e, reachedAtMs: 0 })) : es);
      const board = want(view);
      expect(cmp((await served(() => this.c.router.getTop({ ...where, limit: 1000 }))).entries.map(plain)), `${label} ${view} top`).toEqual(
        cmp(board),
      );
      const byPlayer = new Map(board.map((e) => [e.playerId, e]));
      for (const p of players) {
        const e = byPlayer.get(p);
        const got = await outcome(served(() => this.c.router.getRank({ ...where, playerId: p })));
        if (!e) expect("code" in got ? got.code : "ok", `${label} ${view} rank of hidden or absent ${p}`).toBe(status.NOT_FOUND);
        else {
          expect("ok" in got && cmp([plain(got.ok.entry!)]), `${label} ${view} rank of ${p}`).toEqual(cmp([e]));
          if (e.rank % 5 === 0)
            expect(
              cmp((await served(() => this.c.router.getAround({ ...where, playerId: p, radius: 2 }))).entries.map(plain)),
              `${label} ${view} around ${p}`,
            ).toEqual(cmp(board.slice(Math.max(0, e.rank - 3), e.rank + 2)));
        }
      }
    }
  }
}
