/**
 * Reads while the placement changes (../control/reshard.ts). From a reshard's first swap until every
 * changed shard's node serves the new placement, reads are refused, never answered from a mix
 * of placements: a shard swapped, or not yet, answers only readers of its own placement (its
 * stamp), and a node catching up answers nobody. Those refusals are short and expected, so a
 * read refused for such a reason (UNAVAILABLE, or a stamp that differs only in its slots) while
 * a move is under way is tried again, by the table in force then, for up to MOVE_RETRY_MS within
 * the call's deadline. A move is under way while this router runs a reshard (from its start, so
 * the window does not wait for this router to read the placement it publishes; a refusal with
 * another cause meanwhile waits those tries too, its own reason kept in the final error) and for
 * MOVE_WINDOW_MS after this router read a new placement. Past MOVE_RETRY_MS the read is refused
 * with UNAVAILABLE saying the shards are moving. A shard whose stamp differs from the router's in
 * its slots only is tried again the same way even before this router has read the new placement (a
 * shard moved in place serves the new placement as soon as its node has read it, which can be
 * before this router has); if it still differs after MOVE_RETRY_MS outside a move, that refusal
 * stands.
 * Anything else, and any read outside the window, fails as it would without a move.
 */
import { Code, LadderError, unavailable } from "@ladder/model/errors";
import type { CallContext } from "@ladder/platform/grpc-adapter";
import { StampMismatch } from "@ladder/store";

/** How long after a placement change refused reads are taken for the move's. */
export const MOVE_WINDOW_MS = 60_000;
/** How long one read is tried again across a move. */
export const MOVE_RETRY_MS = 3_000;
/** Pause between tries. */
const PAUSE_MS = 50;

export interface MoveClock {
  /** The epoch in force. */
  readonly epoch: number;
  /** When the epoch in force was read (performance.now()); 0 for the first placement. */
  readonly changedAt: number;
  /** Reshards this router is running now (../control/reshard.ts). */
  readonly running: number;
}

/** Whether a move is under way by `clock` for a read that began under placement epoch `epoch`. */
function underWay(clock: MoveClock, epoch: number): boolean {
  if (clock.running > 0) return true;
  return clock.changedAt > 0 && (clock.epoch !== epoch || performance.now() - clock.changedAt < MOVE_WINDOW_MS);
}

/** Whether `err` is a refusal a move causes. */
export function movingRefusal(err: unknown): boolean {
  if (err instanceof StampMismatch) return err.fields.length === 1 && err.fields[0] === "slots";
  return err instanceof LadderError && err.code === Code.UNAVAILABLE;
}

/**
 * `impl` with each unary handler tried again across a move (see above). The first try is the
 * handler's own promise with a rejection handler attached (no frame of its own on every call);
 * the tries after a refusal run in `retry`.
 */
export function retryAcrossMoves<I extends object>(impl: I, clock: MoveClock): I {
  const out: Record<string, unknown> = {};
  for (const [name, handler] of Object.entries(impl) as Array<[string, Handler]>) {
    out[name] = (req: unknown, ctx: CallContext) => {
      const until = Math.min(ctx.deadlineMs, Date.now() + MOVE_RETRY_MS);
      const epoch = clock.epoch;
      return handler(req, ctx).catch((err: unknown) => retry(handler, req, ctx, clock, { until, epoch, err }));
    };
  }
  return out as I;
}

type Handler = (req: unknown, ctx: CallContext) => Promise<unknown>;

/** The tries after the first refusal `err` (under placement epoch `epoch`), until `until` (ms since epoch). */
async function retry(
  handler: Handler,
  req: unknown,
  ctx: CallContext,
  clock: MoveClock,
  first: { until: number; epoch: number; err: unknown },
): Promise<unknown> {
  let { epoch, err } = first;
  for (let tries = 1; ; tries++) {
    const moving = underWay(clock, epoch);
    if (!movingRefusal(err) || !(moving || err instanceof StampMismatch)) throw err;
    if (Date.now() + PAUSE_MS >= first.until && !moving) throw err;
    if (Date.now() + PAUSE_MS >= first.until)
      throw unavailable(
        `the shards are moving to placement epoch ${clock.epoch} (AdminService.Reshard); refused after ${tries} tries: ${(err as Error).message}`,
        err,
      );
    await new Promise((r) => setTimeout(r, PAUSE_MS));
    epoch = clock.epoch;
    try {
      return await handler(req, ctx);
    } catch (e) {
      err = e;
    }
  }
}
