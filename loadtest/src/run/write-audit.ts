/**
 * The loss audit of a loadtest run (`--audit-every K`, with `--write-op inc`): were acknowledged
 * writes lost or counted twice?
 *
 * Every player whose index is a multiple of K is audited. For those, the run adds up the
 * increments of every acknowledged SubmitScores (increments add in any order, so concurrent
 * batches need no ordering). A player in a call that failed (it may or may not have landed) is
 * uncertain, and one whose update a freshness probe turned into a SET is excluded: neither has one
 * expected score. When the load has stopped, each audited player's score is read through the
 * router (GetRank, like any client) until it equals the expected sum or `settleMs` pass: a score
 * below the sum after that is a lost write, above it a doubled one. The board must be fresh (every
 * player starts at 0). Memory: one map entry per audited player touched.
 */
import type { AuditResult } from "../model/loadtest-result.js";
import type { ProbeDeps } from "./freshness-probe.js";

export class WriteAudit {
  private readonly expected = new Map<string, number>();
  private readonly uncertain = new Set<string>();
  private readonly excluded = new Set<string>();
  private updates = 0;

  constructor(readonly every: number) {}

  /** Whether `playerId` (p:<index>) is audited. */
  audits(playerId: string): boolean {
    return Number(playerId.slice(2)) % this.every === 0;
  }

  /** A probe wrote a SET to this player: it has no expected sum. */
  exclude(playerId: string): void {
    if (this.audits(playerId)) this.excluded.add(playerId);
  }

  acknowledged(updates: ReadonlyArray<{ playerId: string; value: bigint }>): void {
    for (const u of updates) {
      if (!this.audits(u.playerId)) continue;
      this.expected.set(u.playerId, (this.expected.get(u.playerId) ?? 0) + Number(u.value));
      this.updates++;
    }
  }

  failed(updates: ReadonlyArray<{ playerId: string }>): void {
    for (const u of updates) if (this.audits(u.playerId)) this.uncertain.add(u.playerId);
  }

  /** Reads every judged player until it matches or `settleMs` pass (see above). */
  async check(o: Pick<ProbeDeps, "read" | "clock" | "sleep"> & { concurrency: number; settleMs: number }): Promise<AuditResult> {
    const started = o.clock();
    let pending = [...this.expected.keys()].filter((p) => !this.uncertain.has(p) && !this.excluded.has(p));
    const judged = pending.length;
    let last = new Map<string, number | undefined>();
    for (;;) {
      last = new Map();
      let next = 0;
      const worker = async () => {
        while (next < pending.length) {
          const p = pending[next++]!;
          last.set(p, await o.read(p));
        }
      };
      await Promise.all(Array.from({ length: o.concurrency }, worker));
      pending = pending.filter((p) => last.get(p) !== this.expected.get(p));
      if (pending.length === 0 || o.clock() - started > o.settleMs) break;
      await o.sleep(1000);
    }
    const below = pending.filter((p) => (last.get(p) ?? 0) < this.expected.get(p)!);
    return {
      players: judged,
      updates: this.updates,
      lost: below.length,
      doubled: pending.length - below.length,
      uncertain: this.uncertain.size,
      excluded: this.excluded.size,
      settledMs: Math.round(o.clock() - started),
      examples: pending.slice(0, 5).map((p) => `${p}: read ${last.get(p) ?? "nothing"}, expected ${this.expected.get(p)}`),
    };
  }
}
