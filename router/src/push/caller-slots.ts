/**
 * Stream slots per caller: at most `perCaller` WatchTop and WatchPlayer streams open at once for
 * one caller on this router process, so that one client cannot hold the router's watchers (each
 * with its standings, reads and buffers) for everyone.
 *
 * Who a caller is: the name of its token's grant when the call carries one, else its address
 * without the port (reads may be anonymous: LADDER_READS=open). A gateway's anonymous browsers thus
 * share the gateway's address, and a gateway forwarding callers' tokens spends each token's slots.
 * A slot is taken before the stream starts and given back when it ends, however it ends; the
 * (perCaller+1)th stream is refused with RESOURCE_EXHAUSTED naming the limit. Cost: one map entry
 * per caller holding a stream.
 */
import { LadderError, Code } from "@ladder/model/errors";

export class CallerSlots {
  private readonly open = new Map<string, number>();

  constructor(private readonly perCaller: number) {}

  /** Takes a slot of `caller`; returns its release (idempotent). Throws RESOURCE_EXHAUSTED when the caller holds all of its slots. */
  take(caller: string): () => void {
    const held = this.open.get(caller) ?? 0;
    if (held >= this.perCaller)
      throw new LadderError(
        Code.RESOURCE_EXHAUSTED,
        `${caller} holds ${held} watch streams, the most one caller may hold open at once (LADDER_WATCH_STREAMS_PER_CALLER = ${this.perCaller}); close one first`,
      );
    this.open.set(caller, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(caller) ?? 1) - 1;
      if (left > 0) this.open.set(caller, left);
      else this.open.delete(caller);
    };
  }

  /** Streams `caller` holds open. */
  heldBy(caller: string): number {
    return this.open.get(caller) ?? 0;
  }
}

/** A caller's name for its slots: `token "<grant name>"`, or `address <host>` for a call without a token. */
export function callerOf(grantName: string | undefined, peer: string): string {
  if (grantName !== undefined) return `token "${grantName}"`;
  const host = peer.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
  return `address ${host}`;
}
