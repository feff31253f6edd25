/**
 * Push latency, matched: each write the bench makes to be seen on a watcher's stream is a probe
 * (`own`: the watched player's own score, ended by the first message with that score; `overtake`:
 * another player passing it, ended by the first OVERTAKEN event naming that player), timed from
 * the write's send and from its acknowledgement (negative when a message beats the bench's event
 * loop to it, and kept so). A failed write or one not seen within the timeout (`expire`) ends its
 * probe unmatched. A player is `busy` while a probe of it is open: the bench writes it no more, so
 * every expected score stays the one its write makes. Method: push.md, "Push latency".
 */

export type ProbeKind = "own" | "overtake";

export interface Probe {
  kind: ProbeKind;
  /** The watched player whose stream must show the write. */
  watched: string;
  /** own: the score the write makes it have. */
  score?: number;
  /** overtake: the player who moves ahead of the watched one. */
  other?: string;
  /** When the write was meant to be sent, and when it was acknowledged (clock ms). */
  sentAt: number;
  ackAt?: number;
  /** When the message that showed it arrived. */
  seenAt?: number;
}

export interface LatencySample {
  kind: ProbeKind;
  fromAckMs: number;
  /** When its write was meant to be sent (clock ms): which part of the step it belongs to. */
  sentAt: number;
}

/** What a message on a watched player's stream shows: its score (undefined: no entry) and the players of its OVERTAKEN events. */
export interface SeenMessage {
  score: number | undefined;
  overtakenBy: readonly string[];
}

export class ProbeBook {
  private readonly open = new Map<string, Probe[]>();
  private readonly busyPlayers = new Map<string, number>();
  readonly samples: LatencySample[] = [];
  /** Probes ended without a message: their write failed, or nothing showed it in time. */
  failed = 0;
  expired = 0;

  /** Opens a probe (at its write's send). */
  add(p: Probe): void {
    const list = this.open.get(p.watched) ?? [];
    list.push(p);
    this.open.set(p.watched, list);
    for (const player of playersOf(p)) this.busyPlayers.set(player, (this.busyPlayers.get(player) ?? 0) + 1);
  }

  busy(player: string): boolean {
    return this.busyPlayers.has(player);
  }

  /** Probes open now. */
  get pending(): number {
    let n = 0;
    for (const list of this.open.values()) n += list.length;
    return n;
  }

  /** The probe's write was acknowledged at `at`. */
  acked(p: Probe, at: number): void {
    p.ackAt = at;
    if (p.seenAt !== undefined) this.finish(p);
  }

  /** The probe's write failed: it ends unmatched. */
  writeFailed(p: Probe): void {
    if (this.close(p)) this.failed++;
  }

  /** A message on `watched`'s stream arrived at `at`: the probes it ends. */
  onMessage(watched: string, m: SeenMessage, at: number): void {
    const list = this.open.get(watched);
    if (!list) return;
    for (const p of [...list]) {
      if (p.seenAt !== undefined) continue;
      const shows = p.kind === "own" ? m.score === p.score : m.overtakenBy.includes(p.other!);
      if (!shows) continue;
      p.seenAt = at;
      if (p.ackAt !== undefined) this.finish(p);
    }
  }

  /** Ends the probes sent more than `timeoutMs` before `now` and still not seen; returns them. */
  expire(now: number, timeoutMs: number): Probe[] {
    const out: Probe[] = [];
    for (const list of [...this.open.values()]) {
      for (const p of [...list]) {
        if (p.seenAt === undefined && now - p.sentAt > timeoutMs && this.close(p)) out.push(p);
      }
    }
    this.expired += out.length;
    return out;
  }

  /** The samples of `kind` whose write was sent within [from, to). */
  samplesSent(kind: ProbeKind, from: number, to: number): LatencySample[] {
    return this.samples.filter((s) => s.kind === kind && s.sentAt >= from && s.sentAt < to);
  }

  private finish(p: Probe): void {
    if (!this.close(p)) return;
    this.samples.push({
      kind: p.kind,
      fromAckMs: p.seenAt! - p.ackAt!,
      sentAt: p.sentAt,
    });
  }

  /** Takes `p` out of the open probes; false when it was not open. */
  private close(p: Probe): boolean {
    const list = this.open.get(p.watched);
    const i = list?.indexOf(p) ?? -1;
    if (i < 0) return false;
    list!.splice(i, 1);
    if (list!.length === 0) this.open.delete(p.watched);
    for (const player of playersOf(p)) {
      const n = (this.busyPlayers.get(player) ?? 1) - 1;
      if (n > 0) this.busyPlayers.set(player, n);
      else this.busyPlayers.delete(player);
    }
    return true;
  }
}

function playersOf(p: Probe): string[] {
  return p.other === undefined ? [p.watched] : [p.watched, p.other];
}
